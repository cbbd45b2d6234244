#pragma once
// The seal of subsim's HDF5 files (problem files, recordings): a checksum trailer that the writer
// appends once the file is complete, and that the readers verify before HDF5 sees a byte.
// libhdf5 1.10 crashes, hangs and runs out of memory on damaged files (fuzz/README.md), and those
// faults cannot be fixed on our side; since subsim writes these files itself, it can refuse every
// file that is not exactly as it wrote it.
//
// Layout (24 bytes, after the bytes it covers; docs/problem-format.md, "Seal"):
//   0  8 bytes  magic "SUBSIMCK"
//   8  8 bytes  the number of bytes it covers (everything before it), little-endian
//  16  4 bytes  CRC-32 of those bytes (zlib's crc32), little-endian
//  20  4 bytes  seal version, 1, little-endian
// HDF5 ignores bytes after its end of allocation on a read-only open, so h5py, h5dump and HDFView
// read a sealed file unchanged.  A read-write open truncates the file to that end when it closes
// (even with nothing changed), which drops the seal: whatever changes a file through HDF5 must
// seal it again.
#include <cstdint>
#include <string>

namespace subsim {

/// Size of the seal in bytes.
inline constexpr std::uint64_t kSealSize = 24;

enum class SealStatus {
  Ok,                // the seal is intact and the bytes it covers match their checksum
  CannotOpen,        // the file cannot be opened or read (SealCheck::reason says why)
  NotHdf5,           // the file does not start with HDF5's signature
  Missing,           // no seal near the end
  SizeMismatch,      // a seal written for another file length (cut short or extended since)
  ChecksumMismatch,  // the seal fits the length but not the contents
};

struct SealCheck {
  SealStatus status = SealStatus::Ok;
  std::string reason;             // CannotOpen: the system's message ("No such file or directory")
  std::uint64_t file_size = 0;    // the file's length in bytes
  std::uint64_t sealed_size = 0;  // SizeMismatch: the length the seal was made for, seal included
};

/// Checks the seal of the file at `path` without HDF5: the file must start with HDF5's 8-byte
/// signature (at offset 0: subsim writes no user block) and end with a seal whose count and
/// checksum fit the bytes before it.  A seal found up to 64 KiB before the end, or one the file
/// ends inside, gives SizeMismatch rather than Missing.  Reads the file in chunks; never throws
/// for the file's sake (std::bad_alloc aside).
SealCheck checkSeal(const std::string& path);

/// Appends a seal covering the whole file, replacing a seal already at its end (so that sealing
/// twice leaves one seal).  Throws std::runtime_error("cannot seal 'PATH': REASON") when the file
/// cannot be read or written, and ("cannot seal 'PATH': not an HDF5 file") for a file without
/// HDF5's signature, which is left untouched.
void sealFile(const std::string& path);

}  // namespace subsim
