// io/utf8_check: well-formed UTF-8 passes whole; each kind of malformed sequence is found at its
// first byte, including a lead byte at the very end (the TinyXML overrun fuzz_urdf found).
#include <gtest/gtest.h>

#include <string>

#include "subsim/io/utf8_check.hpp"

namespace subsim {
namespace {

TEST(Utf8Check, WellFormedTextPasses) {
  EXPECT_EQ(firstInvalidUtf8(""), std::string::npos);
  EXPECT_EQ(firstInvalidUtf8("<robot name=\"arm\"/>"), std::string::npos);
  // 2, 3 and 4 bytes: e-acute, the euro sign, U+10FFFF.
  EXPECT_EQ(firstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf"), std::string::npos);
}

TEST(Utf8Check, MalformedSequencesAreFoundAtTheirFirstByte) {
  EXPECT_EQ(firstInvalidUtf8("ab\xd4"), 2u);              // lead byte at the end
  EXPECT_EQ(firstInvalidUtf8("ab\xe2\x82"), 2u);          // cut short
  EXPECT_EQ(firstInvalidUtf8("a\x92z"), 1u);              // lone continuation byte
  EXPECT_EQ(firstInvalidUtf8("a\xc3(z"), 1u);             // lead without continuation
  EXPECT_EQ(firstInvalidUtf8("\xc0\xaf"), 0u);            // overlong '/'
  EXPECT_EQ(firstInvalidUtf8("\xe0\x80\xaf"), 0u);        // overlong, 3 bytes
  EXPECT_EQ(firstInvalidUtf8("x\xed\xa0\x80"), 1u);       // a UTF-16 surrogate
  EXPECT_EQ(firstInvalidUtf8("xy\xf4\x90\x80\x80"), 2u);  // above U+10FFFF
  EXPECT_EQ(firstInvalidUtf8("\xf8\x88\x80\x80\x80"), 0u);
}

TEST(Utf8Check, LineOfOffsetCountsNewlines) {
  const std::string text = "a\nb\n\nc";
  EXPECT_EQ(lineOfOffset(text, 0), 1);
  EXPECT_EQ(lineOfOffset(text, 2), 2);
  EXPECT_EQ(lineOfOffset(text, 5), 4);
  EXPECT_EQ(lineOfOffset(text, 100), 4);
}

}  // namespace
}  // namespace subsim
