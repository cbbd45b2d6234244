#include "subsim/io/tet_mesh_files.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "subsim/io/shown_text.hpp"

namespace subsim {
namespace {

// Counts read from a file are bounded before anything is allocated, so a corrupt header gives
// an error instead of bad_alloc; indices are ints, and 1e8 tets is far beyond what we simulate.
constexpr long long kMaxCount = 100'000'000;
// A record takes at least this many bytes ("1 0 0 0\n"), which bounds reservations by file size.
constexpr long long kMinRecordBytes = 8;

// Line 0 is an empty file: no line to point at.
[[noreturn]] void fail(const std::string& file, std::string_view field, const std::string& what,
                       int line) {
  throw SceneError(file + ": " + std::string(field) + ": " + what +
                   (line > 0 ? " (line " + std::to_string(line) + ")" : std::string()));
}

std::string readFile(const std::string& path, const char* kind) {
  const std::string prefix = path + ": cannot read the " + kind + " file: ";
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw SceneError(prefix + (ec ? ec.message() : std::string("no such file")));
  if (std::filesystem::is_directory(status)) throw SceneError(prefix + "it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(prefix + "it could not be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(prefix + "read error");
  return text.str();
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Line-by-line tokens of a whole file.  Both formats keep a record on one line, so a short
// record is reported on its own line instead of silently borrowing the next line's fields.
class LineReader {
 public:
  LineReader(const std::string& text, std::string file, char comment)
      : text_(text), file_(std::move(file)), comment_(comment) {}

  // Moves to the next line holding a token (after comment stripping); false at the end.
  bool nextLine() {
    while (next_ < text_.size()) {
      const std::size_t newline = std::min(text_.find('\n', next_), text_.size());
      cur_ = next_;
      end_ = newline;
      next_ = newline + 1;
      ++line_;
      if (comment_ != '\0') end_ = std::min(end_, std::min(text_.find(comment_, cur_), end_));
      skipSpace();
      if (cur_ < end_) return true;
    }
    cur_ = end_ = text_.size();
    return false;
  }

  // The next token of the current line, empty at its end.
  std::string_view token() {
    skipSpace();
    const std::size_t start = cur_;
    while (cur_ < end_ && !isSpace(text_[cur_])) ++cur_;
    return std::string_view(text_).substr(start, cur_ - start);
  }

  // The next token, without a leading '+' (which from_chars refuses but some exporters write).
  std::string_view number() {
    std::string_view tok = token();
    if (tok.size() > 1 && tok[0] == '+') tok.remove_prefix(1);
    return tok;
  }

  // The first character of the current line's next token ('\0' at its end).
  char peek() {
    skipSpace();
    return cur_ < end_ ? text_[cur_] : '\0';
  }

  [[noreturn]] void fail(std::string_view field, const std::string& what) const {
    subsim::fail(file_, field, what, line_);
  }

  long long integer(std::string_view field, const std::string& what) {
    const std::string_view tok = number();
    if (tok.empty()) fail(field, "expected " + what + " (an integer), the line ends");
    long long value = 0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), value);
    if (ec == std::errc::result_out_of_range)
      fail(field, "expected " + what + " (an integer), got " + inQuotes(tok) + ", out of range");
    if (ec != std::errc() || end != tok.data() + tok.size())
      fail(field, "expected " + what + " (an integer), got " + inQuotes(tok));
    return value;
  }

  long long integerIn(std::string_view field, const std::string& what, long long lo, long long hi) {
    const long long value = integer(field, what);
    if (value < lo || value > hi)
      fail(field, what + " " + std::to_string(value) + " out of range [" + std::to_string(lo) +
                      ", " + std::to_string(hi) + "]");
    return value;
  }

  long long count(std::string_view field, const std::string& what) {
    return integerIn(field, what, 0, kMaxCount);
  }

  double real(std::string_view field, const std::string& what) {
    const std::string_view tok = number();
    if (tok.empty()) fail(field, "expected " + what + " (a number), the line ends");
    double value = 0.0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), value);
    if (ec == std::errc() && end == tok.data() + tok.size() && std::isfinite(value)) return value;
    if (ec == std::errc::invalid_argument || end != tok.data() + tok.size())
      fail(field, "expected " + what + " (a number), got " + inQuotes(tok));
    fail(field, "expected a finite " + what + ", got " + inQuotes(tok));
  }

  Vec3 point(std::string_view field) {
    const double x = real(field, "x coordinate");
    const double y = real(field, "y coordinate");
    const double z = real(field, "z coordinate");
    return Vec3(x, y, z);
  }

  // Reserving for `count` records never exceeds what the file could hold.
  std::size_t reservable(long long count) const {
    return static_cast<std::size_t>(
        std::min<long long>(count, static_cast<long long>(text_.size()) / kMinRecordBytes + 1));
  }

  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  void skipSpace() {
    while (cur_ < end_ && isSpace(text_[cur_])) ++cur_;
  }

  const std::string& text_;
  std::string file_;
  char comment_;
  std::size_t next_ = 0;  // start of the next line
  std::size_t cur_ = 0;   // read position in the current line
  std::size_t end_ = 0;   // end of the current line (before any comment)
  int line_ = 0;
};

// Swaps nodes 2 and 3 of negatively oriented tets (the convention of the exporter, not a defect),
// then requires a valid mesh; `nodes_file` and `tets_file` name the file a defect comes from.
// The readers have already checked every node index.
TetMesh finished(TetMesh mesh, const std::string& nodes_file, const std::string& tets_file) {
  for (int t = 0; t < mesh.numTets(); ++t)
    if (signedVolume6(mesh, t) < 0.0) std::swap(mesh.tets[t][2], mesh.tets[t][3]);
  const std::string defect = checkTetMesh(mesh);
  if (!defect.empty())
    throw SceneError((defect.rfind("nodes", 0) == 0 ? nodes_file : tets_file) + ": " + defect);
  return mesh;
}

// ---------------------------------------------------------------------------------------------
// TetGen (https://wias-berlin.de/software/tetgen/fformats.html): '#' comments; missing trailing
// header fields take TetGen's defaults.

struct TetgenNodes {
  std::vector<Vec3> points;
  long long base = 0;  // index of the first node: 0 or 1
};

TetgenNodes readTetgenNodes(const std::string& path) {
  const std::string text = readFile(path, "TetGen .node");
  LineReader r(text, path, '#');
  if (!r.nextLine()) r.fail("header", "expected '<#points> 3 <#attributes> <#markers>', got none");
  const long long count = r.count("header", "number of points");
  if (count < 4)
    r.fail("header", "expected at least 4 points, got " + std::to_string(count) +
                         " (0 points refers to a .poly file, which is not supported)");
  const long long dim = r.peek() ? r.integer("header", "dimension") : 3;
  if (dim != 3) r.fail("header", "expected dimension 3, got " + std::to_string(dim));
  const long long attributes = r.peek() ? r.integerIn("header", "attribute count", 0, 1000) : 0;
  const long long markers = r.peek() ? r.integerIn("header", "boundary marker count", 0, 1) : 0;

  TetgenNodes nodes;
  nodes.points.reserve(r.reservable(count));
  for (long long i = 0; i < count; ++i) {
    const std::string field = "nodes[" + std::to_string(i) + "]";
    if (!r.nextLine())
      r.fail(field,
             "expected " + std::to_string(count) + " points, file ends after " + std::to_string(i));
    if (i == 0) {
      nodes.base = r.integer(field, "point index");
      if (nodes.base != 0 && nodes.base != 1)
        r.fail(field,
               "expected the first point index to be 0 or 1, got " + std::to_string(nodes.base));
    } else {
      const long long index = r.integer(field, "point index");
      if (index != nodes.base + i)
        r.fail(field, "expected point index " + std::to_string(nodes.base + i) +
                          " (consecutive numbering), got " + std::to_string(index));
    }
    nodes.points.push_back(r.point(field));
    for (long long a = 0; a < attributes; ++a) r.real(field, "attribute");
    if (markers > 0) r.integer(field, "boundary marker");
  }
  if (r.nextLine())
    r.fail("header", "expected " + std::to_string(count) + " points, the file has more");
  return nodes;
}

std::vector<std::array<int, 4>> readTetgenTets(const std::string& path, const TetgenNodes& nodes) {
  const std::string text = readFile(path, "TetGen .ele");
  LineReader r(text, path, '#');
  if (!r.nextLine()) r.fail("header", "expected '<#tets> <4 or 10> <#attributes>', got none");
  const long long count = r.count("header", "number of tets");
  const long long per_tet = r.peek() ? r.integer("header", "nodes per tet") : 4;
  if (per_tet != 4 && per_tet != 10)
    r.fail("header", "expected 4 or 10 nodes per tet, got " + std::to_string(per_tet));
  const long long attributes = r.peek() ? r.integerIn("header", "attribute count", 0, 1000) : 0;

  const long long first = nodes.base;
  const long long last = nodes.base + static_cast<long long>(nodes.points.size()) - 1;
  std::vector<std::array<int, 4>> tets;
  tets.reserve(r.reservable(count));
  for (long long i = 0; i < count; ++i) {
    const std::string field = "tets[" + std::to_string(i) + "]";
    if (!r.nextLine())
      r.fail(field,
             "expected " + std::to_string(count) + " tets, file ends after " + std::to_string(i));
    r.integer(field, "tet index");
    std::array<int, 4> tet{};
    for (long long k = 0; k < per_tet; ++k) {
      const long long index = r.integerIn(field, "node index", first, last);
      if (k < 4) tet[k] = static_cast<int>(index - first);
    }
    for (long long a = 0; a < attributes; ++a) r.real(field, "attribute");
    tets.push_back(tet);
  }
  if (r.nextLine())
    r.fail("header", "expected " + std::to_string(count) + " tets, the file has more");
  return tets;
}

// ---------------------------------------------------------------------------------------------
// Gmsh MSH (https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format), ASCII 2.2 and 4.1.

constexpr int kTet4 = 4;
constexpr int kTet10 = 11;
constexpr long long kMaxTag = std::numeric_limits<long long>::max();

struct GmshTet {
  std::array<long long, 4> tags;
  long long element;
  int line;
};

struct GmshData {
  std::vector<Vec3> points;
  std::unordered_map<long long, int> index_of_tag;
  std::vector<GmshTet> tets;
  long long tet10_count = 0;
};

void addNode(LineReader& r, GmshData& data, long long tag, const Vec3& x, std::string_view field) {
  if (!data.index_of_tag.emplace(tag, static_cast<int>(data.points.size())).second)
    r.fail(field, "expected unique node tags, got node tag " + std::to_string(tag) + " twice");
  data.points.push_back(x);
}

// The next record of a section of `count` records, `done` of them read.
void nextRecord(LineReader& r, std::string_view field, long long count, long long done,
                const char* noun) {
  const std::string expected = "expected " + std::to_string(count) + " " + noun;
  if (!r.nextLine()) r.fail(field, expected + ", file ends after " + std::to_string(done));
  if (r.peek() == '$') r.fail(field, expected + ", the section ends after " + std::to_string(done));
}

// A line that must follow (a header line of a section).
void needLine(LineReader& r, std::string_view field, const std::string& what) {
  if (!r.nextLine()) r.fail(field, "expected " + what + ", file ends");
  if (r.peek() == '$') r.fail(field, "expected " + what + ", the section ends");
}

void expectEnd(LineReader& r, const std::string& end) {
  const std::string field = "$" + end.substr(4);
  if (!r.nextLine()) r.fail(field, "expected " + end + ", file ends");
  const std::string_view tok = r.token();
  if (tok != end)
    r.fail(field, "expected " + end + " (record count as in the header), got " + inQuotes(tok));
}

std::string nodeField(long long tag) {
  return "$Nodes: node " + std::to_string(tag);
}

void readNodesV2(LineReader& r, GmshData& data) {
  needLine(r, "$Nodes", "the number of nodes");
  const long long count = r.count("$Nodes", "number of nodes");
  data.points.reserve(r.reservable(count));
  for (long long i = 0; i < count; ++i) {
    nextRecord(r, "$Nodes", count, i, "nodes");
    const long long tag = r.integerIn("$Nodes", "node tag", 1, kMaxTag);
    const std::string field = nodeField(tag);
    addNode(r, data, tag, r.point(field), field);
  }
  expectEnd(r, "$EndNodes");
}

void readNodesV4(LineReader& r, GmshData& data) {
  needLine(r, "$Nodes", "'numEntityBlocks numNodes minNodeTag maxNodeTag'");
  const long long blocks = r.count("$Nodes", "number of entity blocks");
  const long long count = r.count("$Nodes", "number of nodes");
  data.points.reserve(r.reservable(count));
  long long done = 0;
  std::vector<long long> tags;
  for (long long b = 0; b < blocks; ++b) {
    const std::string block_field = "$Nodes: block " + std::to_string(b);
    nextRecord(r, block_field, blocks, b, "entity blocks");
    const long long dim = r.integerIn(block_field, "entity dimension", 0, 3);
    r.integer(block_field, "entity tag");
    const long long parametric = r.integerIn(block_field, "parametric flag", 0, 1);
    const long long in_block = r.count(block_field, "number of nodes in block");
    if (done + in_block > count)
      r.fail(block_field,
             "expected " + std::to_string(count) + " nodes in all (header), the blocks hold more");
    tags.clear();
    tags.reserve(r.reservable(in_block));
    for (long long i = 0; i < in_block; ++i) {
      nextRecord(r, block_field, in_block, i, "node tags");
      tags.push_back(r.integerIn(block_field, "node tag", 1, kMaxTag));
    }
    for (long long i = 0; i < in_block; ++i) {
      const long long tag = tags[i];
      const std::string field = nodeField(tag);
      nextRecord(r, block_field, in_block, i, "node coordinates");
      const Vec3 x = r.point(field);
      for (long long p = 0; p < parametric * dim; ++p) r.real(field, "parametric coordinate");
      addNode(r, data, tag, x, field);
    }
    done += in_block;
  }
  if (done != count)
    r.fail("$Nodes", "expected " + std::to_string(count) + " nodes (header), the blocks hold " +
                         std::to_string(done));
  expectEnd(r, "$EndNodes");
}

GmshTet tetTags(LineReader& r, std::string_view field, long long element) {
  GmshTet tet{{}, element, r.line()};
  for (long long& tag : tet.tags) tag = r.integerIn(field, "node tag", 1, kMaxTag);
  return tet;
}

void readElementsV2(LineReader& r, GmshData& data) {
  needLine(r, "$Elements", "the number of elements");
  const long long count = r.count("$Elements", "number of elements");
  for (long long i = 0; i < count; ++i) {
    nextRecord(r, "$Elements", count, i, "elements");
    const long long element = r.integerIn("$Elements", "element tag", 1, kMaxTag);
    const std::string field = "$Elements: element " + std::to_string(element);
    const long long type = r.integer(field, "element type");
    if (type == kTet10) ++data.tet10_count;
    if (type != kTet4) continue;
    const long long tag_count = r.integerIn(field, "number of tags", 0, 1000);
    for (long long k = 0; k < tag_count; ++k) r.integer(field, "tag");
    data.tets.push_back(tetTags(r, field, element));
  }
  expectEnd(r, "$EndElements");
}

void readElementsV4(LineReader& r, GmshData& data) {
  needLine(r, "$Elements", "'numEntityBlocks numElements minElementTag maxElementTag'");
  const long long blocks = r.count("$Elements", "number of entity blocks");
  const long long count = r.count("$Elements", "number of elements");
  long long done = 0;
  for (long long b = 0; b < blocks; ++b) {
    const std::string block_field = "$Elements: block " + std::to_string(b);
    nextRecord(r, block_field, blocks, b, "entity blocks");
    r.integerIn(block_field, "entity dimension", 0, 3);
    r.integer(block_field, "entity tag");
    const long long type = r.integer(block_field, "element type");
    const long long in_block = r.count(block_field, "number of elements in block");
    if (done + in_block > count)
      r.fail(block_field, "expected " + std::to_string(count) +
                              " elements in all (header), the blocks hold more");
    if (type == kTet10) data.tet10_count += in_block;
    for (long long i = 0; i < in_block; ++i) {
      nextRecord(r, block_field, in_block, i, "elements");
      if (type != kTet4) continue;
      const long long element = r.integerIn(block_field, "element tag", 1, kMaxTag);
      data.tets.push_back(tetTags(r, "$Elements: element " + std::to_string(element), element));
    }
    done += in_block;
  }
  if (done != count)
    r.fail("$Elements", "expected " + std::to_string(count) +
                            " elements (header), the blocks hold " + std::to_string(done));
  expectEnd(r, "$EndElements");
}

// The version line "version file-type data-size"; returns the major version (2 or 4).
int readMeshFormat(LineReader& r) {
  if (!r.nextLine()) r.fail("$MeshFormat", "expected $MeshFormat first, the file is empty");
  const std::string_view head = r.token();
  if (head != "$MeshFormat")
    r.fail("$MeshFormat", "expected $MeshFormat first (a Gmsh MSH file), got " + inQuotes(head));
  needLine(r, "$MeshFormat", "'version file-type data-size'");
  const std::string_view version = r.token();
  const long long file_type = r.integer("$MeshFormat", "file type");
  if (file_type != 0)
    r.fail("$MeshFormat", "expected file type 0 (ASCII), got " + std::to_string(file_type) +
                              ": binary MSH files are not supported, export as ASCII");
  int major = 0;
  if (version == "2.2" || version == "2.2.0")
    major = 2;
  else if (version == "4.1" || version == "4.1.0")
    major = 4;
  else
    r.fail("$MeshFormat", "expected version 2.2 or 4.1, got " + inQuotes(version));
  r.integer("$MeshFormat", "data size");
  expectEnd(r, "$EndMeshFormat");
  return major;
}

// Skips a section this reader does not use ($Entities, $PhysicalNames, $Comments, ...).
void skipSection(LineReader& r, std::string_view head) {
  const std::string name(head.substr(1));
  const std::string end = "$End" + name;
  while (r.nextLine())
    if (r.token() == end) return;
  r.fail(head, "expected " + end + ", file ends");
}

TetMesh gmshMesh(LineReader& r, GmshData& data) {
  if (data.tets.empty())
    r.fail("$Elements",
           "expected 4-node tetrahedra (element type 4), found none" +
               (data.tet10_count > 0 ? std::string(" (10-node tetrahedra are not supported)")
                                     : std::string()));
  // Nodes no tet uses (geometry points, surface-only nodes) are dropped; kept ones keep file order.
  std::vector<int> new_index(data.points.size(), -1);
  std::vector<std::array<int, 4>> tets;
  tets.reserve(data.tets.size());
  for (const GmshTet& gmsh : data.tets) {
    std::array<int, 4> tet{};
    for (int k = 0; k < 4; ++k) {
      const auto found = data.index_of_tag.find(gmsh.tags[k]);
      if (found == data.index_of_tag.end())
        fail(r.file(), "$Elements: element " + std::to_string(gmsh.element),
             "node tag " + std::to_string(gmsh.tags[k]) + " not in $Nodes", gmsh.line);
      tet[k] = found->second;
      new_index[found->second] = 0;
    }
    tets.push_back(tet);
  }
  TetMesh mesh;
  for (std::size_t n = 0; n < data.points.size(); ++n) {
    if (new_index[n] < 0) continue;
    new_index[n] = mesh.numNodes();
    mesh.nodes.push_back(data.points[n]);
  }
  for (auto& tet : tets)
    for (int& n : tet) n = new_index[n];
  mesh.tets = std::move(tets);
  return mesh;
}

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

TetMesh readTetgenMesh(const std::string& node_path, const std::string& ele_path) {
  const TetgenNodes nodes = readTetgenNodes(node_path);
  TetMesh mesh;
  mesh.tets = readTetgenTets(ele_path, nodes);
  mesh.nodes = nodes.points;
  return finished(std::move(mesh), node_path, ele_path);
}

TetMesh readGmshMesh(const std::string& path) {
  const std::string text = readFile(path, "Gmsh .msh");
  LineReader r(text, path, '\0');
  const int major = readMeshFormat(r);
  GmshData data;
  bool have_nodes = false;
  bool have_elements = false;
  while (r.nextLine()) {
    const std::string_view head = r.token();
    if (head.empty() || head[0] != '$')
      r.fail("file", "expected a section such as $Nodes, got " + inQuotes(head));
    if (head == "$Nodes" || head == "$Elements") {
      bool& seen = head == "$Nodes" ? have_nodes : have_elements;
      if (seen) r.fail(head, "expected one " + std::string(head) + " section, got a second");
      seen = true;
      if (head == "$Nodes" && major == 2) readNodesV2(r, data);
      if (head == "$Nodes" && major == 4) readNodesV4(r, data);
      if (head == "$Elements" && major == 2) readElementsV2(r, data);
      if (head == "$Elements" && major == 4) readElementsV4(r, data);
    } else {
      skipSection(r, head);
    }
  }
  if (!have_nodes) r.fail("$Nodes", "expected a $Nodes section, file ends");
  if (!have_elements) r.fail("$Elements", "expected an $Elements section, file ends");
  return finished(gmshMesh(r, data), path, path);
}

TetMesh loadTetMesh(const std::string& path) {
  const std::string ext = lowerExtension(path);
  if (ext == ".msh") return readGmshMesh(path);
  if (ext == ".node" || ext == ".ele") {
    std::filesystem::path node_path(path), ele_path(path);
    node_path.replace_extension(".node");
    ele_path.replace_extension(".ele");
    return readTetgenMesh(node_path.string(), ele_path.string());
  }
  throw SceneError(path +
                   ": mesh file: expected extension .msh (Gmsh) or .node/.ele (TetGen), got " +
                   (ext.empty() ? std::string("none") : inQuotes(ext)));
}

}  // namespace subsim
