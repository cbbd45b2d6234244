#pragma once
// UTF-8 validation of text before a third-party parser sees it.  TinyXML (under urdfdom) skips a
// multi-byte character by the length its lead byte announces, so a text ending in a lead byte
// (or holding one before fewer continuation bytes) made it read past the end of the buffer: found
// by fuzz/fuzz_urdf, a heap-buffer-overflow in TiXmlBase::ReadName.
#include <cstddef>
#include <string>

namespace subsim {

/// Where text stops being well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF): the offset of the first byte of the bad sequence, or std::string::npos.
std::size_t firstInvalidUtf8(const std::string& text);

/// A byte as the error messages show it: "0x1b".
std::string hexByte(char byte);

/// 1-based line of the byte at `offset` (counting '\n').
int lineOfOffset(const std::string& text, std::size_t offset);

}  // namespace subsim
