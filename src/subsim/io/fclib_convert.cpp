#include "subsim/io/fclib_convert.hpp"

#include <numeric>
#include <stdexcept>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/formulation/subsystem_factor.hpp"

namespace subsim {

namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using Triplets = std::vector<Eigen::Triplet<double>>;

/// A connected block of M is stored sparse (step_problem.hpp, Subsystem) from this many DOF on
/// when at most this fraction of it is nonzero (an FEM body's), else dense, where it may not pass
/// kMaxDenseBlock DOF (8 n^2 bytes: 6000 DOF take 288 MB).
constexpr int kMinSparseBlock = 48;
constexpr double kMaxSparseDensity = 0.25;
constexpr int kMaxDenseBlock = 6000;

bool symmetric(const SparseMatrixD& a) {
  if (a.rows() == 0 || a.nonZeros() == 0) return a.rows() == a.cols();
  const SparseMatrixD t = a.transpose();
  return (a - t).norm() <= 1e-9 * (1.0 + a.norm());
}

/// Union-find root with path halving.
int root(std::vector<int>& parent, int k) {
  while (parent[k] != k) k = parent[k] = parent[parent[k]];
  return k;
}

/// The DOF count of each subsystem of M: the file's own partition when it names one (checked
/// against M), else the connected components of M's graph, each listed by its smallest DOF.
/// `order` receives the FCLib DOFs subsystem by subsystem.
std::vector<int> partition(const FclibProblem& f, const std::string& prefix,
                           std::vector<int>& order) {
  const int n = static_cast<int>(f.M.rows());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  if (!f.subsystem_dof.empty()) {
    std::vector<int> block(n);
    int start = 0;
    for (std::size_t s = 0; s < f.subsystem_dof.size(); ++s) {
      for (int k = 0; k < f.subsystem_dof[s]; ++k) block[start + k] = static_cast<int>(s);
      start += f.subsystem_dof[s];
    }
    for (int c = 0; c < n; ++c)
      for (SparseMatrixD::InnerIterator it(f.M, c); it; ++it)
        if (block[it.row()] != block[c] && it.value() != 0.0)
          throw std::runtime_error(prefix + "M(" + std::to_string(it.row()) + ", " +
                                   std::to_string(c) +
                                   ") couples two of the subsystems /subsim/subsystem_dof names");
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    return f.subsystem_dof;
  }
  for (int c = 0; c < n; ++c)
    for (SparseMatrixD::InnerIterator it(f.M, c); it; ++it)
      if (it.value() != 0.0) parent[root(parent, static_cast<int>(it.row()))] = root(parent, c);
  std::vector<int> component(n, -1);  // by DOF: its component, numbered by smallest DOF
  std::vector<int> sizes;
  std::vector<int> index_of_root(n, -1);
  for (int k = 0; k < n; ++k) {
    const int r = root(parent, k);
    if (index_of_root[r] < 0) {
      index_of_root[r] = static_cast<int>(sizes.size());
      sizes.push_back(0);
    }
    component[k] = index_of_root[r];
    ++sizes[component[k]];
  }
  std::vector<int> start(sizes.size() + 1, 0);
  for (std::size_t s = 0; s < sizes.size(); ++s) start[s + 1] = start[s] + sizes[s];
  order.resize(n);
  for (int k = 0; k < n; ++k) order[start[component[k]]++] = k;
  return sizes;
}

StepSolution solutionOf(const FclibSolution& s, const std::vector<int>& order, int m, int p) {
  StepSolution out;
  const int n = static_cast<int>(order.size());
  if (n > 0 && s.v.size() == n) {
    out.vhat.resize(n);
    for (int k = 0; k < n; ++k) out.vhat[k] = s.v[order[k]];
  }
  if (s.r.size() == m && (p == 0 || s.l.size() == p)) {
    out.lambda.resize(m + p);
    out.lambda.head(m) = s.r;
    if (p > 0) out.lambda.tail(p) = s.l;
  }
  return out;
}

void importGlobal(const FclibProblem& f, const std::string& prefix, FclibImport& out) {
  StepProblem& p = out.problem;
  const int n = static_cast<int>(f.M.rows());
  if (n == 0) throw std::runtime_error(prefix + "M has no rows: a global problem needs DOFs");
  if (!symmetric(f.M)) throw std::runtime_error(prefix + "M is not symmetric");
  const std::vector<int> sizes = partition(f, prefix, out.dof_order);
  std::vector<int> sub_of(n), local_of(n);
  for (int k = 0, s = 0; s < static_cast<int>(sizes.size()); ++s)
    for (int l = 0; l < sizes[s]; ++l, ++k) {
      sub_of[out.dof_order[k]] = s;
      local_of[out.dof_order[k]] = l;
    }
  std::vector<long long> entries(sizes.size(), 0);
  for (int c = 0; c < n; ++c)
    entries[sub_of[c]] += f.M.outerIndexPtr()[c + 1] - f.M.outerIndexPtr()[c];
  // A sparse block's pattern: M's entries with every diagonal one, column by column in the
  // component's order (increasing DOF, so rows stay increasing within a column).
  std::vector<int> begin, pattern;
  for (std::size_t s = 0, k = 0; s < sizes.size(); k += sizes[s], ++s) {
    const long long dof = sizes[s];
    if (dof < kMinSparseBlock || entries[s] > kMaxSparseDensity * dof * dof) {
      if (dof > kMaxDenseBlock)
        throw std::runtime_error(prefix + "a connected block of M has " + std::to_string(dof) +
                                 " DOF and " + std::to_string(entries[s]) +
                                 " nonzeros, too dense to store sparse; subsim holds a dense "
                                 "block of at most " +
                                 std::to_string(kMaxDenseBlock) + " DOF");
      p.addSubsystem(sizes[s]);
      continue;
    }
    begin.assign(1, 0);
    pattern.clear();
    for (int l = 0; l < sizes[s]; ++l) {
      const int c = out.dof_order[k + l];
      bool diagonal = false;
      for (SparseMatrixD::InnerIterator it(f.M, c); it; ++it) {
        const int r = local_of[it.row()];
        if (!diagonal && r >= l) {
          if (r > l) pattern.push_back(l);
          diagonal = true;
        }
        pattern.push_back(r);
      }
      if (!diagonal) pattern.push_back(l);
      begin.push_back(static_cast<int>(pattern.size()));
    }
    p.addSparseSubsystem(sizes[s], begin, pattern);
  }
  for (int c = 0; c < n; ++c)
    for (SparseMatrixD::InnerIterator it(f.M, c); it; ++it) {
      const int s = sub_of[c];
      if (p.isSparse(s))
        p.sparseA(s).coeffRef(local_of[it.row()], local_of[c]) = it.value();
      else
        p.A(s)(local_of[it.row()], local_of[c]) = it.value();
    }
  for (int d = 0; d < n; ++d) p.b[p.subsystems[sub_of[d]].dof_offset + local_of[d]] = f.f[d];
  for (int s = 0; s < p.numSubsystems(); ++s) {
    if (SubsystemFactor().compute(p, s)) continue;
    const int first = out.dof_order[p.subsystems[s].dof_offset];
    throw std::runtime_error(prefix + "M is not positive definite: its block of " +
                             std::to_string(p.subsystems[s].dof) + " DOF from DOF " +
                             std::to_string(first) + " (subsystem " + std::to_string(s) +
                             ") has no Cholesky factor");
  }
  // Contacts, then one bilateral row per column of G; J from the rows of H^T and G^T.
  const RowSparse ht = f.H.transpose(), gt = f.G.transpose();
  const int m = static_cast<int>(f.H.cols()), pe = static_cast<int>(f.G.cols());
  const auto addRows = [&](const RowSparse& rows, int first, int count) {
    for (int r = 0; r < count; ++r) {
      bool touched = false;
      for (RowSparse::InnerIterator it(rows, first + r); it; ++it) {
        p.jacobianFor(sub_of[it.col()])(r, local_of[it.col()]) = it.value();
        touched = true;
      }
      // A row acting on nothing keeps a (zero) block, so that every constraint is attached.
      if (!touched && r == count - 1 && p.constraints.back().num_attachments == 0) p.jacobianFor(0);
    }
  };
  for (int alpha = 0; alpha < m / 3; ++alpha) {
    const int j = p.addConstraint(ConstraintType::Contact, 3, f.mu[alpha],
                                  static_cast<std::uint64_t>(alpha) + 1);
    addRows(ht, 3 * alpha, 3);
    for (int r = 0; r < 3; ++r) p.e[p.constraints[j].row_offset + r] = f.w[3 * alpha + r];
  }
  // Equality rows one constraint each, or grouped as /subsim/equality_rows says.
  const std::vector<int> groups =
      f.equality_rows.empty() ? std::vector<int>(pe, 1) : f.equality_rows;
  for (int g = 0, row = 0; g < static_cast<int>(groups.size()); row += groups[g++]) {
    const int j = p.addConstraint(ConstraintType::Bilateral, groups[g], 0.0,
                                  static_cast<std::uint64_t>(m / 3 + g) + 1);
    addRows(gt, row, groups[g]);
    for (int r = 0; r < groups[g]; ++r) p.e[p.constraints[j].row_offset + r] = f.b[row + r];
  }
  if (f.solution) out.solution = solutionOf(*f.solution, out.dof_order, m, pe);
  for (const FclibSolution& g : f.guesses)
    out.guesses.push_back(solutionOf(g, out.dof_order, m, pe));
}

void importLocal(const FclibProblem& f, const std::string& prefix, FclibImport& out) {
  StepProblem& p = out.problem;
  const int m = static_cast<int>(f.W.rows()), pe = static_cast<int>(f.R.cols());
  Triplets entries;
  const auto add = [&entries](const SparseMatrixD& a, int row0, int col0, bool transpose) {
    for (int c = 0; c < a.outerSize(); ++c)
      for (SparseMatrixD::InnerIterator it(a, c); it; ++it) {
        const int r = static_cast<int>(it.row());
        entries.emplace_back(row0 + (transpose ? c : r), col0 + (transpose ? r : c), it.value());
      }
  };
  add(f.W, 0, 0, false);
  if (pe > 0) {
    add(f.V, 0, m, false);
    add(f.V, m, 0, true);
    add(f.R, m, m, false);
  }
  RowSparse w(m + pe, m + pe);
  w.setFromTriplets(entries.begin(), entries.end());
  w.makeCompressed();
  for (int alpha = 0; alpha < m / 3; ++alpha) {
    const int j = p.addConstraint(ConstraintType::Contact, 3, f.mu[alpha],
                                  static_cast<std::uint64_t>(alpha) + 1);
    for (int r = 0; r < 3; ++r) p.e[p.constraints[j].row_offset + r] = f.q[3 * alpha + r];
  }
  for (int row = 0; row < pe; ++row) {
    const int j = p.addConstraint(ConstraintType::Bilateral, 1, 0.0,
                                  static_cast<std::uint64_t>(m / 3 + row) + 1);
    p.e[p.constraints[j].row_offset] = f.s[row];
  }
  p.local_w.row_begin.assign(w.outerIndexPtr(), w.outerIndexPtr() + w.outerSize() + 1);
  p.local_w.column.assign(w.innerIndexPtr(), w.innerIndexPtr() + w.nonZeros());
  p.local_w.value.assign(w.valuePtr(), w.valuePtr() + w.nonZeros());
  if (f.solution) out.solution = solutionOf(*f.solution, {}, m, pe);
  for (const FclibSolution& g : f.guesses) out.guesses.push_back(solutionOf(g, {}, m, pe));
  const std::string defect = p.check();
  if (!defect.empty()) throw std::runtime_error(prefix + "[W V; V^T R]: " + defect);
}

/// Where each row of a StepProblem goes in FCLib's form.  Contacts keep their three rows; a
/// unilateral row (0 <= lambda _|_ J vhat + e >= 0) is a frictionless contact (mu = 0) whose
/// tangent rows are zero, which the De Saxce form makes exactly the same condition; bilateral rows
/// are equality rows; soft rows (lambda = -k e - c J vhat) are folded into M and f by the global
/// form, (A + c J^T J) vhat = b - k e J^T, and are regularised equality rows of the local form
/// (as DelassusForm poses them), which cannot hold one without damping.
struct RowPlan {
  std::vector<int> contact_rows;  // 3 per FCLib contact: the source row, or -1 for a zero row
  std::vector<double> mu;         // per FCLib contact
  std::vector<int> equality_rows;
  std::vector<int> folded_rows;  // soft rows, global form
};

RowPlan planRows(const StepProblem& problem, bool global) {
  if (problem.hasAnisotropicFriction())
    throw std::invalid_argument(
        "FCLib's friction problems have one coefficient per contact (an isotropic cone), and this "
        "problem has anisotropic friction (Constraint::mu_t2): it has no FCLib form");
  RowPlan plan;
  int undamped = 0;
  for (const Constraint& c : problem.constraints) {
    if (c.type == ConstraintType::Contact) {
      for (int r = 0; r < 3; ++r) plan.contact_rows.push_back(c.row_offset + r);
      plan.mu.push_back(c.mu);
      continue;
    }
    for (int r = 0; r < c.rows; ++r) {
      const int row = c.row_offset + r;
      if (c.type == ConstraintType::Unilateral) {
        plan.contact_rows.insert(plan.contact_rows.end(), {row, -1, -1});
        plan.mu.push_back(0.0);
      } else if (c.type == ConstraintType::Bilateral) {
        plan.equality_rows.push_back(row);
      } else if (global) {
        plan.folded_rows.push_back(row);
      } else if (problem.soft_c[row] > 0.0) {
        plan.equality_rows.push_back(row);
      } else {
        ++undamped;
      }
    }
  }
  if (undamped > 0)
    throw std::invalid_argument(
        "FCLib's local form cannot hold this problem's " + std::to_string(undamped) +
        " soft row(s) without damping (explicit springs: lambda = -k e, no equation in lambda); "
        "export the global form, which folds them into M and f");
  return plan;
}

/// Rows `rows` of vector `x` stacked, 0 for a row -1.
VecX gather(const VecX& x, const std::vector<int>& rows) {
  VecX out(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k)
    out[static_cast<Eigen::Index>(k)] = rows[k] >= 0 ? x[rows[k]] : 0.0;
  return out;
}

/// Each source row's place in `rows` (-1: not there).
std::vector<int> placesOf(const std::vector<int>& rows, int count) {
  std::vector<int> place(count, -1);
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] >= 0) place[rows[k]] = static_cast<int>(k);
  return place;
}

}  // namespace

FclibImport stepProblemFromFclib(const FclibProblem& fclib, const std::string& path) {
  const std::string prefix = "'" + path + "' is not a valid FCLib problem: ";
  FclibImport out;
  out.problem.clear();
  if (fclib.form == FclibProblem::Form::Global) {
    importGlobal(fclib, prefix, out);
    const std::string defect = out.problem.check();
    if (!defect.empty()) throw std::runtime_error(prefix + defect);
  } else {
    if (!symmetric(fclib.W)) throw std::runtime_error(prefix + "W is not symmetric");
    importLocal(fclib, prefix, out);
  }
  return out;
}

FclibProblem fclibGlobalFromStepProblem(const StepProblem& problem,
                                        const FclibExportOptions& options) {
  if (problem.hasLocalForm())
    throw std::invalid_argument(
        "this problem is given in its local form (W, q) only: it has no global form (export it "
        "in the local form)");
  const RowPlan plan = planRows(problem, true);
  FclibProblem f;
  f.form = FclibProblem::Form::Global;
  f.title = options.title;
  f.description = options.description;
  const int n = problem.numDof(), nr = problem.numRows();
  const int m = static_cast<int>(plan.contact_rows.size());
  const int pe = static_cast<int>(plan.equality_rows.size());
  const std::vector<int> h_col = placesOf(plan.contact_rows, nr);
  const std::vector<int> g_col = placesOf(plan.equality_rows, nr);
  Triplets mt, ht, gt;
  for (int s = 0; s < problem.numSubsystems(); ++s) {
    const int o = problem.subsystems[s].dof_offset;
    problem.forEachEntryA(s, [&](int r, int c, double value) {
      if (value != 0.0) mt.emplace_back(o + r, o + c, value);
    });
  }
  // The folded soft rows' J, gathered over their attachments.
  std::vector<int> folded_index(nr, -1);
  for (std::size_t k = 0; k < plan.folded_rows.size(); ++k)
    folded_index[plan.folded_rows[k]] = static_cast<int>(k);
  std::vector<std::vector<std::pair<int, double>>> folded(plan.folded_rows.size());
  for (const Constraint& c : problem.constraints)
    for (int q = 0; q < c.num_attachments; ++q) {
      const Attachment& a = problem.attachments[c.first_attachment + q];
      const int offset = problem.subsystems[a.subsystem].dof_offset;
      problem.forEachEntryJ(a, [&](int r, int d, double value) {
        if (value == 0.0) return;
        const int row = c.row_offset + r;
        if (h_col[row] >= 0)
          ht.emplace_back(offset + d, h_col[row], value);
        else if (g_col[row] >= 0)
          gt.emplace_back(offset + d, g_col[row], value);
        else
          folded[folded_index[row]].emplace_back(offset + d, value);
      });
    }
  f.f = Eigen::Map<const VecX>(problem.b.data(), n);
  for (std::size_t k = 0; k < folded.size(); ++k) {
    const int row = plan.folded_rows[k];
    const double c = problem.soft_c[row], ke = problem.soft_k[row] * problem.e[row];
    for (const auto& [i, ji] : folded[k]) {
      f.f[i] -= ke * ji;
      if (c != 0.0)
        for (const auto& [j, jj] : folded[k]) mt.emplace_back(i, j, c * ji * jj);
    }
  }
  // The subsystems only when M keeps them (folded soft rows may join two); the bilateral
  // constraints' row counts, so that reading back groups their rows again.
  if (plan.folded_rows.empty())
    for (const Subsystem& sub : problem.subsystems) f.subsystem_dof.push_back(sub.dof);
  for (const Constraint& c : problem.constraints)
    if (c.type == ConstraintType::Bilateral) f.equality_rows.push_back(c.rows);
  f.M.resize(n, n);
  f.M.setFromTriplets(mt.begin(), mt.end());
  f.H.resize(n, m);
  f.H.setFromTriplets(ht.begin(), ht.end());
  f.G.resize(n, pe);
  f.G.setFromTriplets(gt.begin(), gt.end());
  const VecX e = Eigen::Map<const VecX>(problem.e.data(), nr);
  f.w = gather(e, plan.contact_rows);
  f.b = gather(e, plan.equality_rows);
  f.mu = Eigen::Map<const VecX>(plan.mu.data(), static_cast<Eigen::Index>(plan.mu.size()));
  const auto solution = [&](const StepSolution& s) {
    FclibSolution out;
    if (s.vhat.size() == n) {
      out.v = s.vhat;
      out.u = f.H.transpose() * s.vhat + f.w;
    }
    if (s.lambda.size() == nr) {
      out.r = gather(s.lambda, plan.contact_rows);
      out.l = gather(s.lambda, plan.equality_rows);
    }
    return out;
  };
  if (options.guess != nullptr) f.guesses.push_back(solution(*options.guess));
  if (options.solution != nullptr) f.solution = solution(*options.solution);
  return f;
}

FclibProblem fclibLocalFromStepProblem(const StepProblem& problem,
                                       const FclibExportOptions& options) {
  const RowPlan plan = planRows(problem, false);
  DelassusForm form;
  if (!form.build(problem))
    throw std::invalid_argument(
        "a subsystem's A_i is not positive definite: the problem has no Delassus operator");
  FclibProblem f;
  f.form = FclibProblem::Form::Local;
  f.title = options.title;
  f.description = options.description;
  const int nr = problem.numRows();
  const int m = static_cast<int>(plan.contact_rows.size());
  const int pe = static_cast<int>(plan.equality_rows.size());
  // Each row's place: contacts first, then the equality rows.
  std::vector<int> place = placesOf(plan.contact_rows, nr);
  for (int k = 0; k < pe; ++k) place[plan.equality_rows[k]] = m + k;
  Triplets wt, vt, rt;
  const auto addBlock = [&](const Constraint& cj, const Constraint& ck, const double* block) {
    for (int r = 0; r < cj.rows; ++r)
      for (int c = 0; c < ck.rows; ++c) {
        const double v = block[r * ck.rows + c];
        const int i = place[cj.row_offset + r], j = place[ck.row_offset + c];
        if (v == 0.0) continue;
        if (i < m && j < m)
          wt.emplace_back(i, j, v);
        else if (i < m)
          vt.emplace_back(i, j - m, v);
        else if (j >= m)
          rt.emplace_back(i - m, j - m, v);
        // (i >= m, j < m) is V^T: FCLib stores V alone.
      }
  };
  for (int j = 0; j < problem.numConstraints(); ++j) {
    const Constraint& cj = problem.constraints[j];
    addBlock(cj, cj, form.diagonalBlock(j));
    for (int e = form.neighbourBegin(j); e < form.neighbourEnd(j); ++e)
      addBlock(cj, problem.constraints[form.neighbourConstraint(e)], form.neighbourBlock(e));
  }
  f.W.resize(m, m);
  f.W.setFromTriplets(wt.begin(), wt.end());
  f.V.resize(m, pe);
  f.V.setFromTriplets(vt.begin(), vt.end());
  f.R.resize(pe, pe);
  f.R.setFromTriplets(rt.begin(), rt.end());
  const VecX c = Eigen::Map<const VecX>(form.rhs().data(), nr);
  f.q = gather(c, plan.contact_rows);
  f.s = gather(c, plan.equality_rows);
  f.mu = Eigen::Map<const VecX>(plan.mu.data(), static_cast<Eigen::Index>(plan.mu.size()));
  const auto solution = [&](const StepSolution& s) {
    FclibSolution out;
    if (s.lambda.size() == nr) {
      out.r = gather(s.lambda, plan.contact_rows);
      out.l = gather(s.lambda, plan.equality_rows);
      out.u = f.W * out.r + f.q;
      if (pe > 0) out.u += f.V * out.l;
    }
    return out;
  };
  if (options.guess != nullptr) f.guesses.push_back(solution(*options.guess));
  if (options.solution != nullptr) f.solution = solution(*options.solution);
  return f;
}

}  // namespace subsim
