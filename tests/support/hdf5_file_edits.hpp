#pragma once
// Test-only helpers that corrupt a problem file (or a recording) in place, so that the tests and
// fuzz targets can exercise every error path of readProblemFile and readRecording without HDF5's
// headers (which only the library and this helper library see).  Each helper that changes the
// file seals it again (io/file_seal.hpp), as subsim's writers do, so that the readers get past the
// seal to the checks behind it.  Part of subsim_testing (tests/support/), which the test and fuzz
// builds link; not in the library.  Errors throw std::runtime_error with HDF5's reason.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim::detail {

/// The values of the numeric dataset `object` (absolute path) converted to doubles, row-major,
/// and in `cols` its column count (0 for a 1-D dataset): what rewriteDatasetForTesting takes, so
/// that a dataset can be changed a little rather than replaced.
DoubleBuffer readDatasetForTesting(const std::string& path, const std::string& object,
                                   std::size_t& cols);

/// Replaces dataset `object` (an absolute path in the file, e.g. "/problems/000000/b") by one
/// holding `values`: 1-D when cols == 0, else values.size() / cols rows of `cols`; stored as
/// 64-bit floats, or as 32-bit ints when `integers` (values are then truncated).
void rewriteDatasetForTesting(const std::string& path, const std::string& object,
                              const DoubleBuffer& values, std::size_t cols, bool integers);

/// Removes the link `object` (a group or dataset, absolute path).
void removeObjectForTesting(const std::string& path, const std::string& object);

/// Removes attribute `name` of `object` ("/" for the root).
void removeAttributeForTesting(const std::string& path, const std::string& object,
                               const std::string& name);

/// Sets (replacing) the 32-bit int attribute `name` of `object`.
void setIntAttributeForTesting(const std::string& path, const std::string& object,
                               const std::string& name, int value);

/// Creates (truncating) an HDF5 file holding the given datasets and nothing else, without a
/// seal, as another program writes one (FCLib files from Siconos, say): `ints` as 1-D 32-bit
/// ints, `reals` as 1-D 64-bit floats, `texts` as scalar fixed-length strings; every path is
/// absolute and the groups on the way are created.
void writeUnsealedHdf5ForTesting(
    const std::string& path, const std::vector<std::pair<std::string, std::vector<int>>>& ints,
    const std::vector<std::pair<std::string, DoubleBuffer>>& reals,
    const std::vector<std::pair<std::string, std::string>>& texts = {});

}  // namespace subsim::detail
