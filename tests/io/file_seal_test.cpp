// io/file_seal: the checksum trailer of subsim's HDF5 files.  A sealed file reads back through
// HDF5 (which ignores the trailer), sealing twice leaves one seal, and every kind of damage is
// told apart before HDF5 sees the file: missing, not HDF5, no seal, cut short, extended, and one
// flipped bit anywhere.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "subsim/io/file_seal.hpp"
#include "subsim/io/problem_file.hpp"

namespace subsim {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, so parallel ctest runs do not share files.
class FileSeal : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("subsim_file_seal_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  /// A small HDF5 file as subsim writes it, sealed.
  std::string sealedFile(const std::string& name = "sealed.h5") const {
    const std::string path = file(name);
    writeProblemFile(path, {"seal", "test", 0.01}, {});
    return path;
  }

  fs::path dir_;
};

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Flips bits `mask` of byte `at` in place (a rewrite through truncation costs a flush on ext4).
void flipBits(const std::string& path, std::size_t at, unsigned char mask) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(static_cast<std::streamoff>(at));
  const char byte = static_cast<char>(f.get() ^ mask);
  f.seekp(static_cast<std::streamoff>(at));
  f.put(byte);
}

std::uint64_t littleEndian(const std::string& bytes, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// CRC-32 (IEEE 802.3, zlib's) bit by bit, independent of the implementation under test.
std::uint32_t referenceCrc32(const std::string& bytes, std::size_t count) {
  std::uint32_t crc = 0xffffffffu;
  for (std::size_t i = 0; i < count; ++i) {
    crc ^= static_cast<unsigned char>(bytes[i]);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

const std::string kHdf5Signature = "\x89HDF\r\n\x1a\n";

TEST_F(FileSeal, WriterSealsAndHdf5ReadsTheSealedFile) {
  const std::string path = sealedFile();
  const std::string bytes = readBytes(path);
  ASSERT_GT(bytes.size(), kSealSize + 8);
  const std::size_t count = bytes.size() - kSealSize;
  EXPECT_EQ(bytes.substr(0, 8), kHdf5Signature);
  EXPECT_EQ(bytes.substr(count, 8), "SUBSIMCK");
  EXPECT_EQ(littleEndian(bytes, count + 8, 8), count);
  EXPECT_EQ(littleEndian(bytes, count + 16, 4), referenceCrc32(bytes, count));
  EXPECT_EQ(littleEndian(bytes, count + 20, 4), 1u);

  const SealCheck check = checkSeal(path);
  EXPECT_EQ(check.status, SealStatus::Ok);
  EXPECT_EQ(check.file_size, bytes.size());
  // HDF5 opens the file read-only although it ends in bytes after HDF5's own end.
  EXPECT_EQ(readProblemFile(path).info.scene, "seal");
}

TEST_F(FileSeal, SealingTwiceLeavesOneSeal) {
  const std::string path = sealedFile();
  const std::string sealed = readBytes(path);
  sealFile(path);
  EXPECT_EQ(readBytes(path), sealed);

  fs::resize_file(path, sealed.size() - kSealSize);
  EXPECT_EQ(checkSeal(path).status, SealStatus::Missing);
  sealFile(path);
  sealFile(path);
  EXPECT_EQ(readBytes(path), sealed);
}

TEST_F(FileSeal, SealingReplacesASealThatNoLongerFits) {
  const std::string path = sealedFile();
  std::string bytes = readBytes(path);
  bytes[bytes.size() / 2] ^= 0x10;
  writeBytes(path, bytes);
  EXPECT_EQ(checkSeal(path).status, SealStatus::ChecksumMismatch);
  sealFile(path);
  EXPECT_EQ(checkSeal(path).status, SealStatus::Ok);
  EXPECT_EQ(fs::file_size(path), bytes.size());
}

TEST_F(FileSeal, MissingFileAndDirectoryCannotBeOpened) {
  SealCheck check = checkSeal(file("absent.h5"));
  EXPECT_EQ(check.status, SealStatus::CannotOpen);
  EXPECT_EQ(check.reason, "No such file or directory");
  check = checkSeal(dir_.string());
  EXPECT_EQ(check.status, SealStatus::CannotOpen);
  EXPECT_EQ(check.reason, "Is a directory");
}

TEST_F(FileSeal, FilesWithoutHdf5sSignatureAreNotHdf5) {
  const std::string path = file("other.h5");
  for (const std::string& bytes : {std::string(), std::string("not an HDF5 file, just text\n"),
                                   kHdf5Signature.substr(0, 7), std::string(100, '\0')}) {
    writeBytes(path, bytes);
    EXPECT_EQ(checkSeal(path).status, SealStatus::NotHdf5) << bytes.size() << " bytes";
  }
  // A seal is no help to a file that does not start as HDF5 does.
  writeBytes(path, "textfile" + readBytes(sealedFile()).substr(8));
  EXPECT_EQ(checkSeal(path).status, SealStatus::NotHdf5);
}

TEST_F(FileSeal, Hdf5FileWithoutSealIsRefused) {
  const std::string path = sealedFile();
  const std::uintmax_t size = fs::file_size(path);
  fs::resize_file(path, size - kSealSize);
  EXPECT_EQ(checkSeal(path).status, SealStatus::Missing);
  fs::resize_file(path, size - 100);
  EXPECT_EQ(checkSeal(path).status, SealStatus::Missing);
  writeBytes(path, kHdf5Signature);
  EXPECT_EQ(checkSeal(path).status, SealStatus::Missing);
}

TEST_F(FileSeal, FileCutShortInsideItsSealIsASizeMismatch) {
  const std::string path = sealedFile();
  const std::string sealed = readBytes(path);
  // While the seal's magic is left the seal is recognised; with less it is simply missing.
  for (std::size_t cut = 1; cut <= kSealSize; ++cut) {
    writeBytes(path, sealed.substr(0, sealed.size() - cut));
    const SealCheck check = checkSeal(path);
    if (cut <= kSealSize - 8) {
      EXPECT_EQ(check.status, SealStatus::SizeMismatch) << "cut by " << cut;
      EXPECT_EQ(check.file_size, sealed.size() - cut);
      EXPECT_EQ(check.sealed_size, sealed.size());
    } else {
      EXPECT_EQ(check.status, SealStatus::Missing) << "cut by " << cut;
    }
  }
}

TEST_F(FileSeal, ExtendedFileIsASizeMismatch) {
  const std::string path = sealedFile();
  const std::string sealed = readBytes(path);
  for (std::size_t extra : {1, 1000, 60000}) {
    writeBytes(path, sealed + std::string(extra, 'x'));
    const SealCheck check = checkSeal(path);
    EXPECT_EQ(check.status, SealStatus::SizeMismatch) << extra << " bytes appended";
    EXPECT_EQ(check.file_size, sealed.size() + extra);
    EXPECT_EQ(check.sealed_size, sealed.size());
  }
  // Far beyond the seal it is no longer looked for.
  writeBytes(path, sealed + std::string(70000, 'x'));
  EXPECT_EQ(checkSeal(path).status, SealStatus::Missing);
}

TEST_F(FileSeal, OneFlippedBitAnywhereIsCaught) {
  const std::string path = sealedFile();
  const std::string sealed = readBytes(path);
  const std::size_t count = sealed.size() - kSealSize;
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned char bit = static_cast<unsigned char>(1 << (i % 8));
    flipBits(path, i, bit);
    const SealStatus expected = i < 8 ? SealStatus::NotHdf5 : SealStatus::ChecksumMismatch;
    ASSERT_EQ(checkSeal(path).status, expected) << "bit " << i % 8 << " of byte " << i;
    flipBits(path, i, bit);
  }
  ASSERT_EQ(readBytes(path), sealed);
  // In the seal itself: its magic and version make it one, its count must fit, its CRC match.
  const struct {
    std::size_t at;
    SealStatus expected;
  } fields[] = {{0, SealStatus::Missing},           {7, SealStatus::Missing},
                {8, SealStatus::SizeMismatch},      {15, SealStatus::SizeMismatch},
                {16, SealStatus::ChecksumMismatch}, {19, SealStatus::ChecksumMismatch},
                {20, SealStatus::Missing},          {23, SealStatus::Missing}};
  for (const auto& field : fields) {
    flipBits(path, count + field.at, 0x01);
    EXPECT_EQ(checkSeal(path).status, field.expected) << "byte " << field.at << " of the seal";
    flipBits(path, count + field.at, 0x01);
  }
}

TEST_F(FileSeal, LargeFileIsCheckedWhole) {
  // Longer than the reader's chunks, and not a multiple of them.
  const std::string path = file("large.h5");
  std::string bytes = kHdf5Signature;
  std::uint32_t x = 12345;
  while (bytes.size() < (3u << 20) + 5) {
    x = x * 1664525u + 1013904223u;
    bytes += static_cast<char>(x >> 24);
  }
  writeBytes(path, bytes);
  sealFile(path);
  const std::string sealed = readBytes(path);
  ASSERT_EQ(sealed.size(), bytes.size() + kSealSize);
  EXPECT_EQ(littleEndian(sealed, bytes.size() + 16, 4), referenceCrc32(bytes, bytes.size()));
  EXPECT_EQ(checkSeal(path).status, SealStatus::Ok);
  for (std::size_t at : {std::size_t{1} << 20, (std::size_t{5} << 20) / 2, bytes.size() - 1}) {
    std::string damaged = sealed;
    damaged[at] ^= 0x40;
    writeBytes(path, damaged);
    EXPECT_EQ(checkSeal(path).status, SealStatus::ChecksumMismatch) << "byte " << at;
  }
}

std::string sealError(const std::string& path) {
  try {
    sealFile(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "sealFile('" << path << "') did not throw";
  return "";
}

TEST_F(FileSeal, SealingRefusesWhatItCannotSeal) {
  const std::string absent = file("absent.h5");
  EXPECT_EQ(sealError(absent), "cannot seal '" + absent + "': No such file or directory");
  EXPECT_FALSE(fs::exists(absent));
  EXPECT_EQ(sealError(dir_.string()), "cannot seal '" + dir_.string() + "': Is a directory");

  // A file that is not HDF5 (a zero-length one included) is left as it is.
  const std::string path = file("notes.h5");
  for (const std::string& bytes : {std::string("just text\n"), std::string()}) {
    writeBytes(path, bytes);
    EXPECT_EQ(sealError(path), "cannot seal '" + path + "': not an HDF5 file");
    EXPECT_EQ(readBytes(path), bytes);
  }
}

}  // namespace
}  // namespace subsim
