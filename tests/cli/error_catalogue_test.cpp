// The error catalogue, docs/errors.md, as a test: every entry with a case runs it through the
// `subsim` command line (its files written to a fresh directory first) and must exit with the
// documented code and print the documented message on stderr; an entry that the command line
// cannot reach names the unit test that checks it, and that file must hold the message.  An
// entry the parser cannot read fails the test, and so does any entry left unchecked.
//
// The format (docs/errors.md, "Reading this catalogue"): a `## ` group holds `### ` entries; an
// entry has bullets `- message: `...``, `- fix: ...`, then either `- case: `subsim ...`` with
// `- exit: 2|3` (optional `- setup: `...`` before it, and fenced blocks "```lang file=NAME" for
// its input files) or `- test: `tests/...``.  In a message, the words listed in the catalogue's
// placeholder table stand for text that varies; everything else must appear as written.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "test_files.hpp"

namespace {

using ::subsim::test::readFile;

namespace fs = std::filesystem;

struct InputFile {
  std::string name;
  std::string content;
};

struct Entry {
  std::string group;  // the `## ` heading
  std::string title;  // the `### ` heading
  int line = 0;       // of the heading
  std::string message;
  std::string fix;
  std::optional<int> exit;
  std::vector<std::string> setup;
  std::string command;  // `case`
  std::string test;     // a unit test file, relative to the source directory
  std::vector<InputFile> files;
};

struct Catalogue {
  std::set<std::string> placeholders;
  std::vector<Entry> entries;
  std::vector<std::string> errors;  // malformed entries, "line N: what"
};

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// The text of an inline code span (`x`, or ``x`` when x holds a backtick); nullopt otherwise.
std::optional<std::string> codeSpan(const std::string& value) {
  std::size_t ticks = 0;
  while (ticks < value.size() && value[ticks] == '`') ++ticks;
  if (ticks == 0 || value.size() < 2 * ticks + 1) return std::nullopt;
  const std::string fence(ticks, '`');
  if (value.compare(value.size() - ticks, ticks, fence) != 0) return std::nullopt;
  std::string inner = value.substr(ticks, value.size() - 2 * ticks);
  if (inner.find(fence) != std::string::npos) return std::nullopt;
  // Markdown drops one space on each side, which lets a span start or end with a backtick.
  if (ticks > 1 && inner.size() >= 2 && inner.front() == ' ' && inner.back() == ' ')
    inner = inner.substr(1, inner.size() - 2);
  if (inner.empty()) return std::nullopt;
  return inner;
}

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// A message form split at its placeholders: literal pieces, and whether a placeholder comes
/// before the first and after the last (between two pieces there always is one).
struct Form {
  std::vector<std::string> pieces;
  bool leading = false;
  bool trailing = false;
};

Form splitForm(const std::string& message, const std::set<std::string>& placeholders) {
  Form form;
  std::string piece;
  bool after_placeholder = false;
  for (std::size_t i = 0; i < message.size();) {
    std::size_t end = i;
    while (end < message.size() &&
           (std::isupper(static_cast<unsigned char>(message[end])) ||
            std::isdigit(static_cast<unsigned char>(message[end])) || message[end] == '_'))
      ++end;
    const bool bounded = std::isupper(static_cast<unsigned char>(message[i])) &&
                         (i == 0 || !isWordChar(message[i - 1])) &&
                         (end == message.size() || !isWordChar(message[end]));
    if (bounded && placeholders.count(message.substr(i, end - i)) != 0) {
      if (piece.empty() && form.pieces.empty()) form.leading = true;
      if (!piece.empty()) form.pieces.push_back(piece);
      piece.clear();
      after_placeholder = true;
      i = end;
      continue;
    }
    piece += message[i++];
    after_placeholder = false;
  }
  if (!piece.empty()) form.pieces.push_back(piece);
  form.trailing = after_placeholder;
  return form;
}

/// Whether pieces[k..] occur in `text` in order from `from`, each gap (a placeholder) holding 1 to
/// `max_gap` characters; backtracks over every occurrence, since a bounded gap makes the first
/// occurrence not always the right one.
bool matchFrom(const std::string& text, const Form& form, std::size_t k, std::size_t from,
               std::size_t max_gap) {
  if (k == form.pieces.size()) return !form.trailing || from < text.size();
  const std::string& piece = form.pieces[k];
  const bool gap_before = k > 0 || form.leading;
  std::size_t at = text.find(piece, gap_before ? from + 1 : from);
  for (; at != std::string::npos; at = text.find(piece, at + 1)) {
    if (k > 0 && at - from > max_gap) return false;
    if (matchFrom(text, form, k + 1, at + piece.size(), max_gap)) return true;
  }
  return false;
}

bool matches(const std::string& text, const Form& form, std::size_t max_gap) {
  return !form.pieces.empty() && matchFrom(text, form, 0, 0, max_gap);
}

/// Whether some line of `text` (a program's stderr) shows the message.
bool anyLineMatches(const std::string& text, const Form& form) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (matches(line, form, std::string::npos)) return true;
  return false;
}

/// C++ source as one line with adjacent string literals joined and \" and \\ unescaped, so that a
/// message split over several literals, or around a variable, reads as the text it checks.
std::string normalisedSource(const std::string& source) {
  std::string joined;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '"') {
      std::size_t j = i + 1;
      while (j < source.size() && std::isspace(static_cast<unsigned char>(source[j]))) ++j;
      if (j < source.size() && j > i + 1 && source[j] == '"' && i > 0 && source[i - 1] != '\\') {
        i = j;  // "abc"  "def" -> "abcdef"
        continue;
      }
    }
    joined += source[i];
  }
  std::string out;
  bool space = false;
  for (std::size_t i = 0; i < joined.size(); ++i) {
    char c = joined[i];
    if (c == '\\' && i + 1 < joined.size() && (joined[i + 1] == '"' || joined[i + 1] == '\\'))
      c = joined[++i];
    else if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

const std::set<std::string> kKeys = {"message", "fix", "exit", "setup", "case", "test"};

Catalogue parseCatalogue(const std::string& text) {
  Catalogue cat;
  std::istringstream in(text);
  std::string line;
  std::string group;
  Entry* entry = nullptr;
  std::string* continued = nullptr;  // the bullet value a continuation line extends
  std::optional<InputFile> block;    // inside a fenced block of the current entry
  std::string foreign_fence;         // inside a fenced block outside any entry: its fence
  std::set<std::string> titles;
  int number = 0;
  const auto fail = [&cat, &number](const std::string& what) {
    cat.errors.push_back("line " + std::to_string(number) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (block) {
      if (trim(line) == "```") {
        entry->files.push_back(*block);
        block.reset();
      } else {
        block->content += line + "\n";
      }
      continue;
    }
    if (!foreign_fence.empty()) {
      // A longer fence (````) can show an entry, fenced blocks included.
      if (trim(line) == foreign_fence) foreign_fence.clear();
      continue;
    }
    if (startsWith(line, "```")) {
      continued = nullptr;
      if (entry == nullptr) {
        foreign_fence = line.substr(0, line.find_first_not_of('`'));
        continue;
      }
      const std::size_t at = line.find(" file=");
      const std::string name = at == std::string::npos ? "" : trim(line.substr(at + 6));
      if (name.empty() || name.find('/') != std::string::npos ||
          name.find(' ') != std::string::npos)
        fail("a fenced block in an entry needs \"file=NAME\" (a plain file name)");
      block = InputFile{name.empty() ? "unnamed" : name, ""};
      continue;
    }
    if (startsWith(line, "## ")) {
      group = trim(line.substr(3));
      entry = nullptr;
      continued = nullptr;
      continue;
    }
    if (startsWith(line, "### ")) {
      if (group.empty()) fail("an entry before any group (## heading)");
      Entry e;
      e.group = group;
      e.title = trim(line.substr(4));
      e.line = number;
      cat.entries.push_back(std::move(e));
      entry = &cat.entries.back();
      continued = nullptr;
      if (!titles.insert(entry->title).second) fail("a second entry titled '" + entry->title + "'");
      continue;
    }
    if (startsWith(line, "# ")) {  // the title
      group.clear();
      entry = nullptr;
      continued = nullptr;
      continue;
    }
    if (startsWith(line, "#")) {
      fail("only #, ## and ### headings are expected");
      continue;
    }
    if (entry == nullptr) {
      // The placeholder table: "| `NAME`, `OTHER` | meaning |", upper-case names only.
      if (startsWith(line, "| `")) {
        const std::string cell = line.substr(1, line.find('|', 1) - 1);
        for (std::size_t at = cell.find('`'); at != std::string::npos;) {
          const std::size_t end = cell.find('`', at + 1);
          if (end == std::string::npos) break;
          const std::string name = cell.substr(at + 1, end - at - 1);
          bool upper = !name.empty();
          for (char c : name)
            upper = upper && (std::isupper(static_cast<unsigned char>(c)) || c == '_');
          if (upper) cat.placeholders.insert(name);
          at = cell.find('`', end + 1);
        }
      }
      continue;
    }
    if (startsWith(line, "  ") && !trim(line).empty() && continued != nullptr) {
      *continued += " " + trim(line);
      continue;
    }
    continued = nullptr;
    if (!startsWith(line, "- ")) continue;  // prose
    const std::size_t colon = line.find(':');
    const std::string key = colon == std::string::npos ? "" : line.substr(2, colon - 2);
    bool word = !key.empty();
    for (char c : key) word = word && std::islower(static_cast<unsigned char>(c));
    if (!word) continue;  // a prose bullet
    if (kKeys.count(key) == 0) {
      fail("unknown key '" + key + "' in entry '" + entry->title + "'");
      continue;
    }
    const std::string value = trim(line.substr(colon + 1));
    const auto once = [&](std::string& field) {
      if (!field.empty()) fail("a second '" + key + "' in entry '" + entry->title + "'");
      field = value;
      continued = &field;
    };
    const auto code = [&](std::string& field) {
      const std::optional<std::string> inner = codeSpan(value);
      if (!inner) fail("'" + key + "' of entry '" + entry->title + "' is not one `code span`");
      if (!field.empty()) fail("a second '" + key + "' in entry '" + entry->title + "'");
      field = inner.value_or("?");
    };
    if (key == "message") {
      code(entry->message);
    } else if (key == "fix") {
      once(entry->fix);
    } else if (key == "exit") {
      if (entry->exit) fail("a second 'exit' in entry '" + entry->title + "'");
      if (value == "2" || value == "3")
        entry->exit = value == "2" ? 2 : 3;
      else
        fail("'exit' of entry '" + entry->title + "' is not 2 or 3");
    } else if (key == "setup") {
      std::string command;
      code(command);
      entry->setup.push_back(command);
    } else if (key == "case") {
      code(entry->command);
    } else {
      code(entry->test);
    }
  }
  if (block) fail("a fenced block that does not end");
  for (const Entry& e : cat.entries) {
    const std::string where = "entry '" + e.title + "' (line " + std::to_string(e.line) + ")";
    const auto bad = [&cat, &where](const std::string& what) {
      cat.errors.push_back(where + ": " + what);
    };
    if (e.message.empty()) bad("no message");
    if (e.fix.empty()) bad("no fix");
    if (e.command.empty() == e.test.empty()) bad("needs exactly one of 'case' and 'test'");
    if (!e.command.empty() && e.command != "subsim" && !startsWith(e.command, "subsim "))
      bad("a case runs `subsim ...`");
    if (!e.command.empty() && !e.exit) bad("a case needs its 'exit' code");
    if (e.command.empty() && (!e.setup.empty() || !e.files.empty()))
      bad("setup and files belong to a case");
    if (!e.test.empty() &&
        (!startsWith(e.test, "tests/") || e.test.find("..") != std::string::npos))
      bad("a test is a file under tests/");
    // Some text must be fixed, or any output would match.
    std::size_t longest = 0;
    for (const std::string& piece : splitForm(e.message, cat.placeholders).pieces)
      longest = std::max(longest, piece.size());
    if (!e.message.empty() && longest < 8) bad("the message has no literal text of 8 characters");
  }
  return cat;
}

const std::string kCataloguePath = std::string(SUBSIM_SOURCE_DIR) + "/docs/errors.md";

struct Outcome {
  int exit_code = -1;
  std::string err;
};

/// Runs `command` with /bin/sh in `dir` (in a subshell, so that its own redirections hold), its
/// leading `subsim` replaced by the binary under test;
/// `timeout` ends a case that hangs (exit 124, which no entry expects).
Outcome runIn(const fs::path& dir, const std::string& command) {
  std::string line = command;
  if (line == "subsim" || startsWith(line, "subsim "))
    line = "timeout 300 " + std::string(SUBSIM_CLI) + line.substr(6);
  const std::string err = (dir / ".stderr").string();
  const std::string shell =
      "cd '" + dir.string() + "' && (" + line + ") >/dev/null 2>'" + err + "' </dev/null";
  Outcome r;
  const int status = std::system(shell.c_str());
  r.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = readFile(err);
  return r;
}

TEST(ErrorCatalogue, ParserAcceptsAWellFormedEntry) {
  const Catalogue cat = parseCatalogue(
      "| `FILE` | a file |\n"
      "## Group\n"
      "### An entry\n"
      "Prose.\n"
      "- message: `FILE: bodies: expected a list`\n"
      "- fix: Give a list;\n"
      "  continued.\n"
      "- setup: `true`\n"
      "- case: `subsim run bad.yaml`\n"
      "- exit: 2\n"
      "```yaml file=bad.yaml\n"
      "bodies: 3\n"
      "```\n"
      "### Another\n"
      "- message: ``it says `x` here``\n"
      "- fix: None.\n"
      "- test: `tests/cli/cli_test.cpp`\n");
  EXPECT_TRUE(cat.errors.empty()) << cat.errors.front();
  ASSERT_EQ(cat.entries.size(), 2u);
  const Entry& e = cat.entries[0];
  EXPECT_EQ(e.message, "FILE: bodies: expected a list");
  EXPECT_EQ(e.fix, "Give a list; continued.");
  EXPECT_EQ(e.exit, 2);
  ASSERT_EQ(e.files.size(), 1u);
  EXPECT_EQ(e.files[0].name, "bad.yaml");
  EXPECT_EQ(e.files[0].content, "bodies: 3\n");
  EXPECT_EQ(cat.entries[1].message, "it says `x` here");
}

TEST(ErrorCatalogue, ParserRefusesMalformedEntries) {
  const std::string head = "| `FILE` | a file |\n## Group\n### E\n";
  const std::string message = "- message: `FILE: something went wrong`\n";
  const std::string fix = "- fix: Do this.\n";
  const std::string test = "- test: `tests/cli/cli_test.cpp`\n";
  for (const std::string& text : {
           head + fix + test,                                                    // no message
           head + message + test,                                                // no fix
           head + message + fix,                                                 // no case or test
           head + message + fix + test + "- case: `subsim run x`\n- exit: 2\n",  // both
           head + message + fix + "- case: `subsim run x`\n",                    // no exit
           head + message + fix + "- case: `subsim run x`\n- exit: 1\n",         // bad exit
           head + message + fix + "- case: `ls`\n- exit: 2\n",                   // not subsim
           head + message + fix + "- case: subsim run x\n- exit: 2\n",           // no code span
           head + message + fix + test + "- cause: x\n",                         // unknown key
           head + message + message + fix + test,                                // two messages
           head + "- message: `FILE: x`\n" + fix + test,                         // no literal text
           head + message + fix + test + "```yaml\nx\n```\n",              // block without file
           head + message + fix + test + "```yaml file=a.yaml\nx\n```\n",  // file, no case
           head + message + fix + "- case: `subsim x`\n- exit: 2\n```x file=a\n",  // open block
           head + message + fix + "- test: `/etc/passwd`\n",                // not under tests/
           head + message + fix + test + "### E\n" + message + fix + test,  // same title twice
           "### E\n" + message + fix + test,                                // no group
       }) {
    EXPECT_FALSE(parseCatalogue(text).errors.empty()) << text;
  }
}

TEST(ErrorCatalogue, MessagesMatchWithPlaceholders) {
  const std::set<std::string> p = {"FILE", "COUNT", "NAME"};
  const Form form = splitForm("FILE: expected COUNT items, got NAME's", p);
  ASSERT_EQ(form.pieces.size(), 3u);
  EXPECT_TRUE(form.leading);
  EXPECT_FALSE(form.trailing);
  EXPECT_TRUE(matches("subsim: a.yaml: expected 3 items, got b's", form, 100));
  EXPECT_FALSE(matches("subsim: a.yaml: expected  items, got b's", form, 100));  // empty COUNT
  EXPECT_FALSE(matches(": expected 3 items, got b's", form, 100));               // empty FILE
  EXPECT_FALSE(matches("a.yaml: expected 3 things, got b's", form, 100));
  // Only whole words in the table are placeholders.
  EXPECT_EQ(splitForm("FILES and HDF5 and FILE_X", p).pieces.size(), 1u);
  // A later occurrence of a piece is found when the first leaves too long a gap.
  EXPECT_TRUE(matches("x: expected 1 y: expected 2 items, got z's", form, 3));
  EXPECT_EQ(normalisedSource("f(\"a \"\n    \"b\\\"c\" + x);"), "f(\"a b\"c\" + x);");
}

TEST(ErrorCatalogue, IsWellFormed) {
  const std::string text = readFile(kCataloguePath);
  ASSERT_FALSE(text.empty()) << kCataloguePath;
  const Catalogue cat = parseCatalogue(text);
  for (const std::string& e : cat.errors) ADD_FAILURE() << kCataloguePath << ": " << e;
  EXPECT_FALSE(cat.placeholders.empty());
  EXPECT_GE(cat.entries.size(), 100u);
}

TEST(ErrorCatalogue, EveryEntryFailsAsDocumented) {
  const Catalogue cat = parseCatalogue(readFile(kCataloguePath));
  ASSERT_TRUE(cat.errors.empty()) << cat.errors.front();
  const fs::path root =
      fs::path(::testing::TempDir()) / ("subsim_error_catalogue_" + std::to_string(getpid()));
  int by_run = 0, by_test = 0;
  std::map<std::string, std::string> sources;  // normalised unit test files
  for (std::size_t i = 0; i < cat.entries.size(); ++i) {
    const Entry& e = cat.entries[i];
    SCOPED_TRACE("docs/errors.md:" + std::to_string(e.line) + ": " + e.group + " / " + e.title);
    const Form form = splitForm(e.message, cat.placeholders);
    if (!e.test.empty()) {
      auto it = sources.find(e.test);
      if (it == sources.end()) {
        const std::string source = readFile(std::string(SUBSIM_SOURCE_DIR) + "/" + e.test);
        ASSERT_FALSE(source.empty()) << e.test << " is missing or empty";
        it = sources.emplace(e.test, normalisedSource(source)).first;
      }
      // Within one expression: a placeholder stands for a value or a variable, never for pages.
      EXPECT_TRUE(matches(it->second, form, 200))
          << e.test << " does not check the message `" << e.message << "`";
      ++by_test;
      continue;
    }
    const fs::path dir = root / std::to_string(i);
    fs::create_directories(dir);
    for (const InputFile& f : e.files) std::ofstream(dir / f.name, std::ios::binary) << f.content;
    bool ready = true;
    for (const std::string& step : e.setup) {
      const Outcome s = runIn(dir, step);
      EXPECT_EQ(s.exit_code, 0) << "setup `" << step << "` failed: " << s.err;
      ready = ready && s.exit_code == 0;
    }
    if (ready) {
      const Outcome r = runIn(dir, e.command);
      EXPECT_EQ(r.exit_code, *e.exit) << "`" << e.command << "` printed:\n" << r.err;
      EXPECT_TRUE(anyLineMatches(r.err, form))
          << "`" << e.command << "` did not print `" << e.message << "`; it printed:\n"
          << r.err;
      ++by_run;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  // No entry may be skipped: each was run or found in its unit test.
  EXPECT_EQ(by_run + by_test, static_cast<int>(cat.entries.size()));
  EXPECT_GE(by_run + by_test, static_cast<int>(cat.entries.size()));
  RecordProperty("entries", static_cast<int>(cat.entries.size()));
  RecordProperty("checked_by_run", by_run);
  RecordProperty("checked_by_unit_test", by_test);
  std::cout << cat.entries.size() << " catalogue entries: " << by_run
            << " checked through the command line, " << by_test << " by their unit tests\n";
}

}  // namespace
