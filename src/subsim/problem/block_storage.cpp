#include "subsim/problem/block_storage.hpp"

namespace subsim {

namespace {

// `out` with its subsystem blocks rebuilt from `in`'s, subsystem by subsystem: `sparse(i)` says
// which storage subsystem i takes.
template <class SparseRule>
StepProblem rebuildBlocks(const StepProblem& in, SparseRule sparse) {
  StepProblem out = in;
  out.a_data.clear();
  out.mass_data.clear();
  out.sparse_pattern.clear();
  const bool mass = in.mass_data.size() == in.a_data.size();
  for (int i = 0; i < in.numSubsystems(); ++i) {
    Subsystem& s = out.subsystems[i];
    const int n = s.dof;
    const MatX A = in.denseA(i);
    MatX M = MatX::Zero(n, n);
    if (mass) M = in.isSparse(i) ? MatX(in.sparseM(i)) : MatX(in.M(i));
    s.a_offset = static_cast<int>(out.a_data.size());
    if (!sparse(i)) {
      s.pattern_offset = -1;
      out.a_data.insert(out.a_data.end(), A.data(), A.data() + A.size());
      out.mass_data.insert(out.mass_data.end(), M.data(), M.data() + M.size());
      continue;
    }
    s.pattern_offset = static_cast<int>(out.sparse_pattern.size());
    std::vector<int> begin(1, 0), rows;
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < n; ++r)
        if (r == c || A(r, c) != 0.0 || A(c, r) != 0.0 || M(r, c) != 0.0 || M(c, r) != 0.0) {
          rows.push_back(r);
          out.a_data.push_back(A(r, c));
          out.mass_data.push_back(M(r, c));
        }
      begin.push_back(static_cast<int>(rows.size()));
    }
    out.sparse_pattern.insert(out.sparse_pattern.end(), begin.begin(), begin.end());
    out.sparse_pattern.insert(out.sparse_pattern.end(), rows.begin(), rows.end());
  }
  if (!mass) out.mass_data.clear();
  // The J blocks on the subsystems: sparse over their nonzero columns where the subsystem is.
  out.jacobian_data.clear();
  out.jacobian_columns.clear();
  for (Attachment& a : out.attachments) {
    const RowMajorMatX J = in.denseJ(a);
    a.j_offset = static_cast<int>(out.jacobian_data.size());
    a.width = 0;
    a.column_offset = 0;
    std::vector<int> columns;
    if (sparse(a.subsystem))
      for (int c = 0; c < a.dof; ++c)
        if (!J.col(c).isZero(0.0)) columns.push_back(c);
    if (columns.empty()) {
      out.jacobian_data.insert(out.jacobian_data.end(), J.data(), J.data() + J.size());
      continue;
    }
    a.width = static_cast<int>(columns.size());
    a.column_offset = static_cast<int>(out.jacobian_columns.size());
    out.jacobian_columns.insert(out.jacobian_columns.end(), columns.begin(), columns.end());
    for (int r = 0; r < a.rows; ++r)
      for (const int c : columns) out.jacobian_data.push_back(J(r, c));
  }
  return out;
}

}  // namespace

StepProblem withDenseBlocks(const StepProblem& problem) {
  return rebuildBlocks(problem, [](int) { return false; });
}

StepProblem withSparseBlocks(const StepProblem& problem) {
  return rebuildBlocks(problem, [&](int i) { return problem.subsystems[i].tree_offset < 0; });
}

}  // namespace subsim
