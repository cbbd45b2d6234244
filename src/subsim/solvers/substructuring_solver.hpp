#pragma once
// Schur-complement substructuring of the box MLCP (Peiret, Andrews, Kovecses, Kry, Teichmann,
// TOG 2019, Algorithm 1) and its force-based baseline:
//
//   schur-bpp     the step's bodies are grouped into substructures (formulation/
//   schur-pgs-sm  substructure_partition.hpp); with the index sets I of the previous coupling
//                 iteration, each group's free internal block A_FF is factored and the interface
//                 system is condensed onto the interface rows Gamma,
//                   S = A_Gamma - sum_i G_Fi A_FFi^{-1} G_Fi^T                          (24)
//                   z = b_Gamma + sum_i (G_Ti lambda_Ti - G_Fi A_FFi^{-1} (b_Fi + A_FTi lambda_Ti))
//                                                                                       (25)
//                 (K = A_FF^{-1} G_F^T per group, on the interface rows the group touches); the
//                 interface box MLCP  S lambda_Gamma + z = w_Gamma  is solved by block principal
//                 pivoting (schur-bpp) or PGS-SM (schur-pgs-sm); then every group solves its own
//                 box MLCP  A_i lambda_i + G_i^T lambda_Gamma + b_i = w_i  (16) by BPP, warm from
//                 its index sets, and the coupling iterations stop when no index set changed (the
//                 solution is then exact) or after k_max.  With only bilateral internal rows the
//                 first iteration is exact.
//   fbic          force-based interface coupling (the paper's FBIC baseline): the groups solve
//                 (16) with the interface impulses fixed, then the interface solves (17)
//                   A_Gamma lambda_Gamma + sum_i G_i lambda_i + b_Gamma = w_Gamma
//                 with theirs, alternating until no index set changes and the interface impulses
//                 move by less than eta, or k_max (250 by default; the paper's 1000 for the net).
//
// Group solves and the Schur contributions run in parallel (OpenMP, one group per task); the
// contributions are summed in group order, so the result does not depend on the thread count.
// Index sets start from the warm start (the previous step's lambda by key), the paper's warm
// start across steps.  Iterations: coupling iterations.  Stopping residual: the natural residual
// (29)'s maximum over all rows.  The problem must have subsystems (not a local form).
//
// Whole-system fallback (schur-bpp, schur-pgs-sm; option whole_system_fallback, on by default;
// not in the paper): the coupling's answer is the box MLCP's solution only when every solve of
// its last iteration was and no index set changed in it.  When that is not so (k_max reached
// with the sets still changing: nettruck at 1.78 s, a natural residual of 98 N s; a group's or
// the interface's pivots ran out: chaindrop's links landing on their ramp, from step 9 on, where
// the coupling's answer threw a link out at 221 m/s), or when the coupling iterations revisit
// the index sets of an earlier one (a cycle, which the paper's k_max only cuts short:
// granular:spheres=27's step 80 at n_max 4 went round one to k_max = 400 with a natural residual
// of 0.17 and velocities 16 m/s off), the step is solved whole by BPP from the step's warm
// start, as bpp solves it, and the result of least natural residual kept.  wholeSystemSolves()
// counts those steps; `bench --paper schur` reports them.
#include <cstdint>
#include <memory>
#include <vector>

#include "subsim/formulation/box_mlcp_form.hpp"
#include "subsim/formulation/substructure_partition.hpp"
#include "subsim/solvers/box_mlcp_pivoting.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

/// The options of schur-bpp, schur-pgs-sm and fbic (`subsim solvers schur-bpp`).
struct SubstructuringOptions {
  PartitionMethod partition = PartitionMethod::MinimumDegree;
  int n_max = 16;                     // bodies per group at most (Table 4: 8 .. 64)
  int k_max = 0;                      // coupling iterations; 0: the paper's, 10 (fbic: 250)
  int max_pivots = 50;                // per BPP solve (kappa_iter)
  double eta = 1e-9;                  // index-set tolerance (box_mlcp_solver.hpp says why not 1e-5)
  double compliance = 1e-10;          // the diagonal compliance C of hard rows (m/s per N s)
  int pgs_sweeps = 5;                 // schur-pgs-sm: interface sweeps before each subspace solve
  int newton_steps = 200;             // BPP's projected Newton fallback (whole-system solve)
  double epsilon = 1e-9;              // schur-pgs-sm: the interface solve's natural-residual target
  bool whole_system_fallback = true;  // schur-*: see "Whole-system fallback" above
};

class SubstructuringSolver final
    : public SolverWithOptions<SubstructuringSolver, SubstructuringOptions> {
 public:
  enum class Variant { SchurBpp, SchurPgsSm, Fbic };
  explicit SubstructuringSolver(Variant variant);

  std::string_view name() const override;
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  const SubstructurePartition& partition() const { return partition_; }
  const BoxMlcpForm& form() const { return form_; }
  /// The interface matrix of the last coupling iteration (S_Gamma; fbic: A_Gamma).
  const SparseMatrixCsc& interfaceMatrix() const { return s_; }
  /// Steps solved whole since construction (see "Whole-system fallback").
  int wholeSystemSolves() const { return whole_system_solves_; }

 private:
  /// One substructure's internal box MLCP and its coupling to the interface.
  struct Group {
    SparseMatrixCsc a;                   // A_i (internal rows)
    SparseMatrixCsc coupling;            // G_i^T on the interface rows it touches
    std::vector<int> coupled;            // those interface rows (interface indices)
    VecX b0, b, lower, upper, x, tight;  // tight: x on tight rows, 0 on free ones
    VecX xg;                             // the interface impulses on `coupled`
    std::vector<BoxIndex> sets, before;
    std::vector<int> free_position;  // internal row -> its index among the free rows, or -1
    BoxMlcpPivoting<SparseBoxMatrix> pivoting;
    MatX gt, k, s;  // G_F^T, K = A_FF^{-1} G_F^T, G_F K
    VecX z, t;
    bool changed = false, failed = false, unsolved = false;
  };
  /// Splits A, b and the bounds into the groups and the interface (after partitioning).
  void split();
  /// S, z from every group's current index sets (24)-(25); false when a free block fails.
  bool schurComplement(int threads);
  /// Every group's box MLCP with the interface impulses x_Gamma; false when one fails.
  bool solveGroups(int threads, const PivotingSettings& ps);
  /// The whole box MLCP by BPP from the step's warm start (see "Whole-system fallback");
  /// lambda and its natural residual replaced when that is less.
  void solveWhole(const PivotingSettings& ps, bool warm, VecX& lambda, double& residual);

  Variant variant_;
  BoxMlcpForm form_;
  SubstructurePartition partition_;
  std::vector<std::unique_ptr<Group>> groups_;  // kept across steps (their workspaces)
  std::vector<int> row_group_, row_local_;      // per row: group (-1 interface) and index in it
  // The interface: A_Gamma's entries, and S (sparse: a group couples only the interface rows of
  // its own constraints, so S is as sparse as the groups' adjacency).
  std::vector<Eigen::Triplet<double, int>> a_gamma_, s_triplets_;
  SparseMatrixCsc s_;
  VecX b_gamma_, z_, lower_gamma_, upper_gamma_, x_gamma_, x_gamma_before_;
  std::vector<BoxIndex> sets_gamma_, sets_gamma_before_;
  BoxMlcpPivoting<SparseBoxMatrix> interface_;
  VecX previous_;
  BoxMlcpPivoting<SparseBoxMatrix> whole_;
  VecX whole_x_;
  std::vector<BoxIndex> whole_sets_;
  int whole_system_solves_ = 0;
  std::vector<std::uint64_t> visited_sets_;  // hashes of the coupling iterations' index sets
};

}  // namespace subsim
