#pragma once
// The structure-aware mode of the HDF5 fuzz targets (fuzz/README.md).  The readers refuse any file
// whose seal does not fit (io/file_seal.hpp), so mutated bytes no longer get past the seal; to
// reach the checks behind it, the fuzz bytes here choose changes to a valid file that subsim wrote:
// datasets rewritten with other shapes and values (NaN, infinities, huge and negative numbers),
// integer attributes set, attributes and objects removed.  The test helpers
// (tests/support/hdf5_file_edits.hpp) make each change through HDF5 and seal the file again, so
// HDF5 only parses files that HDF5 wrote, while the readers' own checks see arbitrary contents.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "subsim/io/file_seal.hpp"
#include "subsim/math/types.hpp"
#include "support/hdf5_file_edits.hpp"

namespace subsim::fuzz {

/// A numeric dataset of the format (docs/*-format.md): its path, whether it holds integers, and
/// its column count (0: 1-D), for when it is absent and written afresh.
struct DatasetSpec {
  std::string path;
  bool integers = false;
  std::size_t cols = 0;
};

/// What the fuzz bytes may change in one file.
struct FileObjects {
  std::vector<DatasetSpec> datasets;
  std::vector<std::string> removable;  // groups and datasets, numeric or not
  std::vector<std::pair<std::string, std::string>> attributes;  // object, attribute name
};

/// A double the readers must cope with: special values, the original nudged, or any bit pattern.
inline double fuzzDouble(FuzzedDataProvider& in, double original) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (in.ConsumeIntegralInRange(0, 11)) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return kInf;
    case 2:
      return -kInf;
    case 3:
      return std::numeric_limits<double>::max();
    case 4:
      return -1e300;
    case 5:
      return 0.0;
    case 6:
      return -0.0;
    case 7:
      return std::numeric_limits<double>::denorm_min();
    case 8:
      return -original;
    case 9:
      return std::nextafter(original, kInf);
    case 10:
      return original * 1e10;
    default:
      return in.ConsumeFloatingPoint<double>();
  }
}

/// An int the readers must cope with: the ends of the range, off-by-one values, or any.
inline int fuzzInt(FuzzedDataProvider& in, double original) {
  constexpr int kMax = std::numeric_limits<int>::max();
  constexpr int kMin = std::numeric_limits<int>::min();
  // Integer datasets hold ints, so the original fits; a double dataset rewritten as ints may not.
  const int base =
      std::isfinite(original) && std::abs(original) < 1e9 ? static_cast<int>(original) : 0;
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      return -1;
    case 1:
      return 0;
    case 2:
      return kMax;
    case 3:
      return kMin;
    case 4:
      return kMax - 1;
    case 5:
      return base + 1;
    case 6:
      return base - 1;
    case 7:
      return base * 2;
    case 8:
      return 1 << 20;
    default:
      return in.ConsumeIntegral<int>();
  }
}

/// Rewrites one dataset: its values changed in a few places, its rows cut or extended, its column
/// count or element type changed, or emptied.
inline void rewriteDataset(FuzzedDataProvider& in, const std::string& path,
                           const DatasetSpec& spec) {
  std::size_t cols = spec.cols;
  DoubleBuffer values;
  try {
    values = detail::readDatasetForTesting(path, spec.path, cols);
  } catch (const std::runtime_error&) {
    // Removed by an earlier change, or in a group that does not exist: written afresh.
  }
  bool integers = spec.integers;
  const std::size_t stride = cols == 0 ? 1 : cols;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 4: {
      const std::size_t rows =
          in.ConsumeIntegralInRange<std::size_t>(0, values.size() / stride + 2);
      values.resize(rows * stride, values.empty() ? 1.0 : values.back());
      break;
    }
    case 5:
      cols = in.ConsumeIntegralInRange<std::size_t>(0, 5);
      break;
    case 6:
      values.clear();
      break;
    case 7:
      integers = !integers;
      break;
    default:
      break;  // the shape kept, only values changed
  }
  const int changes = in.ConsumeIntegralInRange(0, 4);
  for (int k = 0; k < changes && !values.empty(); ++k) {
    const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1);
    values[i] = integers ? fuzzInt(in, values[i]) : fuzzDouble(in, values[i]);
  }
  if (integers) {
    // The helper converts to int, which a value out of int's range would make undefined.
    for (double& v : values)
      if (!(v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max())) v = 0;
  }
  detail::rewriteDatasetForTesting(path, spec.path, values, cols, integers);
}

/// Applies one to four changes chosen by `in` to the sealed file at `path`.
inline void applyEdits(FuzzedDataProvider& in, const std::string& path,
                       const FileObjects& objects) {
  const int edits = in.ConsumeIntegralInRange(1, 4);
  for (int e = 0; e < edits; ++e) {
    try {
      int kind = in.ConsumeIntegralInRange(0, 9);
      // A format without attributes (FCLib) rewrites a dataset instead.
      if (kind >= 6 && kind <= 8 && objects.attributes.empty()) kind = 0;
      if (kind <= 5) {
        const std::size_t d =
            in.ConsumeIntegralInRange<std::size_t>(0, objects.datasets.size() - 1);
        rewriteDataset(in, path, objects.datasets[d]);
      } else if (kind <= 8) {
        const std::size_t a =
            in.ConsumeIntegralInRange<std::size_t>(0, objects.attributes.size() - 1);
        const auto& [object, name] = objects.attributes[a];
        if (kind <= 7)
          detail::setIntAttributeForTesting(path, object, name, fuzzInt(in, 1.0));
        else
          detail::removeAttributeForTesting(path, object, name);
      } else {
        const std::size_t r =
            in.ConsumeIntegralInRange<std::size_t>(0, objects.removable.size() - 1);
        detail::removeObjectForTesting(path, objects.removable[r]);
      }
    } catch (const std::runtime_error&) {
      // The helper was refused (the object was removed by an earlier change, or its group does
      // not exist) and HDF5 closed the file, which drops the seal: seal it as HDF5 left it.
      sealFile(path);
    }
  }
}

}  // namespace subsim::fuzz
