#pragma once
// HDF5 plumbing shared by the library's HDF5 files (sim/recorder.cpp, io/problem_file.cpp):
// an owning handle, HDF5's error text, attribute and dataset writers, and the checks every reader
// makes before it reads.
//
// INTERNAL: this header includes <hdf5.h>, whose include directory only the library is given.
// Include it from the library's .cpp files only, never from a public header (one that apps,
// tests or installed users see); it is not installed.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim::hdf5 {

/// What a dataset of T is read into: doubles into aligned storage (math/types.hpp DoubleBuffer).
template <class T>
using Hdf5Array = std::conditional_t<std::is_same_v<T, double>, DoubleBuffer, std::vector<T>>;

// Owns one HDF5 identifier, so that every early return and exception closes what was opened
// (a leaked identifier keeps the file open and its last writes unflushed).
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  void reset() {
    // A destructor cannot report a failed close; HDF5 has already recorded it on its stack.
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  /// Closes now and reports failure, for the file, whose close performs the final flush.
  herr_t close() {
    const herr_t status = id_ >= 0 && closer_ != nullptr ? closer_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// HDF5 prints its error stack to stderr by default; errors are reported by exception instead.
/// The setting is global (per thread in thread-safe HDF5 builds), so each entry point makes it
/// rather than once.
void silenceHdf5();

/// Why the last HDF5 call failed, from the innermost entry of its error stack (the outer entries
/// only say which call failed); clears the stack.  For system errors HDF5's text is long
/// ("unable to open file: name = ..., errno = 2, error message = 'No such file or directory',
/// flags = ..."), so only the system's message is kept.
std::string hdf5Detail();

/// Every failure is reported as "<context><what>: <HDF5's reason>" (std::runtime_error); the
/// context names the file (and the step or problem) so that the message stands alone.
[[noreturn]] void failHdf5(const std::string& context, const std::string& what);

/// `id` owned by a Handle, or failHdf5(context, what) when it is an error.
Handle checked(hid_t id, Handle::Closer closer, const std::string& context,
               const std::string& what);

/// failHdf5(context, what) when `status` is an error.
void checkStatus(herr_t status, const std::string& context, const std::string& what);

/// A variable-length string type of character set `cset`.  HDF5 converts between ASCII and UTF-8
/// strings not at all, so a reader must ask for the character set the file holds (h5py writes
/// UTF-8, C tools often ASCII).
Handle variableString(H5T_cset_t cset, const std::string& context);

/// The name of member `index` of a numbered group: "000000", "000001", ...
std::string numberedName(std::size_t index);

template <typename T>
struct Hdf5Type;
template <>
struct Hdf5Type<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
  static constexpr const char* name = "64-bit floats";
};
template <>
struct Hdf5Type<int> {
  static hid_t file() { return H5T_STD_I32LE; }
  static hid_t memory() { return H5T_NATIVE_INT; }
  static constexpr const char* name = "integers";
};
template <>
struct Hdf5Type<std::int64_t> {
  static hid_t file() { return H5T_STD_I64LE; }
  static hid_t memory() { return H5T_NATIVE_INT64; }
  static constexpr const char* name = "64-bit integers";
};
template <>
struct Hdf5Type<std::uint64_t> {
  static hid_t file() { return H5T_STD_U64LE; }
  static hid_t memory() { return H5T_NATIVE_UINT64; }
  static constexpr const char* name = "unsigned 64-bit integers";
};

// ---------------------------------------------------------------------------------------------
// Writing

/// Creates (truncating) the file at `path`.  Closing it then closes anything still open in it, so
/// that the handle's destructor, or an exception, always releases the file.
Handle createFile(const std::string& path, const std::string& context);

template <typename T>
void writeAttribute(hid_t object, const char* name, T value, const std::string& context) {
  const std::string what = std::string("attribute '") + name + "'";
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, context, what);
  Handle attr =
      checked(H5Acreate2(object, name, Hdf5Type<T>::file(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, context, what);
  checkStatus(H5Awrite(attr.get(), Hdf5Type<T>::memory(), &value), context, what);
}

/// A scalar attribute holding a variable-length UTF-8 string.
void writeStringAttribute(hid_t object, const char* name, const std::string& value,
                          const std::string& context);

/// A rows x cols dataset (cols == 0: a 1-D dataset of `rows`), row-major `data`.  Zero rows give
/// a zero-size dataset, which HDF5 allows with the default contiguous layout.
template <typename T>
void writeArray(hid_t group, const char* name, const T* data, hsize_t rows, hsize_t cols,
                const std::string& context) {
  const std::string what = std::string("dataset '") + name + "'";
  const hsize_t dims[2] = {rows, cols};
  Handle space =
      checked(H5Screate_simple(cols == 0 ? 1 : 2, dims, nullptr), H5Sclose, context, what);
  Handle set = checked(H5Dcreate2(group, name, Hdf5Type<T>::file(), space.get(), H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose, context, what);
  // Nothing to transfer for an empty dataset (and `data` may then be null).
  if (rows == 0) return;
  checkStatus(H5Dwrite(set.get(), Hdf5Type<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
              context, what);
}

// ---------------------------------------------------------------------------------------------
// Reading

/// What every reader of one file checks; each failure throws std::runtime_error naming the file
/// and the object at fault.  `kind` names the sort of file in messages ("recording").
class FileReader {
 public:
  /// Whether openFile() insists on subsim's seal: files subsim writes itself carry one; files
  /// of a public format that other programs write (FCLib) may not, and are then read as they are.
  enum class Seal { Required, IfPresent };

  /// `format` names the file's format in messages: "subsim" for subsim's own files.
  FileReader(std::string path, std::string kind, std::string format = "subsim",
             Seal seal = Seal::Required)
      : path_(std::move(path)), kind_(std::move(kind)), format_(std::move(format)), seal_(seal) {}

  /// "'<path>' is not a valid <format> <kind>: ", the start of every message about the contents.
  std::string prefix() const {
    return "'" + path_ + "' is not a valid " + format_ + " " + kind_ + ": ";
  }
  /// Throws prefix() + what (and clears HDF5's error stack).
  [[noreturn]] void fail(const std::string& what) const;

  /// Fails unless `found`, the file's /schema_version, is a version the reader knows: `known`
  /// (the one it writes) or an older one it still reads, from `oldest` on.
  void checkSchemaVersion(int found, int known, int oldest) const;
  void checkSchemaVersion(int found, int known) const { checkSchemaVersion(found, known, known); }

  /// Opens the file read-only once its seal (io/file_seal.hpp) is verified (with Seal::IfPresent,
  /// a file without a seal is opened as it is; one whose seal does not fit is still refused).  A
  /// file that cannot be opened fails with "cannot open <kind> '<path>': <the system's reason>",
  /// one that is not HDF5 with prefix() + "not an HDF5 file", one without an intact seal with
  /// prefix() and what is wrong with it, and what to do.
  Handle openFile() const;

  /// Group `name` of `parent` (`full` is its path for messages).
  Handle openGroup(hid_t parent, const std::string& name, const std::string& full) const;
  /// The number of members (links) of `group`.
  hsize_t memberCount(hid_t group, const std::string& full) const;

  /// Attribute `name` of `object` (`where` is the object's path with a trailing '/'), which must
  /// hold a single value.
  Handle openAttribute(hid_t object, const std::string& where, const char* name) const;

  /// The value of attribute `name` as T, when `accepts(type)` approves its HDF5 type; otherwise
  /// fails with "attribute <where><name> is not <expected>".  A failed conversion fails with
  /// "attribute <where><name> cannot be read as <read_as>: <HDF5's reason>".
  template <typename T, typename Accepts>
  T readScalarAttribute(hid_t object, const std::string& where, const char* name, Accepts accepts,
                        const char* expected, const char* read_as) const {
    Handle attr = openAttribute(object, where, name);
    Handle type = checked(H5Aget_type(attr.get()), H5Tclose, prefix(), where + name);
    if (!accepts(type.get())) fail("attribute " + where + name + " is not " + expected);
    T value{};
    if (H5Aread(attr.get(), Hdf5Type<T>::memory(), &value) < 0)
      fail("attribute " + where + name + " cannot be read as " + read_as + ": " + hdf5Detail());
    return value;
  }

  /// A string attribute, variable-length (in either character set) or fixed-length.
  std::string readStringAttribute(hid_t object, const std::string& where, const char* name) const;

  /// Dataset `name` of `group` (`full` is its path for messages), which must exist.
  Handle openDataset(hid_t group, const char* name, const std::string& full) const;
  /// The row count of dataset `set`, after checking that it has rank 1 (cols == 0) or rank 2 with
  /// `cols` columns.
  hsize_t datasetRows(hid_t set, const std::string& full, hsize_t cols) const;

  /// All `count` values of dataset `set` as T, row-major.  A failed read fails with "dataset
  /// <full> cannot be read<read_as>: <HDF5's reason>".
  template <typename T>
  Hdf5Array<T> readValues(hid_t set, const std::string& full, std::size_t count,
                          const char* read_as) const {
    Hdf5Array<T> data(count);
    // Zero-row datasets hold nothing to read (and H5Dread rejects a null buffer).
    if (!data.empty() &&
        H5Dread(set, Hdf5Type<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
      fail("dataset " + full + " cannot be read" + read_as + ": " + hdf5Detail());
    return data;
  }

 private:
  std::string path_;
  std::string kind_;
  std::string format_;
  Seal seal_ = Seal::Required;
};

}  // namespace subsim::hdf5
