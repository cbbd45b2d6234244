#pragma once
// Text read from an input file, made safe to print in an error message.  One rule for every
// reader (scene YAML, URDF, tet meshes), so a bad byte reads the same whichever file it is in.
#include <cstddef>
#include <string>
#include <string_view>

namespace subsim {

// Long values are cut in messages so that one bad line cannot flood a terminal.
constexpr std::size_t kMaxShownChars = 40;

/// `text` cut to kMaxShownChars ("..." after), control characters escaped as \xNN: a stray byte
/// from a binary file would otherwise be printed raw, invisibly or garbling the terminal.
std::string shown(std::string_view text);

/// shown(text) in single quotes: 'text'.
std::string inQuotes(std::string_view text);

}  // namespace subsim
