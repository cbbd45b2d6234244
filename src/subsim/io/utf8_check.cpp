#include "subsim/io/utf8_check.hpp"

#include <algorithm>
#include <cstdio>

namespace subsim {

std::size_t firstInvalidUtf8(const std::string& text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    int length;
    unsigned char low = 0x80, high = 0xbf;  // allowed range of the second byte
    if (b >= 0xc2 && b <= 0xdf) {
      length = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b == 0xe0) low = 0xa0;   // overlong
      if (b == 0xed) high = 0x9f;  // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b == 0xf0) low = 0x90;   // overlong
      if (b == 0xf4) high = 0x8f;  // above U+10FFFF
    } else {
      return i;  // a continuation byte, an overlong lead (c0, c1) or f5..ff
    }
    if (i + length > n) return i;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return i;
    for (int k = 2; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += length;
  }
  return std::string::npos;
}

std::string hexByte(char byte) {
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned char>(byte));
  return code;
}

int lineOfOffset(const std::string& text, std::size_t offset) {
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

}  // namespace subsim
