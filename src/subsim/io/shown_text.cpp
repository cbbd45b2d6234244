#include "subsim/io/shown_text.hpp"

namespace subsim {

std::string shown(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMaxShownChars; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    static const char* const kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  if (text.size() > kMaxShownChars) out += "...";
  return out;
}

std::string inQuotes(std::string_view text) {
  // Appended rather than "'" + shown(text) + "'": GCC 12 in the Release build misreads that chain
  // inlined here as a memcpy of up to SIZE_MAX bytes (-Wstringop-overflow, a false positive).
  std::string out = "'";
  out += shown(text);
  out += '\'';
  return out;
}

}  // namespace subsim
