#include "subsim/io/fclib_file.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "subsim/io/file_seal.hpp"
#include "subsim/io/hdf5_file.hpp"

namespace subsim {

namespace {

using hdf5::FileReader;
using hdf5::Handle;

/// Reads one FCLib file, every message naming the file and the object at fault.
class FclibReader {
 public:
  explicit FclibReader(const std::string& path)
      : r_(path, "problem", "FCLib", FileReader::Seal::IfPresent) {}

  FclibProblem read() {
    hdf5::silenceHdf5();
    const Handle file = r_.openFile();
    FclibProblem p;
    const hid_t f = file.get();
    const bool global = exists(f, "fclib_global");
    if (!global && !exists(f, "fclib_local"))
      r_.fail("neither group /fclib_global nor /fclib_local: not an FCLib problem");
    p.form = global ? FclibProblem::Form::Global : FclibProblem::Form::Local;
    const std::string root = global ? "/fclib_global" : "/fclib_local";
    const Handle main = r_.openGroup(f, root.substr(1), root);
    p.spacedim = readInt(main.get(), "spacedim", root + "/spacedim");
    if (p.spacedim == 2)
      r_.fail(root +
              "/spacedim is 2: 2-D frictional contact problems are not supported (subsim's "
              "contacts are 3-D: a normal and two tangent rows)");
    if (p.spacedim != 3)
      r_.fail(root + "/spacedim is " + std::to_string(p.spacedim) + ", expected 3");

    const Handle vectors = r_.openGroup(main.get(), "vectors", root + "/vectors");
    const std::string vpath = root + "/vectors/";
    if (global) {
      // The vectors first: their lengths are the sizes the matrices must have.
      p.f = readReals(vectors.get(), "f", vpath + "f", -1);
      p.w = readReals(vectors.get(), "w", vpath + "w", -1);
      const long long n = p.f.size(), m = p.w.size();
      checkContactRows(m, vpath + "w");
      p.mu = readReals(vectors.get(), "mu", vpath + "mu", m / 3);
      p.M = readMatrix(main.get(), "M", root + "/M", n, n,
                       "n x n with n = " + std::to_string(n) + " (the length of vectors/f)");
      p.H = readMatrix(main.get(), "H", root + "/H", n, m,
                       "n x m with n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                           " (the lengths of vectors/f and vectors/w)");
      if (exists(main.get(), "G")) {
        p.b = readReals(vectors.get(), "b", vpath + "b", -1);
        const long long pr = p.b.size();
        p.G = readMatrix(main.get(), "G", root + "/G", n, pr,
                         "n x p with n = " + std::to_string(n) + ", p = " + std::to_string(pr) +
                             " (the lengths of vectors/f and vectors/b)");
      } else {
        p.G.resize(n, 0);
      }
    } else {
      p.q = readReals(vectors.get(), "q", vpath + "q", -1);
      const long long m = p.q.size();
      checkContactRows(m, vpath + "q");
      p.mu = readReals(vectors.get(), "mu", vpath + "mu", m / 3);
      p.W = readMatrix(main.get(), "W", root + "/W", m, m,
                       "m x m with m = " + std::to_string(m) + " (the length of vectors/q)");
      const bool has_v = exists(main.get(), "V"), has_r = exists(main.get(), "R");
      if (has_v != has_r)
        r_.fail(root + " has " + (has_v ? "V but no R" : "R but no V") +
                ": the equality block needs both");
      if (has_v) {
        p.s = readReals(vectors.get(), "s", vpath + "s", -1);
        const long long pr = p.s.size();
        p.V = readMatrix(main.get(), "V", root + "/V", m, pr,
                         "m x p with m = " + std::to_string(m) + ", p = " + std::to_string(pr) +
                             " (the lengths of vectors/q and vectors/s)");
        p.R = readMatrix(main.get(), "R", root + "/R", pr, pr,
                         "p x p with p = " + std::to_string(pr) + " (the length of vectors/s)");
      } else {
        p.V.resize(m, 0);
        p.R.resize(0, 0);
      }
    }
    for (Eigen::Index c = 0; c < p.mu.size(); ++c)
      if (!(p.mu[c] >= 0.0))
        r_.fail("dataset " + vpath + "mu holds " + std::to_string(p.mu[c]) + " for contact " +
                std::to_string(c) + ", expected a friction coefficient >= 0");

    if (exists(main.get(), "info")) {
      const Handle info = r_.openGroup(main.get(), "info", root + "/info");
      p.title = readOptionalString(info.get(), "title", root + "/info/title");
      p.description = readOptionalString(info.get(), "description", root + "/info/description");
      p.math_info = readOptionalString(info.get(), "math_info", root + "/info/math_info");
    }
    const long long n = global ? p.M.rows() : 0;
    if (global && exists(f, "subsim")) {
      const Handle extra = r_.openGroup(f, "subsim", "/subsim");
      if (exists(extra.get(), "subsystem_dof"))
        p.subsystem_dof =
            readCounts(extra.get(), "subsystem_dof", 1, n, n, "DOF", "the length of vectors/f");
      if (exists(extra.get(), "equality_rows"))
        p.equality_rows =
            readCounts(extra.get(), "equality_rows", 1, 6, p.G.cols(), "rows", "the columns of G");
    }
    if (exists(f, "solution")) {
      const Handle s = r_.openGroup(f, "solution", "/solution");
      p.solution = readSolution(s.get(), "/solution/", n, p.contactRows(), p.equalityRows());
    }
    if (exists(f, "guesses")) {
      const Handle g = r_.openGroup(f, "guesses", "/guesses");
      const int count = readInt(g.get(), "number_of_guesses", "/guesses/number_of_guesses");
      if (count < 0 || static_cast<hsize_t>(count) > r_.memberCount(g.get(), "/guesses"))
        r_.fail("dataset /guesses/number_of_guesses is " + std::to_string(count) +
                ", but /guesses holds fewer groups");
      for (int k = 1; k <= count; ++k) {
        const std::string name = std::to_string(k);
        const Handle one = r_.openGroup(g.get(), name, "/guesses/" + name);
        p.guesses.push_back(readSolution(one.get(), "/guesses/" + name + "/", n, p.contactRows(),
                                         p.equalityRows()));
      }
    }
    return p;
  }

 private:
  static bool exists(hid_t parent, const char* name) {
    return H5Lexists(parent, name, H5P_DEFAULT) > 0;
  }

  void checkContactRows(long long m, const std::string& full) const {
    if (m % 3 != 0)
      r_.fail("dataset " + full + " has " + std::to_string(m) +
              " entries, expected 3 per contact (spacedim 3)");
  }

  /// The dataset's element count, after checking that it is a number of `cls` (rank 0 or 1).
  hsize_t openNumbers(hid_t group, const char* name, const std::string& full, H5T_class_t cls,
                      const char* what, Handle& set) const {
    set = r_.openDataset(group, name, full);
    Handle type = hdf5::checked(H5Dget_type(set.get()), H5Tclose, r_.prefix(), full);
    if (H5Tget_class(type.get()) != cls) r_.fail("dataset " + full + " does not hold " + what);
    Handle space = hdf5::checked(H5Dget_space(set.get()), H5Sclose, r_.prefix(), full);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank > 1)
      r_.fail("dataset " + full + " has rank " + std::to_string(rank) + ", expected a vector");
    const hssize_t points = H5Sget_simple_extent_npoints(space.get());
    if (points < 0) hdf5::failHdf5(r_.prefix(), full);
    return static_cast<hsize_t>(points);
  }

  int readInt(hid_t group, const char* name, const std::string& full) const {
    Handle set;
    if (openNumbers(group, name, full, H5T_INTEGER, "integers", set) != 1)
      r_.fail("dataset " + full + " is not a single integer");
    // Read as 64 bits so that a value beyond int is reported rather than wrapped.
    const auto v = r_.readValues<std::int64_t>(set.get(), full, 1, " as an integer");
    if (v[0] < std::numeric_limits<int>::min() || v[0] > std::numeric_limits<int>::max())
      r_.fail("dataset " + full + " holds " + std::to_string(v[0]) + ", out of range");
    return static_cast<int>(v[0]);
  }

  /// subsim's extension /subsim/`name`: counts in [lo, hi] adding up to `total` (`of` says what
  /// that is).
  std::vector<int> readCounts(hid_t group, const char* name, long long lo, long long hi,
                              long long total, const char* unit, const char* of) const {
    const std::string full = std::string("/subsim/") + name;
    Handle set;
    const hsize_t count = openNumbers(group, name, full, H5T_INTEGER, "integers", set);
    std::vector<int> out = readInts(group, name, full, static_cast<long long>(count));
    long long sum = 0;
    for (int v : out) {
      if (v < lo || v > hi)
        r_.fail("dataset " + full + " holds " + std::to_string(v) + ", expected " +
                std::to_string(lo) + ".." + std::to_string(hi) + " " + unit + " each");
      sum += v;
    }
    if (sum != total)
      r_.fail("dataset " + full + " adds up to " + std::to_string(sum) + " " + unit +
              ", expected " + std::to_string(total) + " (" + of + ")");
    return out;
  }

  std::vector<int> readInts(hid_t group, const char* name, const std::string& full,
                            long long count) const {
    Handle set;
    const hsize_t n = openNumbers(group, name, full, H5T_INTEGER, "integers", set);
    if (static_cast<long long>(n) != count)
      r_.fail("dataset " + full + " has " + std::to_string(n) + " entries, expected " +
              std::to_string(count));
    const auto v = r_.readValues<std::int64_t>(set.get(), full, n, " as integers");
    std::vector<int> out(n);
    for (hsize_t k = 0; k < n; ++k) {
      if (v[k] < 0 || v[k] > std::numeric_limits<int>::max())
        r_.fail("dataset " + full + " holds " + std::to_string(v[k]) + " at " + std::to_string(k) +
                ", expected an index >= 0");
      out[k] = static_cast<int>(v[k]);
    }
    return out;
  }

  /// A vector of doubles; `count` < 0 accepts any length.
  VecX readReals(hid_t group, const char* name, const std::string& full, long long count) const {
    Handle set;
    const hsize_t n = openNumbers(group, name, full, H5T_FLOAT, "floating-point numbers", set);
    if (count >= 0 && static_cast<long long>(n) != count)
      r_.fail("dataset " + full + " has " + std::to_string(n) + " entries, expected " +
              std::to_string(count));
    const DoubleBuffer v = r_.readValues<double>(set.get(), full, n, " as doubles");
    VecX out(static_cast<Eigen::Index>(n));
    for (hsize_t k = 0; k < n; ++k) {
      if (!std::isfinite(v[k]))
        r_.fail("dataset " + full + " holds a non-finite value at " + std::to_string(k));
      out[static_cast<Eigen::Index>(k)] = v[k];
    }
    return out;
  }

  std::string readOptionalString(hid_t group, const char* name, const std::string& full) const {
    if (!exists(group, name)) return {};
    const Handle set = r_.openDataset(group, name, full);
    Handle type = hdf5::checked(H5Dget_type(set.get()), H5Tclose, r_.prefix(), full);
    if (H5Tget_class(type.get()) != H5T_STRING) r_.fail("dataset " + full + " is not a string");
    Handle space = hdf5::checked(H5Dget_space(set.get()), H5Sclose, r_.prefix(), full);
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
      r_.fail("dataset " + full + " is not a single string");
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle memory = hdf5::variableString(H5Tget_cset(type.get()), r_.prefix());
      char* text = nullptr;
      if (H5Dread(set.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0)
        hdf5::failHdf5(r_.prefix(), full);
      std::string value = text != nullptr ? text : "";
      H5free_memory(text);
      return value;
    }
    const std::size_t size = H5Tget_size(type.get());
    std::string value(size, '\0');
    if (size > 0 && H5Dread(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, value.data()) < 0)
      hdf5::failHdf5(r_.prefix(), full);
    value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
    return value;
  }

  /// Matrix group `name` of `parent`, which must be rows x cols (`expected` says why).
  SparseMatrixD readMatrix(hid_t parent, const char* name, const std::string& full, long long rows,
                           long long cols, const std::string& expected) const {
    const Handle g = r_.openGroup(parent, name, full);
    const hid_t id = g.get();
    const int m = readInt(id, "m", full + "/m");
    const int n = readInt(id, "n", full + "/n");
    const int nzmax = readInt(id, "nzmax", full + "/nzmax");
    const int nz = readInt(id, "nz", full + "/nz");
    if (m != rows || n != cols)
      r_.fail("matrix " + full + " is " + std::to_string(m) + " x " + std::to_string(n) +
              ", expected " + expected);
    if (nzmax < 0)
      r_.fail("dataset " + full + "/nzmax is " + std::to_string(nzmax) + ", expected >= 0");
    std::vector<Eigen::Triplet<double>> entries;
    if (nz >= 0) {  // triplets: i rows, p columns (CSparse's cs)
      const std::vector<int> row = readInts(id, "i", full + "/i", nz);
      const std::vector<int> col = readInts(id, "p", full + "/p", nz);
      const VecX x = readAtLeast(id, full, nz);
      for (int k = 0; k < nz; ++k) {
        checkIndex(row[k], m, full + "/i", k, "row");
        checkIndex(col[k], n, full + "/p", k, "column");
        entries.emplace_back(row[k], col[k], x[k]);
      }
    } else if (nz == -1 || nz == -2) {
      const bool by_columns = nz == -1;
      const int outer = by_columns ? n : m, inner = by_columns ? m : n;
      const std::vector<int> ptr = readInts(id, "p", full + "/p", outer + 1LL);
      const std::string pname = full + "/p";
      if (ptr[0] != 0)
        r_.fail("dataset " + pname + " starts at " + std::to_string(ptr[0]) + ", expected 0");
      for (int k = 0; k < outer; ++k)
        if (ptr[k + 1] < ptr[k])
          r_.fail("dataset " + pname + " decreases at " + std::to_string(k + 1) +
                  ": compressed pointers must not decrease");
      const int count = ptr[outer];
      if (count > nzmax)
        r_.fail("dataset " + pname + " ends at " + std::to_string(count) + ", beyond nzmax " +
                std::to_string(nzmax));
      Handle set;
      const hsize_t n_index = openNumbers(id, "i", full + "/i", H5T_INTEGER, "integers", set);
      if (static_cast<long long>(n_index) < count)
        r_.fail("dataset " + full + "/i has " + std::to_string(n_index) + " entries, expected " +
                std::to_string(count) + " (the last pointer of " + pname + ")");
      const std::vector<int> index =
          readInts(id, "i", full + "/i", static_cast<long long>(n_index));
      const VecX x = readAtLeast(id, full, count);
      for (int o = 0; o < outer; ++o)
        for (int k = ptr[o]; k < ptr[o + 1]; ++k) {
          checkIndex(index[k], inner, full + "/i", k, by_columns ? "row" : "column");
          entries.emplace_back(by_columns ? index[k] : o, by_columns ? o : index[k], x[k]);
        }
    } else {
      r_.fail("dataset " + full + "/nz is " + std::to_string(nz) +
              ", expected -1 (compressed columns), -2 (compressed rows) or a triplet count >= 0");
    }
    SparseMatrixD out(m, n);
    out.setFromTriplets(entries.begin(), entries.end());  // duplicates summed, as CSparse does
    return out;
  }

  VecX readAtLeast(hid_t id, const std::string& full, long long count) const {
    const VecX x = readReals(id, "x", full + "/x", -1);
    if (x.size() < count)
      r_.fail("dataset " + full + "/x has " + std::to_string(x.size()) + " entries, expected " +
              std::to_string(count));
    return x;
  }

  void checkIndex(int value, int bound, const std::string& full, int k, const char* what) const {
    if (value >= bound)
      r_.fail("dataset " + full + " holds " + what + " index " + std::to_string(value) + " at " +
              std::to_string(k) + ", expected below " + std::to_string(bound));
  }

  FclibSolution readSolution(hid_t group, const std::string& where, long long n, long long m,
                             long long p) const {
    FclibSolution s;
    const auto part = [&](const char* name, long long count, VecX& out) {
      if (count > 0 && exists(group, name)) out = readReals(group, name, where + name, count);
    };
    part("v", n, s.v);
    part("u", m, s.u);
    part("r", m, s.r);
    part("l", p, s.l);
    return s;
  }

  FileReader r_;
};

// ---------------------------------------------------------------------------------------------

class FclibWriter {
 public:
  FclibWriter(const std::string& path, FclibEncoding encoding)
      : context_("cannot write FCLib problem '" + path + "': "), encoding_(encoding) {}

  void write(const std::string& path, const FclibProblem& p) {
    hdf5::silenceHdf5();
    Handle file = hdf5::createFile(path, "cannot create FCLib problem '" + path + "': ");
    const bool global = p.form == FclibProblem::Form::Global;
    Handle main = group(file.get(), global ? "fclib_global" : "fclib_local");
    writeInt(main.get(), "spacedim", p.spacedim);
    Handle vectors = group(main.get(), "vectors");
    if (global) {
      matrix(main.get(), "M", p.M);
      matrix(main.get(), "H", p.H);
      if (p.G.cols() > 0) matrix(main.get(), "G", p.G);
      reals(vectors.get(), "f", p.f);
      reals(vectors.get(), "w", p.w);
      reals(vectors.get(), "mu", p.mu);
      if (p.G.cols() > 0) reals(vectors.get(), "b", p.b);
    } else {
      matrix(main.get(), "W", p.W);
      if (p.R.cols() > 0) {
        matrix(main.get(), "V", p.V);
        matrix(main.get(), "R", p.R);
      }
      reals(vectors.get(), "q", p.q);
      reals(vectors.get(), "mu", p.mu);
      if (p.R.cols() > 0) reals(vectors.get(), "s", p.s);
    }
    if (!p.title.empty() || !p.description.empty() || !p.math_info.empty()) {
      Handle info = group(main.get(), "info");
      if (!p.title.empty()) text(info.get(), "title", p.title);
      if (!p.description.empty()) text(info.get(), "description", p.description);
      if (!p.math_info.empty()) text(info.get(), "math_info", p.math_info);
    }
    if (global && (!p.subsystem_dof.empty() || !p.equality_rows.empty())) {
      Handle extra = group(file.get(), "subsim");
      if (!p.subsystem_dof.empty()) ints(extra.get(), "subsystem_dof", p.subsystem_dof);
      if (!p.equality_rows.empty()) ints(extra.get(), "equality_rows", p.equality_rows);
    }
    if (p.solution) {
      Handle s = group(file.get(), "solution");
      solution(s.get(), *p.solution);
    }
    if (!p.guesses.empty()) {
      Handle g = group(file.get(), "guesses");
      writeInt(g.get(), "number_of_guesses", static_cast<int>(p.guesses.size()));
      for (std::size_t k = 0; k < p.guesses.size(); ++k) {
        Handle one = group(g.get(), std::to_string(k + 1).c_str());
        solution(one.get(), p.guesses[k]);
      }
    }
    vectors.reset();
    main.reset();
    hdf5::checkStatus(file.close(), context_, "closing the file");
  }

 private:
  Handle group(hid_t parent, const char* name) {
    return hdf5::checked(H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         context_, std::string("group '") + name + "'");
  }
  // fclib.c writes every integer as a one-element vector (H5LTmake_dataset_int, dim 1).
  void writeInt(hid_t g, const char* name, int value) {
    hdf5::writeArray<int>(g, name, &value, 1, 0, context_);
  }
  void ints(hid_t g, const char* name, const std::vector<int>& v) {
    hdf5::writeArray<int>(g, name, v.data(), v.size(), 0, context_);
  }
  void reals(hid_t g, const char* name, const VecX& v) {
    hdf5::writeArray<double>(g, name, v.data(), static_cast<hsize_t>(v.size()), 0, context_);
  }
  void text(hid_t g, const char* name, const std::string& value) {
    // A scalar fixed-length string, as H5LTmake_dataset_string writes it.
    const std::string what = std::string("dataset '") + name + "'";
    Handle type = hdf5::checked(H5Tcopy(H5T_C_S1), H5Tclose, context_, what);
    hdf5::checkStatus(H5Tset_size(type.get(), value.size() + 1), context_, what);
    Handle space = hdf5::checked(H5Screate(H5S_SCALAR), H5Sclose, context_, what);
    Handle set = hdf5::checked(
        H5Dcreate2(g, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose, context_, what);
    hdf5::checkStatus(H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, value.c_str()),
                      context_, what);
  }
  void solution(hid_t g, const FclibSolution& s) {
    if (s.v.size() > 0) reals(g, "v", s.v);
    if (s.u.size() > 0) reals(g, "u", s.u);
    if (s.r.size() > 0) reals(g, "r", s.r);
    if (s.l.size() > 0) reals(g, "l", s.l);
  }
  void matrix(hid_t parent, const char* name, const SparseMatrixD& a) {
    Handle g = group(parent, name);
    const int m = static_cast<int>(a.rows()), n = static_cast<int>(a.cols());
    std::vector<int> p, i;
    VecX x;
    int nz = -1;
    if (encoding_ == FclibEncoding::CompressedRows) {
      Eigen::SparseMatrix<double, Eigen::RowMajor> rows = a;
      compressed(rows, p, i, x);
      nz = -2;
    } else {
      SparseMatrixD cols = a;
      compressed(cols, p, i, x);
      if (encoding_ == FclibEncoding::Triplet) {
        // Column pointers to per-entry column indices (CSparse's triplet: i rows, p columns).
        std::vector<int> col(x.size());
        for (int c = 0; c < n; ++c)
          for (int k = p[c]; k < p[c + 1]; ++k) col[k] = c;
        p = col;
        nz = static_cast<int>(x.size());
      }
    }
    writeInt(g.get(), "nzmax", static_cast<int>(x.size()));
    writeInt(g.get(), "m", m);
    writeInt(g.get(), "n", n);
    writeInt(g.get(), "nz", nz);
    ints(g.get(), "p", p);
    ints(g.get(), "i", i);
    reals(g.get(), "x", x);
  }
  template <class Sparse>
  static void compressed(Sparse& a, std::vector<int>& p, std::vector<int>& i, VecX& x) {
    a.makeCompressed();
    p.assign(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1);
    i.assign(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros());
    x = Eigen::Map<const VecX>(a.valuePtr(), a.nonZeros());
  }

  std::string context_;
  FclibEncoding encoding_;
};

void checkSizes(const FclibProblem& p) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("writeFclibFile: " + what);
  };
  if (p.spacedim != 3) fail("spacedim must be 3");
  const long long m = p.contactRows(), e = p.equalityRows();
  if (m % 3 != 0 || p.mu.size() != m / 3) fail("mu needs one entry per contact (3 rows each)");
  if (p.form == FclibProblem::Form::Global) {
    const long long n = p.M.rows();
    if (p.M.cols() != n || p.H.rows() != n || p.f.size() != n || p.w.size() != m)
      fail("M (n x n), H (n x m), f (n) and w (m) disagree");
    if (e > 0 && (p.G.rows() != n || p.b.size() != e)) fail("G (n x p) and b (p) disagree");
  } else {
    if (p.W.cols() != m || p.q.size() != m) fail("W (m x m) and q (m) disagree");
    if (e > 0 && (p.V.rows() != m || p.V.cols() != e || p.R.rows() != e || p.s.size() != e))
      fail("V (m x p), R (p x p) and s (p) disagree");
  }
}

}  // namespace

bool isFclibFile(const std::string& path) {
  try {
    hdf5::silenceHdf5();
    const FileReader reader(path, "problem", "FCLib", FileReader::Seal::IfPresent);
    const Handle file = reader.openFile();
    return H5Lexists(file.get(), "fclib_global", H5P_DEFAULT) > 0 ||
           H5Lexists(file.get(), "fclib_local", H5P_DEFAULT) > 0;
  } catch (const std::exception&) {
    return false;
  }
}

FclibProblem readFclibFile(const std::string& path) {
  return FclibReader(path).read();
}

void writeFclibFile(const std::string& path, const FclibProblem& problem, FclibEncoding encoding) {
  checkSizes(problem);
  FclibWriter(path, encoding).write(path, problem);
  sealFile(path);
}

}  // namespace subsim
