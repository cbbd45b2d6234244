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

void writeUnsealedHdf5ForTesting(const std::string& path,
                                 const std::vector<std::pair<std::string, std::vector<int>>>& ints,
                                 const std::vector<std::pair<std::string, DoubleBuffer>>& reals,
                                 const std::vector<std::pair<std::string, std::string>>& texts) {
  const std::string context = "writeUnsealedHdf5ForTesting('" + path + "'): ";
  silenceHdf5();
  Handle file = createFile(path, context);
  Handle lcpl = checked(H5Pcreate(H5P_LINK_CREATE), H5Pclose, context, "link list");
  checkStatus(H5Pset_create_intermediate_group(lcpl.get(), 1), context, "link list");
  const auto dataset = [&](const std::string& name, hid_t type, hsize_t n, bool scalar,
                           const void* data) {
    Handle space = checked(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
                           H5Sclose, context, name);
    Handle set = checked(H5Dcreate2(file.get(), name.c_str(), type, space.get(), lcpl.get(),
                                    H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose, context, name);
    if (scalar || n > 0)
      checkStatus(H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), context, name);
  };
  for (const auto& [name, v] : ints) dataset(name, H5T_NATIVE_INT, v.size(), false, v.data());
  for (const auto& [name, v] : reals) dataset(name, H5T_NATIVE_DOUBLE, v.size(), false, v.data());
  for (const auto& [name, text] : texts) {
    Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, context, name);
    checkStatus(H5Tset_size(type.get(), text.size() + 1), context, name);
    dataset(name, type.get(), 1, true, text.c_str());
  }
  checkStatus(file.close(), context, "close");
}

}  // namespace subsim::detail
