#include "support/hdf5_file_edits.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/io/file_seal.hpp"
#include "subsim/io/hdf5_file.hpp"

namespace subsim::detail {

using namespace hdf5;  // NOLINT: the library's HDF5 plumbing (io/hdf5_file.hpp)

namespace {

// A read-write close truncates the file to HDF5's end of allocation, which drops its seal: each
// helper seals the file again, so that the readers' checks behind the seal stay reachable.
Handle openForTesting(const std::string& path, const std::string& context) {
  silenceHdf5();
  return checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, context, "open");
}

}  // namespace

DoubleBuffer readDatasetForTesting(const std::string& path, const std::string& object,
                                   std::size_t& cols) {
  const std::string context = "readDatasetForTesting('" + path + "', '" + object + "'): ";
  silenceHdf5();
  Handle file =
      checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, context, "open");
  Handle set =
      checked(H5Dopen2(file.get(), object.c_str(), H5P_DEFAULT), H5Dclose, context, "dataset");
  Handle space = checked(H5Dget_space(set.get()), H5Sclose, context, "dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != 1 && rank != 2)
    throw std::runtime_error(context + "rank " + std::to_string(rank) + ", expected 1 or 2");
  hsize_t dims[2] = {0, 1};
  checkStatus(H5Sget_simple_extent_dims(space.get(), dims, nullptr), context, "dataspace");
  cols = rank == 2 ? static_cast<std::size_t>(dims[1]) : 0;
  DoubleBuffer values(static_cast<std::size_t>(dims[0] * dims[1]));
  if (!values.empty())
    checkStatus(H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                context, "read");
  return values;
}

void rewriteDatasetForTesting(const std::string& path, const std::string& object,
                              const DoubleBuffer& values, std::size_t cols, bool integers) {
  const std::string context = "rewriteDatasetForTesting('" + path + "', '" + object + "'): ";
  Handle file = openForTesting(path, context);
  if (H5Lexists(file.get(), object.c_str(), H5P_DEFAULT) > 0)
    checkStatus(H5Ldelete(file.get(), object.c_str(), H5P_DEFAULT), context, "delete");
  const hsize_t rows = cols == 0 ? values.size() : values.size() / cols;
  if (integers) {
    const std::vector<int> ints(values.begin(), values.end());
    writeArray(file.get(), object.c_str(), ints.data(), rows, cols, context);
  } else {
    writeArray(file.get(), object.c_str(), values.data(), rows, cols, context);
  }
  checkStatus(file.close(), context, "close");
  sealFile(path);
}

void removeObjectForTesting(const std::string& path, const std::string& object) {
  const std::string context = "removeObjectForTesting('" + path + "', '" + object + "'): ";
  Handle file = openForTesting(path, context);
  checkStatus(H5Ldelete(file.get(), object.c_str(), H5P_DEFAULT), context, "delete");
  checkStatus(file.close(), context, "close");
  sealFile(path);
}

void removeAttributeForTesting(const std::string& path, const std::string& object,
                               const std::string& name) {
  const std::string context = "removeAttributeForTesting('" + path + "', '" + object + "'): ";
  Handle file = openForTesting(path, context);
  checkStatus(H5Adelete_by_name(file.get(), object.c_str(), name.c_str(), H5P_DEFAULT), context,
              name);
  checkStatus(file.close(), context, "close");
  sealFile(path);
}

void setIntAttributeForTesting(const std::string& path, const std::string& object,
                               const std::string& name, int value) {
  const std::string context = "setIntAttributeForTesting('" + path + "', '" + object + "'): ";
  Handle file = openForTesting(path, context);
  Handle target =
      checked(H5Oopen(file.get(), object.c_str(), H5P_DEFAULT), H5Oclose, context, object);
  if (H5Aexists(target.get(), name.c_str()) > 0)
    checkStatus(H5Adelete(target.get(), name.c_str()), context, name);
  writeAttribute(target.get(), name.c_str(), value, context);
  target.reset();
  checkStatus(file.close(), context, "close");
  sealFile(path);
}

}  // namespace subsim::detail
