#pragma once
// FCLib files (the Frictional Contact Library's HDF5 format, which Siconos, LMGC90 and others read
// and write): one frictional contact problem per file, in its global or its local form, with an
// optional solution and initial guesses.  The layout is the one fclib.h / fclib.c define, written
// here from its public definition (docs/fclib.md has the layout and a worked example):
//
//   /fclib_global: spacedim, M (n x n), H (n x m), optional G (n x p), vectors/{f, w, mu, b},
//                  optional info/{title, description, math_info}
//       M v = H r + G lambda + f,   G^T v + b = 0,   u = H^T v + w,
//       per contact alpha (rows [N, T1, T2]): r in K_mu, u + [mu ||u_T||, 0, 0] in K_mu*, and the
//       two orthogonal (the De Saxce form of Signorini-Coulomb)
//   /fclib_local:  spacedim, W (m x m), optional V (m x p) and R (p x p), vectors/{q, mu, s}
//       u = W r + V lambda + q,   V^T r + R lambda + s = 0,   the same contact law
//   /solution, /guesses/{number_of_guesses, 1, 2, ...}: v, u, r, l (those of the form's sizes)
//   /subsim/{subsystem_dof, equality_rows}: subsim's own additions (FclibProblem)
//
// A matrix is a group {nzmax, m, n, nz, p, i, x} in CSparse's conventions, which fclib.h derives
// from: nz = -1 compressed columns (p: n + 1 column pointers, i: row indices), nz = -2 compressed
// rows (p: m + 1 row pointers, i: column indices), nz >= 0 triplets (nz entries; i: row indices,
// p: column indices).  Integers are read whatever their integer type, reals as doubles.
//
// Other programs write these files without subsim's seal (io/file_seal.hpp): the reader opens
// them as they are, after checking HDF5's signature, and refuses a file whose seal is present but
// does not fit.  Files subsim writes carry the seal, which other HDF5 readers ignore.
#include <Eigen/SparseCore>
#include <optional>
#include <string>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

using SparseMatrixD = Eigen::SparseMatrix<double>;  // compressed columns

/// How the writer stores the matrices (fclib_matrix::nz: -1, -2, or the entry count).
enum class FclibEncoding { CompressedColumns, CompressedRows, Triplet };

/// A solution or an initial guess (fclib_solution); a part the file does not hold is empty.
struct FclibSolution {
  VecX v;  // global velocity (global form only)
  VecX u;  // local velocity, m
  VecX r;  // contact impulse, m
  VecX l;  // equality multiplier, p
};

struct FclibProblem {
  enum class Form { Global, Local };
  Form form = Form::Global;
  int spacedim = 3;
  // Global form: M (n x n, SPD), H (n x m), G (n x p, p = 0 when absent), f (n), w (m), b (p).
  SparseMatrixD M, H, G;
  VecX f, w, b;
  // Local form: W (m x m, PSD), V (m x p) and R (p x p) (p = 0 when absent), q (m), s (p).
  SparseMatrixD W, V, R;
  VecX q, s;
  VecX mu;  // per contact, m / spacedim
  std::string title, description, math_info;
  /// subsim's addition, which other readers ignore: the DOF count of each subsystem of a global
  /// problem that subsim exported (/subsim/subsystem_dof), so that reading it back keeps them;
  /// empty when absent.
  std::vector<int> subsystem_dof;
  /// subsim's addition likewise: the row count of each equality constraint of a global problem,
  /// in G's column order (/subsim/equality_rows, each 1..6); empty: one row each.
  std::vector<int> equality_rows;
  std::optional<FclibSolution> solution;
  std::vector<FclibSolution> guesses;

  /// m: the contact rows (H's columns or W's rows).
  int contactRows() const { return static_cast<int>(form == Form::Global ? H.cols() : W.rows()); }
  /// p: the equality rows (G's or R's columns).
  int equalityRows() const { return static_cast<int>(form == Form::Global ? G.cols() : R.cols()); }
  int numContacts() const { return spacedim > 0 ? contactRows() / spacedim : 0; }
};

/// Reads an FCLib file.  Every defect is a std::runtime_error naming the file, the dataset and
/// what was expected: "cannot open FCLib problem 'PATH': REASON", "'PATH' is not a valid FCLib
/// problem: ..." (not HDF5, a seal that does not fit, neither /fclib_global nor /fclib_local,
/// a missing or mistyped dataset, sizes that disagree, an index out of range, pointers that
/// decrease, a non-finite value, a negative friction coefficient, spacedim other than 3).
FclibProblem readFclibFile(const std::string& path);

/// True when `path` is an HDF5 file holding /fclib_global or /fclib_local (never throws; false
/// for a file that cannot be opened or is not HDF5).
bool isFclibFile(const std::string& path);

/// Writes `problem` to `path` (created or truncated) in FCLib's layout with `encoding`, then
/// seals it.  std::invalid_argument when the sizes disagree; std::runtime_error("cannot write
/// FCLib problem 'PATH': ...") when HDF5 fails.
void writeFclibFile(const std::string& path, const FclibProblem& problem,
                    FclibEncoding encoding = FclibEncoding::CompressedColumns);

}  // namespace subsim
