#include "subsim/solvers/substructuring_solver.hpp"

#include "subsim/solvers/box_mlcp_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>

namespace subsim {

namespace {
using Triplets = std::vector<Eigen::Triplet<double, int>>;
}  // namespace

SubstructuringSolver::SubstructuringSolver(Variant variant) : variant_(variant) {}

const OptionTable<SubstructuringOptions>& SubstructuringSolver::optionTable() {
  using O = SubstructuringOptions;
  static const OptionTable<O> table = [] {
    OptionTable<O> t;
    t.choice("partition", &O::partition,
             {{"min-degree", PartitionMethod::MinimumDegree},
              {"sequential", PartitionMethod::Sequential},
              {"semantic", PartitionMethod::Semantic},
              {"single", PartitionMethod::Single}},
             "how bodies are grouped: the paper's minimum-degree Algorithm 2, n_max "
             "subsystems in index order (chains, cables), the substructures the scene declares "
             "(bodies' substructure; the rest in index order), or one group")
        .integer("n_max", &O::n_max, 1, 1000000, "bodies",
                 "bodies per group at most (semantic: per group of undeclared bodies)")
        .integer("k_max", &O::k_max, 0, 1000000, "iterations",
                 "coupling iterations at most; 0: the paper's 10 (fbic: 250)")
        .number("epsilon", &O::epsilon, NumberRange::positive(), "-",
                "schur-pgs-sm: the interface solve stops below this natural residual")
        .flag("whole_system_fallback", &O::whole_system_fallback,
              "schur-*: a step whose last coupling iteration left a solve unsolved, or whose "
              "coupling revisits earlier index sets, is solved whole by BPP from its warm start "
              "(not in the paper)");
    addBoxMlcpOptions(t);
    return t;
  }();
  return table;
}

std::string_view SubstructuringSolver::name() const {
  switch (variant_) {
    case Variant::SchurBpp:
      return "schur-bpp";
    case Variant::SchurPgsSm:
      return "schur-pgs-sm";
    case Variant::Fbic:
      break;
  }
  return "fbic";
}

void SubstructuringSolver::split() {
  const SparseMatrixCsc& a = form_.matrix();
  const int n = form_.numRows();
  const int ng = partition_.num_groups;
  const int ni = partition_.numInterfaceRows();
  row_group_.assign(n, -1);
  row_local_.assign(n, -1);
  while (static_cast<int>(groups_.size()) < ng) groups_.push_back(std::make_unique<Group>());
  for (int g = 0; g < ng; ++g)
    for (int q = partition_.row_begin[g]; q < partition_.row_begin[g + 1]; ++q) {
      row_group_[partition_.rows[q]] = g;
      row_local_[partition_.rows[q]] = q - partition_.row_begin[g];
    }
  for (int i = 0; i < ni; ++i) row_local_[partition_.interface_rows[i]] = i;

  std::vector<Triplets> internal(ng), coupling(ng);
  a_gamma_.clear();
  for (int col = 0; col < n; ++col) {
    const int gc = row_group_[col];
    for (SparseMatrixCsc::InnerIterator it(a, col); it; ++it) {
      const int gr = row_group_[it.row()];
      if (gr >= 0 && gr == gc)
        internal[gr].emplace_back(row_local_[it.row()], row_local_[col], it.value());
      else if (gr >= 0 && gc < 0)
        coupling[gr].emplace_back(row_local_[it.row()], row_local_[col], it.value());
      else if (gr < 0 && gc < 0)
        a_gamma_.emplace_back(row_local_[it.row()], row_local_[col], it.value());
      // gr < 0 <= gc: the transpose of a coupling entry.  Two different groups share no
      // subsystem, so A has no entry between their rows.
    }
  }
  const VecX& b = form_.rhs();
  for (int g = 0; g < ng; ++g) {
    Group& gr = *groups_[g];
    const int rows = partition_.row_begin[g + 1] - partition_.row_begin[g];
    gr.a.resize(rows, rows);
    gr.a.setFromTriplets(internal[g].begin(), internal[g].end());
    gr.coupled.clear();
    for (const auto& t : coupling[g]) gr.coupled.push_back(t.col());
    std::sort(gr.coupled.begin(), gr.coupled.end());
    gr.coupled.erase(std::unique(gr.coupled.begin(), gr.coupled.end()), gr.coupled.end());
    for (auto& t : coupling[g]) {
      const int c = static_cast<int>(
          std::lower_bound(gr.coupled.begin(), gr.coupled.end(), t.col()) - gr.coupled.begin());
      t = Eigen::Triplet<double, int>(t.row(), c, t.value());
    }
    gr.coupling.resize(rows, static_cast<int>(gr.coupled.size()));
    gr.coupling.setFromTriplets(coupling[g].begin(), coupling[g].end());
    gr.b0.resize(rows);
    gr.lower.resize(rows);
    gr.upper.resize(rows);
    for (int q = 0; q < rows; ++q) {
      const int r = partition_.rows[partition_.row_begin[g] + q];
      gr.b0[q] = b[r];
      gr.lower[q] = form_.lower()[r];
      gr.upper[q] = form_.upper()[r];
    }
    gr.pivoting.invalidate();
    gr.failed = false;
  }
  b_gamma_.resize(ni);
  lower_gamma_.resize(ni);
  upper_gamma_.resize(ni);
  for (int i = 0; i < ni; ++i) {
    const int r = partition_.interface_rows[i];
    b_gamma_[i] = b[r];
    lower_gamma_[i] = form_.lower()[r];
    upper_gamma_[i] = form_.upper()[r];
  }
  interface_.invalidate();
}

bool SubstructuringSolver::schurComplement(int threads) {
  const int ng = partition_.num_groups;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int g = 0; g < ng; ++g) {
    Group& gr = *groups_[g];
    gr.before = gr.sets;
    PivotingResult unused;
    const SparseBoxMatrix a{&gr.a};
    gr.failed = !gr.pivoting.factorFree(a, gr.sets, unused);
    if (gr.failed) continue;
    const std::vector<int>& free = gr.pivoting.freeRows();
    const int rows = static_cast<int>(gr.a.rows());
    const int nf = static_cast<int>(free.size());
    const int m = static_cast<int>(gr.coupled.size());
    gr.free_position.assign(rows, -1);
    for (int q = 0; q < nf; ++q) gr.free_position[free[q]] = q;
    gr.tight.resize(rows);
    for (int q = 0; q < rows; ++q)
      gr.tight[q] = gr.sets[q] == BoxIndex::Lower   ? gr.lower[q]
                    : gr.sets[q] == BoxIndex::Upper ? gr.upper[q]
                                                    : 0.0;
    // G_F^T, K = A_FF^{-1} G_F^T and the contribution G_F K to S (24).
    gr.gt.setZero(nf, m);
    for (int c = 0; c < m; ++c)
      for (SparseMatrixCsc::InnerIterator it(gr.coupling, c); it; ++it)
        if (gr.free_position[it.row()] >= 0) gr.gt(gr.free_position[it.row()], c) = it.value();
    gr.k = gr.gt;
    gr.pivoting.solveFreeBlock(gr.k);
    gr.s.noalias() = gr.gt.transpose() * gr.k;
    // The contribution G_T lambda_T - K^T (b_F + A_FT lambda_T) to z (25).
    gr.b.noalias() = gr.a * gr.tight;
    gr.t.resize(nf);
    for (int q = 0; q < nf; ++q) gr.t[q] = gr.b0[free[q]] + gr.b[free[q]];
    gr.z.noalias() = gr.coupling.transpose() * gr.tight;
    gr.z.noalias() -= gr.k.transpose() * gr.t;
  }
  s_triplets_ = a_gamma_;
  z_ = b_gamma_;
  bool ok = true;
  for (int g = 0; g < ng; ++g) {
    const Group& gr = *groups_[g];
    ok = ok && !gr.failed;
    if (gr.failed) continue;
    const int m = static_cast<int>(gr.coupled.size());
    for (int c = 0; c < m; ++c) {
      z_[gr.coupled[c]] += gr.z[c];
      for (int r = 0; r < m; ++r)
        s_triplets_.emplace_back(gr.coupled[r], gr.coupled[c], -gr.s(r, c));
    }
  }
  // Summed in group order (setFromTriplets adds duplicates in the order given): the same bits on
  // any thread count.
  const int ni = partition_.numInterfaceRows();
  s_.resize(ni, ni);
  s_.setFromTriplets(s_triplets_.begin(), s_triplets_.end());
  return ok;
}

bool SubstructuringSolver::solveGroups(int threads, const PivotingSettings& ps) {
  const int ng = partition_.num_groups;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int g = 0; g < ng; ++g) {
    Group& gr = *groups_[g];
    const int m = static_cast<int>(gr.coupled.size());
    gr.xg.resize(m);
    for (int c = 0; c < m; ++c) gr.xg[c] = x_gamma_[gr.coupled[c]];
    gr.b = gr.b0;
    gr.b.noalias() += gr.coupling * gr.xg;
    const PivotingResult r = gr.pivoting.blockPivoting(SparseBoxMatrix{&gr.a}, gr.b, gr.lower,
                                                       gr.upper, ps, gr.sets, gr.x);
    gr.failed = r.factor_failed;
    gr.unsolved = !r.solved;
    gr.changed = gr.sets != gr.before;
  }
  bool ok = true;
  for (int g = 0; g < ng; ++g) ok = ok && !groups_[g]->failed;
  return ok;
}

void SubstructuringSolver::solveWhole(const PivotingSettings& ps, bool warm, VecX& lambda,
                                      double& residual) {
  ++whole_system_solves_;
  // From where the step started, as bpp starts: the clamped warm start, or zero.
  if (warm)
    whole_x_ = previous_.cwiseMax(form_.lower()).cwiseMin(form_.upper());
  else
    whole_x_.setZero(form_.numRows());
  indexSetsFrom(whole_x_, form_.lower(), form_.upper(), options_.eta, whole_sets_);
  whole_.invalidate();
  const PivotingResult r =
      whole_.blockPivoting(SparseBoxMatrix{&form_.matrix()}, form_.rhs(), form_.lower(),
                           form_.upper(), ps, whole_sets_, whole_x_);
  if (r.factor_failed) return;
  double whole_residual = 0.0, two_norm = 0.0;
  form_.naturalResidual(whole_x_, whole_residual, two_norm);
  if (whole_residual < residual) {
    lambda = whole_x_;
    residual = whole_residual;
  }
}

void SubstructuringSolver::solve(const StepProblem& p, const SolverSettings& settings,
                                 StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  requireSubsystems(p, name());
  const bool warm = sol.lambda.size() == p.numRows();
  if (warm) previous_ = sol.lambda;
  const bool factored = form_.build(p, warm ? &previous_ : nullptr,
                                    BoxMlcpSettings{options_.compliance}, settings.threads);
  SolveStats& st = sol.stats;
  const int k_max = options_.k_max > 0 ? options_.k_max : variant_ == Variant::Fbic ? 250 : 10;
  requireIsotropicFriction(p, name());
  const int max_it = std::min(beginStats(st, "natural residual max (29)", settings), k_max);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  partitionSubstructures(p, options_.partition, options_.n_max, partition_);
  split();

  // Index sets and impulses from the warm start.
  VecX& lambda = sol.lambda;
  if (!warm) lambda.setZero(p.numRows());
  lambda = lambda.cwiseMax(form_.lower()).cwiseMin(form_.upper());
  const int ng = partition_.num_groups;
  const int ni = partition_.numInterfaceRows();
  for (int g = 0; g < ng; ++g) {
    Group& gr = *groups_[g];
    const int rows = static_cast<int>(gr.a.rows());
    gr.x.resize(rows);
    for (int q = 0; q < rows; ++q) gr.x[q] = lambda[partition_.rows[partition_.row_begin[g] + q]];
    indexSetsFrom(gr.x, gr.lower, gr.upper, options_.eta, gr.sets);
  }
  x_gamma_.resize(ni);
  for (int i = 0; i < ni; ++i) x_gamma_[i] = lambda[partition_.interface_rows[i]];
  indexSetsFrom(x_gamma_, lower_gamma_, upper_gamma_, options_.eta, sets_gamma_);

  PivotingSettings ps = pivotingSettingsOf(options_);
  ps.epsilon = options_.epsilon;
  // No fallback inside the coupling's solves (measured when it was PGS-SM alone): FBIC repeats
  // its group solves up to 250 times a step (chaindrop took 7.6 s a step with it, 4.9 s
  // without), and with the whole-system fallback an unsolved solve ends the coupling anyway
  // (chaindrop, 30 steps: schur-bpp 275 ms a step, 308 ms with the fallback in the groups too).
  // With no interface rows FBIC has nothing to alternate with: its group solves are the whole
  // answer, solved once, and keep the fallback (the boltnut's Panda, one group of 9 DOF and 54
  // contacts: BPP's pivots ran out and, without it, the nut sank 0.8 mm into the bolt).
  if ((variant_ == Variant::Fbic && partition_.numInterfaceRows() > 0) ||
      (variant_ != Variant::Fbic && options_.whole_system_fallback))
    ps.fallback = false;
  int iterations = 0;
  bool ok = true;
  bool exact = true;     // every solve of the last coupling iteration solved its box MLCP
  bool settled = false;  // and no index set changed in it
  visited_sets_.clear();
  visited_sets_.reserve(std::min(max_it, 256));
  for (int k = 0; k < max_it && ok; ++k) {
    if (settings.on_iteration) settings.on_iteration(k);
    iterations = k + 1;
    sets_gamma_before_ = sets_gamma_;
    x_gamma_before_ = x_gamma_;
    bool changed = false;
    if (variant_ == Variant::Fbic) {
      for (int g = 0; g < ng; ++g) groups_[g]->before = groups_[g]->sets;
      ok = solveGroups(threads, ps);
      if (!ok) break;
      // (17): the interface with the groups' impulses.
      z_ = b_gamma_;
      for (int g = 0; g < ng; ++g) {
        Group& gr = *groups_[g];
        gr.t.noalias() = gr.coupling.transpose() * gr.x;
        for (int c = 0; c < static_cast<int>(gr.coupled.size()); ++c) z_[gr.coupled[c]] += gr.t[c];
      }
      if (k == 0) {
        s_.resize(ni, ni);
        s_.setFromTriplets(a_gamma_.begin(), a_gamma_.end());
      }
      const PivotingResult r = interface_.blockPivoting(SparseBoxMatrix{&s_}, z_, lower_gamma_,
                                                        upper_gamma_, ps, sets_gamma_, x_gamma_);
      ok = !r.factor_failed;
      changed = ni > 0 && (x_gamma_ - x_gamma_before_).cwiseAbs().maxCoeff() > options_.eta;
    } else {
      ok = schurComplement(threads);
      if (!ok) break;
      interface_.invalidate();
      const SparseBoxMatrix s{&s_};
      const PivotingResult r = variant_ == Variant::SchurBpp
                                   ? interface_.blockPivoting(s, z_, lower_gamma_, upper_gamma_, ps,
                                                              sets_gamma_, x_gamma_)
                                   : interface_.pgsSubspace(s, z_, lower_gamma_, upper_gamma_, ps,
                                                            sets_gamma_, x_gamma_);
      ok = !r.factor_failed && solveGroups(threads, ps);
      exact = r.solved;
      for (int g = 0; g < ng; ++g) exact = exact && !groups_[g]->unsolved;
      // Further coupling iterations would condense S from index sets a failed solve left.
      if (!exact && options_.whole_system_fallback) break;
    }
    for (int g = 0; g < ng; ++g) changed = changed || groups_[g]->changed;
    changed = changed || sets_gamma_ != sets_gamma_before_;
    if (!changed || (ni == 0 && variant_ != Variant::Fbic)) {
      settled = true;
      break;
    }
    if (variant_ != Variant::Fbic) {
      // Index sets met before: the coupling would go round that cycle until k_max.
      std::uint64_t h = hashSets(sets_gamma_);
      for (int g = 0; g < ng; ++g) h = hashSets(groups_[g]->sets, h);
      if (std::find(visited_sets_.begin(), visited_sets_.end(), h) != visited_sets_.end()) {
        exact = false;
        break;
      }
      visited_sets_.push_back(h);
    }
  }
  if (!ok) noteFailure(st, SolveStatus::FactorizationFailed);
  // k_max reached with index sets still changing: the coupling's answer is no solution
  // (nettruck at 1.78 s: a natural residual of 98 N s and a net link thrown at 100 m/s).
  if (!settled) exact = false;

  for (int g = 0; g < ng; ++g)
    for (int q = 0; q < groups_[g]->x.size(); ++q)
      lambda[partition_.rows[partition_.row_begin[g] + q]] = groups_[g]->x[q];
  for (int i = 0; i < ni; ++i) lambda[partition_.interface_rows[i]] = x_gamma_[i];
  double residual = 0.0, two_norm = 0.0;
  form_.naturalResidual(lambda, residual, two_norm);
  if (ok && !exact && options_.whole_system_fallback && variant_ != Variant::Fbic) {
    ps.epsilon = settings.tolerance;
    ps.fallback = true;
    solveWhole(ps, warm, lambda, residual);
  }
  if (settings.record_history) st.residual_history.push_back(residual);
  sol.vhat.resize(p.numDof());
  form_.velocity(lambda, sol.vhat);
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
