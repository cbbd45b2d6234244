// Mesh files: TetGen and Gmsh 2.2 / 4.1 give the same mesh, written meshes read back exactly, and
// bad files are SceneErrors naming the file and the field, never a crash.
#include "subsim/io/tet_mesh_files.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace subsim {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

// A fresh directory per test, removed afterwards.
class TetMeshFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    dir_ = fs::temp_directory_path() /
           ("subsim_tet_mesh_files_" + std::to_string(stamp) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // The message of the SceneError that loading `path` throws.
  static std::string errorOf(const std::string& path) {
    try {
      loadTetMesh(path);
    } catch (const SceneError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected a SceneError for " << path;
    return "";
  }

  fs::path dir_;
};

// Two tets sharing the face (1, 2, 3); volumes 1/6 and 2/6.
const std::string kTetgenNode0 = R"(# two tets, 0-based
5 3 0 0
0  0 0 0
1  1 0 0
2  0 1 0
3  0 0 1
4  1 1 1
)";
const std::string kTetgenEle0 = R"(2 4 0
0  0 1 2 3
1  1 2 3 4  # trailing comment
)";
// 1-based, with an attribute and a boundary marker per node, an attribute per tet, a blank line
// and numbers with explicit signs.
const std::string kTetgenNode1 = R"(5 3 1 1
1  0 0 0  0.5 1
2  +1 0 0  0.5 1

3  0 1 0  0.5 1
4  0 0 1  0.5 1
5  1 1 1.0e+00  0.5 0
)";
const std::string kTetgenEle1 = R"(2 4 1
1  1 2 3 4  7
2  2 3 4 5  7
)";

// Node tags are not contiguous; node 99, the point and the triangle are not part of any tet.
const std::string kGmsh22 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
3 1 "body"
$EndPhysicalNames
$Nodes
6
10 0 0 0
20 1 0 0
99 5 5 5
30 0 1 0
40 0 0 1
50 1 1 1
$EndNodes
$Elements
4
1 15 2 0 99 99
2 2 2 0 1 10 20 30
3 4 2 1 1 10 20 30 40
4 4 2 1 1 20 30 40 50
$EndElements
)";

// Two node blocks, the second parametric on a surface (u, v follow x, y, z).
const std::string kGmsh41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$Entities
0 0 0 1
1 0 0 0 1 1 1 0 0
$EndEntities
$Nodes
2 5 1 5
3 1 0 3
1
2
3
0 0 0
1 0 0
0 1 0
2 1 1 2
4
5
0 0 1 0.25 0.5
1 1 1 0.75 0.5
$EndNodes
$Elements
2 3 1 3
2 1 2 1
1 1 2 3
3 1 4 2
2 1 2 3 4
3 2 3 4 5
$EndElements
)";

double totalVolume6(const TetMesh& mesh) {
  double sum = 0.0;
  for (int t = 0; t < mesh.numTets(); ++t) sum += signedVolume6(mesh, t);
  return sum;
}

void expectTwoTetMesh(const TetMesh& mesh) {
  ASSERT_EQ(mesh.numNodes(), 5);
  ASSERT_EQ(mesh.numTets(), 2);
  EXPECT_EQ(mesh.nodes[4], Vec3(1, 1, 1));
  EXPECT_EQ(mesh.tets[0], (std::array<int, 4>{0, 1, 2, 3}));
  EXPECT_EQ(mesh.tets[1], (std::array<int, 4>{1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(signedVolume6(mesh, 0), 1.0);
  EXPECT_DOUBLE_EQ(signedVolume6(mesh, 1), 2.0);
  EXPECT_EQ(checkTetMesh(mesh), "");
}

TEST_F(TetMeshFiles, TetgenZeroAndOneBasedGiveTheSameMesh) {
  write("zero.node", kTetgenNode0);
  const std::string ele0 = write("zero.ele", kTetgenEle0);
  write("one.node", kTetgenNode1);
  write("one.ele", kTetgenEle1);
  expectTwoTetMesh(loadTetMesh(ele0));
  expectTwoTetMesh(loadTetMesh((dir_ / "one.node").string()));
  expectTwoTetMesh(readTetgenMesh((dir_ / "one.node").string(), (dir_ / "one.ele").string()));
}

TEST_F(TetMeshFiles, GmshVersionsGiveTheSameMeshAsTetgen) {
  expectTwoTetMesh(loadTetMesh(write("v22.msh", kGmsh22)));
  expectTwoTetMesh(loadTetMesh(write("v41.msh", kGmsh41)));
  expectTwoTetMesh(readGmshMesh(write("crlf.msh", [] {
    std::string text;
    for (char c : kGmsh41) text += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return text;
  }())));
  EXPECT_DOUBLE_EQ(totalVolume6(loadTetMesh((dir_ / "v22.msh").string())), 3.0);
}

TEST_F(TetMeshFiles, InvertedTetIsReoriented) {
  write("inv.node", kTetgenNode0);
  const std::string ele = write("inv.ele", "2 4 0\n0 0 2 1 3\n1 1 2 3 4\n");
  const TetMesh mesh = loadTetMesh(ele);
  EXPECT_EQ(mesh.tets[0], (std::array<int, 4>{0, 2, 3, 1}));
  EXPECT_DOUBLE_EQ(signedVolume6(mesh, 0), 1.0);
  EXPECT_EQ(mesh.tets[1], (std::array<int, 4>{1, 2, 3, 4}));
}

// A mesh with awkward coordinates, written with 17 digits, reads back bit for bit.
TEST_F(TetMeshFiles, WrittenMeshReadsBackExactly) {
  TetMesh mesh;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i)
        mesh.nodes.push_back(Vec3(0.1 * i + 1.0 / 3.0, -0.7 * j + 1e-3, 2.5e-5 * k - 12.25));
  // Kuhn split of the cube into 6 positively oriented tets (corner c = i + 2j + 4k).
  for (const auto& [a, b] : {std::pair{1, 3}, {1, 5}, {2, 3}, {2, 6}, {4, 5}, {4, 6}}) {
    mesh.tets.push_back({0, a, b, 7});
    if (signedVolume6(mesh, mesh.numTets() - 1) < 0)
      std::swap(mesh.tets.back()[2], mesh.tets.back()[3]);
  }
  ASSERT_EQ(checkTetMesh(mesh), "");

  auto real = [](double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", x);
    return std::string(buffer);
  };
  std::ostringstream node, ele, msh;
  node << mesh.numNodes() << " 3 0 0\n";
  msh << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" << mesh.numNodes() << "\n";
  for (int n = 0; n < mesh.numNodes(); ++n) {
    const std::string xyz =
        real(mesh.nodes[n].x()) + " " + real(mesh.nodes[n].y()) + " " + real(mesh.nodes[n].z());
    node << n << " " << xyz << "\n";
    msh << n + 1 << " " << xyz << "\n";
  }
  ele << mesh.numTets() << " 4 0\n";
  msh << "$EndNodes\n$Elements\n" << mesh.numTets() << "\n";
  for (int t = 0; t < mesh.numTets(); ++t) {
    const auto& tet = mesh.tets[t];
    ele << t << " " << tet[0] << " " << tet[1] << " " << tet[2] << " " << tet[3] << "\n";
    msh << t + 1 << " 4 0 " << tet[0] + 1 << " " << tet[1] + 1 << " " << tet[2] + 1 << " "
        << tet[3] + 1 << "\n";
  }
  msh << "$EndElements\n";
  write("cube.node", node.str());
  write("cube.ele", ele.str());
  for (const TetMesh& read :
       {loadTetMesh((dir_ / "cube.node").string()), loadTetMesh(write("cube.msh", msh.str()))}) {
    EXPECT_EQ(read.nodes, mesh.nodes);
    EXPECT_EQ(read.tets, mesh.tets);
  }
}

// --- errors: each names the file and the field --------------------------------------------------

TEST_F(TetMeshFiles, MissingFileIsNamed) {
  const std::string path = (dir_ / "absent.msh").string();
  const std::string message = errorOf(path);
  EXPECT_CONTAINS(message, path + ": cannot read the Gmsh .msh file: ");
  write("lonely.node", kTetgenNode0);
  EXPECT_CONTAINS(errorOf((dir_ / "lonely.node").string()), "lonely.ele: cannot read");
}

TEST_F(TetMeshFiles, UnknownExtensionIsRefused) {
  const std::string path = write("mesh.obj", "v 0 0 0\n");
  EXPECT_CONTAINS(
      errorOf(path),
      "mesh.obj: mesh file: expected extension .msh (Gmsh) or .node/.ele (TetGen), got '.obj'");
  EXPECT_CONTAINS(errorOf(write("mesh", "")), "got none");
}

TEST_F(TetMeshFiles, NodeIndexOutOfRange) {
  write("bad.node", kTetgenNode1);
  const std::string ele = write("bad.ele", "2 4 0\n1 1 2 3 4\n2 2 3 4 57\n");
  EXPECT_CONTAINS(errorOf(ele), "bad.ele: tets[1]: node index 57 out of range [1, 5] (line 3)");
}

TEST_F(TetMeshFiles, UnknownGmshNodeTag) {
  std::string text = kGmsh22;
  text.replace(text.find("20 30 40 50"), 11, "20 30 40 77");
  EXPECT_CONTAINS(errorOf(write("tag.msh", text)),
                  "tag.msh: $Elements: element 4: node tag 77 not in $Nodes (line 22)");
}

TEST_F(TetMeshFiles, TruncatedNodeList) {
  const std::string cut = kTetgenNode0.substr(0, kTetgenNode0.find("4  1 1 1"));
  write("cut.node", cut);
  write("cut.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "cut.node").string()),
                  "cut.node: nodes[4]: expected 5 points, file ends after 4 (line 6)");

  const std::string msh = kGmsh22.substr(0, kGmsh22.find("30 0 1 0"));
  EXPECT_CONTAINS(errorOf(write("cut.msh", msh)),
                  "cut.msh: $Nodes: expected 6 nodes, file ends after 3 (line 12)");
  std::string early = kGmsh41;
  early.replace(early.find("1 1 1 0.75 0.5\n"), 15, "");
  EXPECT_CONTAINS(errorOf(write("early.msh", early)),
                  "early.msh: $Nodes: block 1: expected 2 node coordinates, the section ends "
                  "after 1 (line 21)");
}

TEST_F(TetMeshFiles, ShortRecordDoesNotBorrowTheNextLine) {
  std::string text = kTetgenNode0;
  text.replace(text.find("2  0 1 0"), 8, "2  0 1");
  write("short.node", text);
  write("short.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "short.ele").string()),
                  "short.node: nodes[2]: expected z coordinate (a number), the line ends (line 5)");
}

TEST_F(TetMeshFiles, NonNumericAndNonFiniteCoordinates) {
  std::string text = kTetgenNode0;
  text.replace(text.find("1  1 0 0"), 8, "1  1 abc 0");
  write("abc.node", text);
  write("abc.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "abc.node").string()),
                  "abc.node: nodes[1]: expected y coordinate (a number), got 'abc' (line 4)");

  std::string msh = kGmsh41;
  msh.replace(msh.find("\n1 0 0\n"), 6, "\n1 nan 0");
  EXPECT_CONTAINS(errorOf(write("nan.msh", msh)),
                  "nan.msh: $Nodes: node 2: expected a finite y coordinate, got 'nan' (line 15)");
  msh = kGmsh22;
  msh.replace(msh.find("50 1 1 1"), 8, "50 1 1e999 1");
  EXPECT_CONTAINS(errorOf(write("inf.msh", msh)), "expected a finite y coordinate, got '1e999'");
}

TEST_F(TetMeshFiles, HugeCountsAreRefusedWithoutAllocating) {
  write("huge.node", "1000000000000 3 0 0\n0 0 0 0\n");
  write("huge.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "huge.node").string()),
                  "huge.node: header: number of points 1000000000000 out of range "
                  "[0, 100000000] (line 1)");
  // A count below the bound in a tiny file fails at the file's end without reserving for it.
  std::string msh = kGmsh22;
  msh.replace(msh.find("$Nodes\n6\n"), 9, "$Nodes\n99999999\n");
  EXPECT_CONTAINS(errorOf(write("huge.msh", msh)),
                  "huge.msh: $Nodes: expected 99999999 nodes, the section ends after 6 (line 16)");
  write("huge2.node", "5 3 99999999999999999999 0\n");
  write("huge2.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "huge2.node").string()),
                  "huge2.node: header: expected attribute count (an integer), got "
                  "'99999999999999999999', out of range (line 1)");
}

TEST_F(TetMeshFiles, WrongCountsAreErrors) {
  write("more.node", kTetgenNode0);
  write("more.ele", "1 4 0\n0 0 1 2 3\n1 1 2 3 4\n");
  EXPECT_CONTAINS(errorOf((dir_ / "more.ele").string()),
                  "more.ele: header: expected 1 tets, the file has more (line 3)");
  std::string msh = kGmsh41;
  msh.replace(msh.find("2 3 1 3"), 7, "2 4 1 4");
  EXPECT_CONTAINS(
      errorOf(write("count.msh", msh)),
      "count.msh: $Elements: expected 4 elements (header), the blocks hold 3 (line 29)");
}

TEST_F(TetMeshFiles, PointsMustBeNumberedConsecutively) {
  std::string text = kTetgenNode1;
  text.replace(text.find("4  0 0 1"), 8, "7  0 0 1");
  write("gap.node", text);
  write("gap.ele", kTetgenEle1);
  EXPECT_CONTAINS(errorOf((dir_ / "gap.node").string()),
                  "gap.node: nodes[3]: expected point index 4 (consecutive numbering), got 7 "
                  "(line 6)");
}

TEST_F(TetMeshFiles, DimensionOtherThanThreeIsRefused) {
  write("flat.node", "3 2 0 0\n0 0 0\n1 1 0\n2 0 1\n");
  write("flat.ele", kTetgenEle0);
  EXPECT_CONTAINS(
      errorOf((dir_ / "flat.ele").string()),
      "flat.node: header: expected at least 4 points, got 3 (0 points refers to a .poly "
      "file, which is not supported) (line 1)");
  write("dim2.node", "4 2 0 0\n0 0 0\n1 1 0\n2 0 1\n3 1 1\n");
  write("dim2.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "dim2.ele").string()),
                  "dim2.node: header: expected dimension 3, got 2 (line 1)");
}

TEST_F(TetMeshFiles, BinaryAndUnknownGmshVersionsAreRefused) {
  std::string binary = kGmsh41;
  binary.replace(binary.find("4.1 0 8"), 7, "4.1 1 8");
  binary += std::string("\x01\x00\x00\x00\xff", 5);
  EXPECT_CONTAINS(errorOf(write("binary.msh", binary)),
                  "binary.msh: $MeshFormat: expected file type 0 (ASCII), got 1: binary MSH files "
                  "are not supported, export as ASCII (line 2)");
  std::string v3 = kGmsh22;
  v3.replace(v3.find("2.2 0 8"), 7, "3.0 0 8");
  EXPECT_CONTAINS(errorOf(write("v3.msh", v3)),
                  "v3.msh: $MeshFormat: expected version 2.2 or 4.1, got '3.0' (line 2)");
  EXPECT_CONTAINS(errorOf(write("text.msh", "solid cube\n")),
                  "text.msh: $MeshFormat: expected $MeshFormat first (a Gmsh MSH file), got "
                  "'solid' (line 1)");
}

TEST_F(TetMeshFiles, MeshWithoutTetsIsAnError) {
  std::string msh = kGmsh22;
  msh.replace(msh.find("3 4 2 1 1"), 9, "3 11 2 1 1");
  msh.replace(msh.find("4 4 2 1 1"), 9, "4 2 2 1 1");
  EXPECT_CONTAINS(errorOf(write("surface.msh", msh)),
                  "surface.msh: $Elements: expected 4-node tetrahedra (element type 4), found "
                  "none (10-node tetrahedra are not supported) (line 23)");
}

TEST_F(TetMeshFiles, DegenerateTetIsAnError) {
  write("flat.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n");
  write("flat.ele", "1 4 0\n0 0 1 2 3\n");
  EXPECT_CONTAINS(
      errorOf((dir_ / "flat.ele").string()),
      "flat.ele: tets[0]: degenerate (6V = 0), expected |6V| >= 2.83e-12 (1e-12 times the "
      "longest edge cubed)");
  write("rep.node", kTetgenNode0);
  write("rep.ele", "2 4 0\n0 0 1 2 2\n1 1 2 3 4\n");
  EXPECT_CONTAINS(
      errorOf((dir_ / "rep.ele").string()),
      "rep.ele: tets[0]: node 2 repeated in (0, 1, 2, 2), expected four distinct nodes");
}

TEST_F(TetMeshFiles, UnusedTetgenNodeIsAnError) {
  std::string node = kTetgenNode0;
  node.replace(node.find("5 3 0 0"), 7, "6 3 0 0");
  write("extra.node", node + "5 9 9 9\n");
  write("extra.ele", kTetgenEle0);
  EXPECT_CONTAINS(errorOf((dir_ / "extra.ele").string()),
                  "extra.node: nodes[5]: unused, expected every node to belong to a tet");
}

TEST_F(TetMeshFiles, TetgenStructureErrorsAreNamed) {
  write("empty.node", "");
  write("empty.ele", kTetgenEle0);
  EXPECT_EQ(errorOf((dir_ / "empty.ele").string()),
            (dir_ / "empty.node").string() +
                ": header: expected '<#points> 3 <#attributes> <#markers>', got none");
  write("base.node", "4 3 0 0\n2 0 0 0\n3 1 0 0\n4 0 1 0\n5 0 0 1\n");
  write("base.ele", "1 4 0\n0 2 3 4 5\n");
  EXPECT_CONTAINS(errorOf((dir_ / "base.ele").string()),
                  "base.node: nodes[0]: expected the first point index to be 0 or 1, got 2 "
                  "(line 2)");
  write("six.node", kTetgenNode0);
  write("six.ele", "1 6 0\n0 0 1 2 3 4 0\n");
  EXPECT_CONTAINS(errorOf((dir_ / "six.ele").string()),
                  "six.ele: header: expected 4 or 10 nodes per tet, got 6 (line 1)");
  write("none.node", kTetgenNode0);
  write("none.ele", "0 4 0\n");
  EXPECT_CONTAINS(errorOf((dir_ / "none.ele").string()),
                  "none.ele: tets: empty, expected at least one tet");
}

TEST_F(TetMeshFiles, GmshStructureErrorsAreNamed) {
  EXPECT_EQ(errorOf(write("empty.msh", "")),
            (dir_ / "empty.msh").string() +
                ": $MeshFormat: expected $MeshFormat first, the file is empty");
  std::string text = kGmsh22;
  text.replace(text.find("99 5 5 5"), 8, "20 5 5 5");
  EXPECT_CONTAINS(errorOf(write("dup.msh", text)),
                  "dup.msh: $Nodes: node 20: expected unique node tags, got node tag 20 twice "
                  "(line 12)");
  EXPECT_CONTAINS(errorOf(write("noelements.msh", kGmsh22.substr(0, kGmsh22.find("$Elements")))),
                  "noelements.msh: $Elements: expected an $Elements section, file ends (line 16)");
  EXPECT_CONTAINS(errorOf(write("twice.msh", kGmsh22 + "$Nodes\n0\n$EndNodes\n")),
                  "twice.msh: $Nodes: expected one $Nodes section, got a second (line 24)");
  text = kGmsh22;
  text.replace(text.find("$EndNodes"), 9, "$EndNode");
  EXPECT_CONTAINS(errorOf(write("end.msh", text)),
                  "end.msh: $Nodes: expected $EndNodes (record count as in the header), got "
                  "'$EndNode' (line 16)");
  EXPECT_CONTAINS(errorOf(write("junk.msh", kGmsh22 + "junk\n")),
                  "junk.msh: file: expected a section such as $Nodes, got 'junk' (line 24)");
  EXPECT_CONTAINS(errorOf(write("open.msh", kGmsh22 + "$Comments\nhello\n")),
                  "open.msh: $Comments: expected $EndComments, file ends (line 25)");
  text = kGmsh41;
  text.replace(text.find("2 5 1 5"), 7, "2 4 1 5");
  EXPECT_CONTAINS(errorOf(write("blocks.msh", text)),
                  "blocks.msh: $Nodes: block 1: expected 4 nodes in all (header), the blocks hold "
                  "more (line 17)");
}

// Every prefix of valid files either reads or is a SceneError: truncation never crashes or hangs.
TEST_F(TetMeshFiles, EveryTruncationIsReadOrRefused) {
  for (const std::string* text : {&kGmsh22, &kGmsh41}) {
    for (std::size_t n = 0; n <= text->size(); ++n) {
      const std::string path = write("prefix.msh", text->substr(0, n));
      try {
        loadTetMesh(path);
      } catch (const SceneError& e) {
        EXPECT_CONTAINS(std::string(e.what()), path);
      }
    }
  }
  write("prefix.ele", kTetgenEle0);
  for (std::size_t n = 0; n <= kTetgenNode0.size(); ++n) {
    write("prefix.node", kTetgenNode0.substr(0, n));
    try {
      loadTetMesh((dir_ / "prefix.node").string());
    } catch (const SceneError& e) {
      EXPECT_CONTAINS(std::string(e.what()), "prefix.");
    }
  }
}

}  // namespace
}  // namespace subsim
