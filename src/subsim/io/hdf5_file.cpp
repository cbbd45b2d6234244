#include "subsim/io/hdf5_file.hpp"

#include <cstdio>
#include <stdexcept>

#include "subsim/io/file_seal.hpp"

namespace subsim::hdf5 {

void silenceHdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string hdf5Detail() {
  std::string detail;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* data) -> herr_t {
        if (n == 0 && err != nullptr && err->desc != nullptr)
          *static_cast<std::string*>(data) = err->desc;
        return 0;
      },
      &detail);
  H5Eclear2(H5E_DEFAULT);
  const std::string marker = "error message = '";
  const std::size_t begin = detail.find(marker);
  if (begin != std::string::npos) {
    const std::size_t end = detail.find('\'', begin + marker.size());
    if (end != std::string::npos)
      return detail.substr(begin + marker.size(), end - begin - marker.size());
  }
  return detail.empty() ? "HDF5 error" : detail;
}

void failHdf5(const std::string& context, const std::string& what) {
  throw std::runtime_error(context + (what.empty() ? "" : what + ": ") + hdf5Detail());
}

Handle checked(hid_t id, Handle::Closer closer, const std::string& context,
               const std::string& what) {
  if (id < 0) failHdf5(context, what);
  return Handle(id, closer);
}

void checkStatus(herr_t status, const std::string& context, const std::string& what) {
  if (status < 0) failHdf5(context, what);
}

Handle variableString(H5T_cset_t cset, const std::string& context) {
  Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, context, "string type");
  checkStatus(H5Tset_size(type.get(), H5T_VARIABLE), context, "string type");
  checkStatus(H5Tset_cset(type.get(), cset), context, "string type");
  return type;
}

std::string numberedName(std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "%06zu", index);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Writing

Handle createFile(const std::string& path, const std::string& context) {
  Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, context, "file access list");
  checkStatus(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), context, "file access list");
  return checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose, context,
                 "");
}

void writeStringAttribute(hid_t object, const char* name, const std::string& value,
                          const std::string& context) {
  const std::string what = std::string("attribute '") + name + "'";
  Handle type = variableString(H5T_CSET_UTF8, context);
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, context, what);
  Handle attr = checked(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, context, what);
  const char* text = value.c_str();
  checkStatus(H5Awrite(attr.get(), type.get(), &text), context, what);
}

// ---------------------------------------------------------------------------------------------
// Reading

void FileReader::fail(const std::string& what) const {
  H5Eclear2(H5E_DEFAULT);
  throw std::runtime_error(prefix() + what);
}

void FileReader::checkSchemaVersion(int found, int known, int oldest) const {
  if (found < oldest || found > known)
    fail("attribute /schema_version is " + std::to_string(found) + ", this reader knows " +
         (oldest < known ? std::to_string(oldest) + ".." : std::string()) + std::to_string(known));
}

Handle FileReader::openFile() const {
  const std::string context =
      "cannot open " + (format_ == "subsim" ? "" : format_ + " ") + kind_ + " '" + path_ + "': ";
  // HDF5 sees no byte of a file before its seal is verified: libhdf5 crashes on damaged files.
  const SealCheck seal = checkSeal(path_);
  const std::string reseal = "run: subsim seal '" + path_ + "'";
  switch (seal.status) {
    case SealStatus::Ok:
      break;
    case SealStatus::CannotOpen:
      throw std::runtime_error(context + seal.reason);
    case SealStatus::NotHdf5:
      fail("not an HDF5 file");
    case SealStatus::Missing:
      if (seal_ == Seal::IfPresent) break;
      fail(
          "it carries no subsim checksum (written by another program, changed after subsim wrote "
          "it, or cut short while being written): libhdf5 can crash on a damaged file, so subsim "
          "reads only files whose checksum it verifies; if you wrote or changed this file on "
          "purpose, " +
          reseal);
    case SealStatus::SizeMismatch:
      fail("it is " + std::to_string(seal.file_size) + " bytes long, its checksum was made for " +
           std::to_string(seal.sealed_size) +
           " bytes: the file was cut short or extended after subsim wrote it (record it again; if "
           "you changed it on purpose, " +
           reseal + ")");
    case SealStatus::ChecksumMismatch:
      fail(
          "its checksum does not match its contents: the file was damaged or changed after subsim "
          "wrote it (record it again; if you changed it on purpose, " +
          reseal + ")");
  }
  return checked(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, context, "");
}

Handle FileReader::openGroup(hid_t parent, const std::string& name, const std::string& full) const {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) fail("missing group " + full);
  const hid_t id = H5Gopen2(parent, name.c_str(), H5P_DEFAULT);
  if (id < 0) fail(full + " is not a group");
  return Handle(id, H5Gclose);
}

hsize_t FileReader::memberCount(hid_t group, const std::string& full) const {
  H5G_info_t info;
  if (H5Gget_info(group, &info) < 0) failHdf5(prefix(), full);
  return info.nlinks;
}

Handle FileReader::openAttribute(hid_t object, const std::string& where, const char* name) const {
  if (H5Aexists(object, name) <= 0) fail("missing attribute " + where + name);
  Handle attr = checked(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, prefix(), where + name);
  Handle space = checked(H5Aget_space(attr.get()), H5Sclose, prefix(), where + name);
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    fail("attribute " + where + name + " is not a single value");
  return attr;
}

std::string FileReader::readStringAttribute(hid_t object, const std::string& where,
                                            const char* name) const {
  const std::string full = where + name;
  Handle attr = openAttribute(object, where, name);
  Handle type = checked(H5Aget_type(attr.get()), H5Tclose, prefix(), full);
  if (H5Tget_class(type.get()) != H5T_STRING) fail("attribute " + full + " is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle memory = variableString(H5Tget_cset(type.get()), prefix());
    char* text = nullptr;
    if (H5Aread(attr.get(), memory.get(), &text) < 0) failHdf5(prefix(), full);
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  // Fixed-length strings (as other tools write them) are accepted too.
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  if (size > 0 && H5Aread(attr.get(), type.get(), value.data()) < 0) failHdf5(prefix(), full);
  value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
  return value;
}

Handle FileReader::openDataset(hid_t group, const char* name, const std::string& full) const {
  if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail("missing dataset " + full);
  const hid_t id = H5Dopen2(group, name, H5P_DEFAULT);
  if (id < 0) fail(full + " is not a dataset");
  return Handle(id, H5Dclose);
}

hsize_t FileReader::datasetRows(hid_t set, const std::string& full, hsize_t cols) const {
  Handle space = checked(H5Dget_space(set), H5Sclose, prefix(), full);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const int want_rank = cols == 0 ? 1 : 2;
  if (rank != want_rank)
    fail("dataset " + full + " has rank " + std::to_string(rank) + ", expected " +
         std::to_string(want_rank));
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) failHdf5(prefix(), full);
  if (cols != 0 && dims[1] != cols)
    fail("dataset " + full + " has " + std::to_string(dims[1]) + " columns, expected " +
         std::to_string(cols));
  return dims[0];
}

}  // namespace subsim::hdf5
