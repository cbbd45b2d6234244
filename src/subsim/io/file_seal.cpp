#include "subsim/io/file_seal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace subsim {
namespace {

constexpr unsigned char kMagic[8] = {'S', 'U', 'B', 'S', 'I', 'M', 'C', 'K'};
constexpr std::uint32_t kSealVersion = 1;
constexpr unsigned char kHdf5Signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
// How far before the end a seal is looked for when the file does not end with one: enough for
// anything plausibly appended to a file, and a bound on what refusing an unsealed file costs.
constexpr std::uint64_t kSearchWindow = 64 * 1024;
// Large enough that system calls do not dominate, small enough that a file of gigabytes costs no
// more memory than a small one.
constexpr std::size_t kChunk = std::size_t{1} << 20;

void put64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put32(unsigned char* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint64_t get64(const unsigned char* in) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | in[i];
  return v;
}

/// The seal of `count` covered bytes with checksum `crc`.
void encodeSeal(unsigned char (&seal)[kSealSize], std::uint64_t count, std::uint32_t crc) {
  std::memcpy(seal, kMagic, 8);
  put64(seal + 8, count);
  put32(seal + 16, crc);
  put32(seal + 20, kSealVersion);
}

/// Whether the `available` bytes at `at` (the first of a seal, the file possibly ending inside it)
/// are what a seal at file offset `offset` would hold there; the checksum can be anything.
bool looksLikeSealAt(const unsigned char* at, std::size_t available, std::uint64_t offset) {
  unsigned char expected[kSealSize];
  encodeSeal(expected, offset, 0);
  if (available < 8) return false;
  for (std::size_t i = 0; i < std::min<std::size_t>(available, kSealSize); ++i)
    if ((i < 16 || i >= 20) && at[i] != expected[i]) return false;
  return true;
}

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  /// Opens `path` with `flags`; a regular file's size on success, else the reason in `error`.
  /// O_NONBLOCK keeps a FIFO from blocking the open; it is then refused as not a regular file.
  bool open(const std::string& path, int flags, std::uint64_t& size, std::string& error) {
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
      error = std::strerror(errno);
      return false;
    }
    struct stat st;
    if (::fstat(fd_, &st) != 0) {
      error = std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      error = std::strerror(EISDIR);
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      error = "not a regular file";
      return false;
    }
    size = static_cast<std::uint64_t>(st.st_size);
    return true;
  }

  /// Reads exactly `n` bytes at `offset`; "" or why not.
  std::string readAt(std::uint64_t offset, unsigned char* out, std::size_t n) const {
    while (n > 0) {
      const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return std::strerror(errno);
      if (got == 0) return "the file became shorter while being read";
      out += got;
      offset += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
    return {};
  }

  /// Writes all `n` bytes at `offset`; "" or why not.
  std::string writeAt(std::uint64_t offset, const unsigned char* in, std::size_t n) const {
    while (n > 0) {
      const ssize_t put = ::pwrite(fd_, in, n, static_cast<off_t>(offset));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) return std::strerror(errno);
      in += put;
      offset += static_cast<std::uint64_t>(put);
      n -= static_cast<std::size_t>(put);
    }
    return {};
  }

  /// CRC-32 of the first `count` bytes in `crc`; "" or why not.
  std::string crcOf(std::uint64_t count, std::uint32_t& crc) const {
    std::vector<unsigned char> buffer(
        static_cast<std::size_t>(std::min<std::uint64_t>(count, kChunk)));
    uLong value = crc32(0L, Z_NULL, 0);
    for (std::uint64_t done = 0; done < count;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count - done, kChunk));
      if (std::string error = readAt(done, buffer.data(), n); !error.empty()) return error;
      value = crc32(value, buffer.data(), static_cast<uInt>(n));
      done += n;
    }
    crc = static_cast<std::uint32_t>(value);
    return {};
  }

  /// Closes now, reporting failure: a file written to can report a deferred write error here.
  std::string close() {
    const int fd = std::exchange(fd_, -1);
    return ::close(fd) == 0 ? std::string() : std::strerror(errno);
  }

 private:
  int fd_ = -1;
};

/// Whether the file starts with HDF5's signature; "" or why it could not be read in `error`.
bool startsLikeHdf5(const Fd& fd, std::uint64_t size, std::string& error) {
  if (size < sizeof(kHdf5Signature)) return false;
  unsigned char head[sizeof(kHdf5Signature)];
  error = fd.readAt(0, head, sizeof(head));
  return error.empty() && std::memcmp(head, kHdf5Signature, sizeof(head)) == 0;
}

/// Whether the file ends with a seal (checksum not checked); its covered count in `count`.
bool endsWithSeal(const Fd& fd, std::uint64_t size, std::uint64_t& count, std::string& error) {
  if (size < sizeof(kHdf5Signature) + kSealSize) return false;
  unsigned char seal[kSealSize];
  error = fd.readAt(size - kSealSize, seal, kSealSize);
  if (!error.empty() || std::memcmp(seal, kMagic, 8) != 0) return false;
  unsigned char version[4];
  put32(version, kSealVersion);
  if (std::memcmp(seal + 20, version, 4) != 0) return false;
  count = get64(seal + 8);
  return true;
}

}  // namespace

SealCheck checkSeal(const std::string& path) {
  SealCheck result;
  const auto fail = [&result](SealStatus status, std::string reason = {}) {
    result.status = status;
    result.reason = std::move(reason);
    return result;
  };
  Fd fd;
  std::string error;
  if (!fd.open(path, O_RDONLY, result.file_size, error)) return fail(SealStatus::CannotOpen, error);
  const std::uint64_t size = result.file_size;
  const bool hdf5 = startsLikeHdf5(fd, size, error);
  if (!error.empty()) return fail(SealStatus::CannotOpen, error);
  if (!hdf5) return fail(SealStatus::NotHdf5);

  std::uint64_t count = 0;
  const bool sealed = endsWithSeal(fd, size, count, error);
  if (!error.empty()) return fail(SealStatus::CannotOpen, error);
  if (sealed) {
    if (count != size - kSealSize) {
      result.sealed_size = count > std::numeric_limits<std::uint64_t>::max() - kSealSize
                               ? std::numeric_limits<std::uint64_t>::max()
                               : count + kSealSize;
      return fail(SealStatus::SizeMismatch);
    }
    unsigned char seal[kSealSize];
    if (error = fd.readAt(count, seal, kSealSize); !error.empty())
      return fail(SealStatus::CannotOpen, error);
    std::uint32_t crc = 0;
    if (error = fd.crcOf(count, crc); !error.empty()) return fail(SealStatus::CannotOpen, error);
    unsigned char expected[kSealSize];
    encodeSeal(expected, count, crc);
    if (std::memcmp(seal, expected, kSealSize) != 0) return fail(SealStatus::ChecksumMismatch);
    return result;
  }

  // No seal at the end.  One shortly before it means that bytes were appended to a sealed file;
  // one the file ends inside, that it was cut short.  Either is named as a size mismatch rather
  // than as a file that was never sealed.
  const std::uint64_t begin = std::max<std::uint64_t>(
      sizeof(kHdf5Signature),
      size > kSearchWindow + kSealSize ? size - kSearchWindow - kSealSize : 0);
  std::vector<unsigned char> tail(static_cast<std::size_t>(size - begin));
  if (error = fd.readAt(begin, tail.data(), tail.size()); !error.empty())
    return fail(SealStatus::CannotOpen, error);
  for (std::size_t i = tail.size(); i-- > 0;) {
    const std::uint64_t offset = begin + i;
    if (offset + kSealSize == size) continue;  // the end, already looked at
    if (looksLikeSealAt(tail.data() + i, tail.size() - i, offset)) {
      result.sealed_size = offset + kSealSize;
      return fail(SealStatus::SizeMismatch);
    }
  }
  return fail(SealStatus::Missing);
}

void sealFile(const std::string& path) {
  const std::string context = "cannot seal '" + path + "': ";
  Fd fd;
  std::uint64_t size = 0;
  std::string error;
  if (!fd.open(path, O_RDWR, size, error)) throw std::runtime_error(context + error);
  const bool hdf5 = startsLikeHdf5(fd, size, error);
  if (!error.empty()) throw std::runtime_error(context + error);
  if (!hdf5) throw std::runtime_error(context + "not an HDF5 file");

  // A seal at the end is replaced (whether or not its checksum still fits), not covered by the
  // new one.
  std::uint64_t count = 0;
  const bool sealed = endsWithSeal(fd, size, count, error);
  if (!error.empty()) throw std::runtime_error(context + error);
  const std::uint64_t covered = sealed && count == size - kSealSize ? count : size;

  std::uint32_t crc = 0;
  if (error = fd.crcOf(covered, crc); !error.empty()) throw std::runtime_error(context + error);
  unsigned char seal[kSealSize];
  encodeSeal(seal, covered, crc);
  if (error = fd.writeAt(covered, seal, kSealSize); !error.empty())
    throw std::runtime_error(context + error);
  if (error = fd.close(); !error.empty()) throw std::runtime_error(context + error);
}

}  // namespace subsim
