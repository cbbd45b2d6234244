#pragma once
// Typed reading of YAML input with messages that name the file, the field and what was expected:
// "FILE: FIELD.PATH: expected WHAT, got VALUE (line L, column C)".  Generic: nothing here knows
// what a scene is; the scene loader (scene_file.cpp and the scene_*.cpp files beside it) builds
// the Model with it.  Errors throw SceneError (scene_file.hpp).
//
// INTERNAL: this header includes <yaml-cpp/yaml.h>, a private dependency of the library.  Include
// it from the library's .cpp files only; it is not installed.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "subsim/io/scene_file.hpp"
#include "subsim/io/shown_text.hpp"
#include "subsim/math/types.hpp"

namespace subsim::yaml {

using YAML::Node;
using Keys = std::vector<std::string_view>;

// Further than this from unit length a quaternion is a typo, not rounding, so it is refused
// rather than silently normalised into a different orientation.
constexpr double kUnitQuaternionTolerance = 1e-6;

/// "parent.key" ("key" at the top level).
std::string keyPath(const std::string& parent, std::string_view key);
/// "parent[i]".
std::string indexPath(const std::string& parent, std::size_t i);
/// "a, b, c".
std::string joined(const Keys& keys);

/// yaml-cpp tags quoted scalars "!" and plain ones "?": "1" in quotes is text, not a number.
bool isQuoted(const Node& n);

/// What a node is, for "got ...".  Never emits the node: an alias can make it refer to itself
/// (&a [*a]) and emitting would then never end.
std::string describe(const Node& n);

enum class ParsedNumber { Ok, NotANumber, OutOfRange };

/// YAML 1.2 core-schema floats, whatever the global locale; overflow is reported, not clamped.
ParsedNumber parseDouble(std::string_view s, double& out);

/// Decimal, or hexadecimal with 0x (convenient for collision bit masks).
bool parseInteger(std::string_view s, long long& out);

enum class Range { Any, NonNegative, Positive };

bool inRange(double v, Range range);

// Builds the messages about fields, so that all of them share the "FILE: PATH: expected ..., got
// ..." shape and carry the line and column of the offending node.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& path, const std::string& message,
                         const Node* where = nullptr) const {
    std::string text =
        source_ + ": " + (path.empty() ? std::string("top level") : path) + ": " + message;
    if (where != nullptr && where->IsDefined()) {
      const YAML::Mark mark = where->Mark();
      if (!mark.is_null())
        text += " (line " + std::to_string(mark.line + 1) + ", column " +
                std::to_string(mark.column + 1) + ")";
    }
    throw SceneError(text);
  }

  [[noreturn]] void expected(const std::string& path, const std::string& what,
                             const Node& got) const {
    fail(path, "expected " + what + ", got " + describe(got), &got);
  }

  double number(const Node& n, const std::string& path, const std::string& what,
                Range range = Range::Any) const {
    if (!n.IsScalar() || isQuoted(n)) expected(path, what, n);
    double value = 0.0;
    switch (parseDouble(n.Scalar(), value)) {
      case ParsedNumber::Ok:
        break;
      case ParsedNumber::NotANumber:
        expected(path, what, n);
      case ParsedNumber::OutOfRange:
        fail(path, "expected " + what + " within the range of a double, got " + describe(n), &n);
    }
    if (!std::isfinite(value))
      fail(path, "expected a finite number (" + what + "), got " + describe(n), &n);
    if (!inRange(value, range)) expected(path, what, n);
    return value;
  }

  long long integer(const Node& n, const std::string& path, const std::string& what,
                    long long lowest, long long highest) const {
    long long value = 0;
    if (!n.IsScalar() || isQuoted(n) || !parseInteger(n.Scalar(), value) || value < lowest ||
        value > highest)
      expected(path, what, n);
    return value;
  }

  bool boolean(const Node& n, const std::string& path) const {
    bool value = false;
    if (!n.IsScalar() || isQuoted(n) || !YAML::convert<bool>::decode(n, value))
      expected(path, "true or false", n);
    return value;
  }

  std::string text(const Node& n, const std::string& path, const std::string& what) const {
    if (!n.IsScalar() || n.Scalar().empty()) expected(path, what, n);
    return n.Scalar();
  }

  const Node& list(const Node& n, const std::string& path, const std::string& what) const {
    if (!n.IsSequence()) expected(path, what, n);
    return n;
  }

  /// A list of exactly `count` numbers.
  DoubleBuffer numbers(const Node& n, const std::string& path, std::size_t count,
                       const std::string& what, const std::string& element_what,
                       Range range = Range::Any) const {
    if (!n.IsSequence() || n.size() != count) expected(path, what, n);
    DoubleBuffer values(count);
    for (std::size_t i = 0; i < count; ++i)
      values[i] = number(n[i], indexPath(path, i), element_what, range);
    return values;
  }

  Vec3 vec3(const Node& n, const std::string& path, const std::string& unit,
            Range range = Range::Any) const {
    const std::string element = rangeWord(range) + "number" + (unit.empty() ? "" : " in " + unit);
    const std::string what = "a list of three " + rangeWord(range) + "numbers [x, y, z]" +
                             (unit.empty() ? "" : " in " + unit);
    const DoubleBuffer v = numbers(n, path, 3, what, "a " + element, range);
    return Vec3(v[0], v[1], v[2]);
  }

  Quat quaternion(const Node& n, const std::string& path) const {
    const std::string what = "a unit quaternion [w, x, y, z]";
    const DoubleBuffer v = numbers(n, path, 4, what, "a number (quaternion component)");
    const Quat q(v[0], v[1], v[2], v[3]);
    const double norm = q.norm();
    if (!(std::abs(norm - 1.0) <= kUnitQuaternionTolerance)) {
      std::ostringstream s;
      s.precision(9);
      s << "expected " << what << " with |q| = 1 within " << kUnitQuaternionTolerance
        << " (it is not normalised for you), got |q| = " << norm;
      fail(path, s.str(), &n);
    }
    return q;
  }

 private:
  static std::string rangeWord(Range range) {
    switch (range) {
      case Range::Any:
        return "";
      case Range::NonNegative:
        return "non-negative ";
      case Range::Positive:
        return "positive ";
    }
    return "";
  }

  std::string source_;
};

/// The entries of one YAML map, checked for text keys, duplicates and unknown keys.
class Fields {
 public:
  Fields(const Reader& reader, const Node& node, std::string path, const std::string& what)
      : reader_(reader), node_(node), path_(std::move(path)) {
    if (!node.IsMap()) reader.expected(path_, what, node);
    std::unordered_set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const Node key = it->first;
      if (!key.IsScalar())
        reader.fail(path_, "expected text keys, got " + describe(key) + " as a key", &key);
      if (!seen.insert(key.Scalar()).second)
        reader.fail(keyPath(path_, key.Scalar()), "duplicate key: expected each key at most once",
                    &key);
      entries_.push_back(Entry{key.Scalar(), key, it->second});
    }
  }

  const Node& node() const { return node_; }
  std::string at(std::string_view key) const { return keyPath(path_, key); }

  /// f(name, key node, value node) for every entry, in the file's order.
  template <class F>
  void forEach(F&& f) const {
    for (const Entry& e : entries_) f(e.name, e.key, e.value);
  }

  const Node* get(std::string_view key) const {
    for (const Entry& e : entries_)
      if (e.name == key) return &e.value;
    return nullptr;
  }

  const Node& required(std::string_view key, const std::string& what) const {
    const Node* n = get(key);
    if (n == nullptr) reader_.fail(at(key), "missing, expected " + what, &node_);
    return *n;
  }

  /// `context` says why the set is what it is, e.g. " for a sphere shape".
  void allowOnly(const Keys& allowed, const std::string& context = "") const {
    for (const Entry& e : entries_) {
      bool known = false;
      for (std::string_view k : allowed) known = known || k == e.name;
      if (!known)
        reader_.fail(at(e.name), "unknown key" + context + ", expected one of: " + joined(allowed),
                     &e.key);
    }
  }

 private:
  struct Entry {
    std::string name;
    Node key;
    Node value;
  };
  const Reader& reader_;
  Node node_;
  std::string path_;
  std::vector<Entry> entries_;
};

}  // namespace subsim::yaml
