#include "subsim/io/yaml_text_checks.hpp"

#include <string_view>

#include "subsim/io/utf8_check.hpp"

namespace subsim::yaml {

// yaml-cpp 0.7 loops for ever, allocating, when a root that is not a block collection (a scalar,
// a flow collection, a tag or anchor) is followed by a ',' token: ",x", "'a' ,", "{a: 1} ,",
// "a #c\n," (found by fuzz/fuzz_scene_file).  A scene's root is a block map anyway, so the text
// is checked before yaml-cpp sees it: the first content must be a block map key or a block
// sequence (which yaml-cpp rejects with its own message), and one document only, since a second
// one can start with the same ','.  Returns without a verdict on anything else.
void checkYamlRoot(const Reader& reader, const std::string& text) {
  // YAML is printable Unicode text: control characters (NUL among them) and malformed UTF-8 are
  // refused here, since yaml-cpp reads a NUL inside a plain scalar as text and then loops on a
  // comma after it (found by fuzz/fuzz_scene_file).
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
      throw SceneError(reader.source() + ": line " + std::to_string(lineOfOffset(text, i)) +
                       ": expected YAML text, got the control character " + hexByte(text[i]) +
                       " (a binary file?)");
    }
  }
  if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos) {
    throw SceneError(reader.source() + ": line " + std::to_string(lineOfOffset(text, bad)) +
                     ": expected UTF-8 text, got the byte " + hexByte(text[bad]) +
                     " (save the file as UTF-8)");
  }
  std::size_t line_start = 0;
  int line_number = 0, documents = 0;
  bool content_seen = false, document_ended = false;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    std::string line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const bool marker = (line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0) &&
                        (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    std::size_t column_offset = 0;  // columns cut from the line (a marker's)
    if (marker) {
      column_offset = 3;
      // "---" after content starts a document; "..." ends one, and any content after it does.
      if (content_seen && line[0] == '-') ++documents;
      document_ended = content_seen && line[0] == '.';
      line = line.substr(3);
    } else if (!content_seen && !line.empty() && line[0] == '%') {
      continue;  // a directive
    }
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (content_seen) {
      if (document_ended) {
        ++documents;
        document_ended = false;
      }
      continue;
    }
    content_seen = true;
    const char c = line[first];
    const bool sequence = c == '-' && (first + 1 == line.size() || line[first + 1] == ' ');
    // A block map key: plain or quoted text, then ':' and a space or the line's end.
    std::size_t key_end = first;
    if (c == '\'' || c == '"') {
      key_end = line.find(c, first + 1);
      while (c == '\'' && key_end != std::string::npos && key_end + 1 < line.size() &&
             line[key_end + 1] == '\'')
        key_end = line.find(c, key_end + 2);  // '' is a quote inside single quotes
      if (key_end != std::string::npos) key_end = line.find_first_not_of(" \t", key_end + 1);
    } else if (std::string_view(",[]{}#&*!|>%@`?:-").find(c) == std::string_view::npos) {
      key_end = line.find(':', first);
      while (key_end != std::string::npos && key_end + 1 < line.size() &&
             line[key_end + 1] != ' ' && line[key_end + 1] != '\t')
        key_end = line.find(':', key_end + 1);
    } else {
      key_end = std::string::npos;
    }
    const bool key =
        key_end != std::string::npos && key_end < line.size() && line[key_end] == ':' &&
        (key_end + 1 == line.size() || line[key_end + 1] == ' ' || line[key_end + 1] == '\t');
    if (!sequence && !key)
      throw SceneError(reader.source() +
                       ": top level: expected a map of scene settings with a bodies list (see "
                       "docs/scene-format.md) as KEY: VALUE lines, got '" +
                       line.substr(first, 40) + "' (line " + std::to_string(line_number) +
                       ", column " + std::to_string(first + column_offset + 1) + ")");
  }
  if (documents > 0)
    throw SceneError(reader.source() + ": top level: expected a single YAML document, got " +
                     std::to_string(documents + 1) + " (separated by ---)");
}

// The other form of the same yaml-cpp loop: a ',' in block context where a node starts or right
// after one ends ("key: value\n   , other:" hung as well as a root "'a' ,").  Outside flow
// collections YAML allows a comma only inside a scalar, so such a comma is refused.  A small
// scanner tells node starts (a line's start, after ': ', '- ', '? ', after a tag or an anchor;
// in a flow collection after '[', '{', ',' and ':') from the inside of plain scalars, where '[',
// quotes and commas are ordinary text ("q' [[," is one scalar).
void checkBlockCommas(const Reader& reader, const std::string& text) {
  int depth = 0, line = 1, column = 0;
  char quote = 0;
  bool comment = false;
  bool node_start = true;   // a node may start at the next non-blank character
  bool after_node = false;  // a quoted scalar or flow collection has just ended
  bool in_property = false, in_plain = false;
  char previous = '\n';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      comment = false;
      if (quote == 0) {
        node_start = true;
        after_node = in_property = in_plain = false;
        previous = '\n';
      }
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;  // an escaped character
        ++column;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' inside single quotes
          ++column;
        } else {
          quote = 0;
          after_node = true;
        }
      }
      previous = c;
      continue;
    }
    const bool blank = c == ' ' || c == '\t';
    if (blank) {
      in_property = false;  // a tag or anchor ended: the node itself may follow
      previous = c;
      continue;
    }
    // A comment starts after a blank, and (as yaml-cpp reads it) right after a closing quote.
    if (c == '#' && (previous == ' ' || previous == '\t' || previous == '\n' ||
                     (after_node && (previous == '"' || previous == '\'')))) {
      comment = true;
      continue;
    }
    const bool next_blank =
        i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' || text[i + 1] == '\n';
    if (c == ',' && depth == 0 && (node_start || after_node))
      throw SceneError(reader.source() + ": line " + std::to_string(line) + ", column " +
                       std::to_string(column) +
                       ": YAML syntax error: a ',' outside [ ] or { } (write lists as [a, b], "
                       "or quote text that holds a comma)");
    if (in_plain && depth > 0 && (c == ',' || c == ']' || c == '}' || c == ':')) in_plain = false;
    if (!in_plain && !in_property) {
      if (node_start && (c == '\'' || c == '"')) {
        quote = c;
        node_start = false;
      } else if (node_start && (c == '[' || c == '{')) {
        ++depth;  // node_start stays: the collection's first entry may follow
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
        node_start = false;
        after_node = depth == 0;
      } else if (depth > 0 && (c == ',' || c == ':')) {
        node_start = true;
      } else if (depth == 0 && (c == ':' || c == '-' || c == '?') && next_blank) {
        node_start = true;
        after_node = false;
      } else if (node_start && (c == '!' || c == '&')) {
        in_property = true;  // node_start stays for the node after the property
      } else if (!after_node) {
        in_plain = true;  // a plain scalar or an alias
        node_start = false;
      }  // else text glued to a quoted scalar or collection ("a"b): still just after that node
    } else if (in_plain && depth == 0 && c == ':' && next_blank) {
      in_plain = false;  // "key: " ends the key; the value may follow
      node_start = true;
    }
    previous = c;
  }
}

}  // namespace subsim::yaml
