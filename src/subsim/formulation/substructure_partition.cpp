#include "subsim/formulation/substructure_partition.hpp"

#include <algorithm>
#include <utility>

namespace subsim {

namespace {

/// The constraint graph: neighbours of each subsystem (CSR, sorted, unique) and whether a
/// constraint touches it.
struct ConstraintGraph {
  std::vector<int> begin, neighbour;
  std::vector<char> constrained;
};

void buildGraph(const StepProblem& p, ConstraintGraph& g) {
  const int ns = p.numSubsystems();
  std::vector<std::vector<int>> adjacency(ns);
  g.constrained.assign(ns, 0);
  for (const Constraint& c : p.constraints) {
    for (int a = 0; a < c.num_attachments; ++a) {
      const int i = p.attachments[c.first_attachment + a].subsystem;
      g.constrained[i] = 1;
      for (int b = 0; b < c.num_attachments; ++b) {
        const int k = p.attachments[c.first_attachment + b].subsystem;
        if (k != i) adjacency[i].push_back(k);
      }
    }
  }
  g.begin.assign(ns + 1, 0);
  g.neighbour.clear();
  for (int i = 0; i < ns; ++i) {
    std::sort(adjacency[i].begin(), adjacency[i].end());
    adjacency[i].erase(std::unique(adjacency[i].begin(), adjacency[i].end()), adjacency[i].end());
    g.neighbour.insert(g.neighbour.end(), adjacency[i].begin(), adjacency[i].end());
    g.begin[i + 1] = static_cast<int>(g.neighbour.size());
  }
}

void minimumDegree(const StepProblem& p, int n_max, SubstructurePartition& out) {
  ConstraintGraph g;
  buildGraph(p, g);
  const int ns = p.numSubsystems();
  std::vector<int>& group = out.group;
  group.assign(ns, -1);
  std::vector<int> degree(ns, 0);
  int left = 0;
  for (int i = 0; i < ns; ++i) {
    if (!g.constrained[i]) continue;
    ++left;
    degree[i] = g.begin[i + 1] - g.begin[i];
  }
  out.group_size.clear();
  const auto assign = [&](int i, int grp) {
    group[i] = grp;
    ++out.group_size[grp];
    --left;
    for (int e = g.begin[i]; e < g.begin[i + 1]; ++e)
      if (group[g.neighbour[e]] < 0) --degree[g.neighbour[e]];
  };
  const auto unassigned = [&](int i) { return g.constrained[i] && group[i] < 0; };
  std::vector<int> members;
  while (left > n_max) {
    int seed = -1;
    for (int i = 0; i < ns; ++i)
      if (unassigned(i) && (seed < 0 || degree[i] < degree[seed])) seed = i;
    if (degree[seed] == 0) {
      // An island: every neighbour is in a group already.
      int target = -1;
      for (int e = g.begin[seed]; e < g.begin[seed + 1] && target < 0; ++e)
        if (out.group_size[group[g.neighbour[e]]] < n_max) target = group[g.neighbour[e]];
      if (target < 0) {
        target = static_cast<int>(out.group_size.size());
        out.group_size.push_back(0);
      }
      assign(seed, target);
      continue;
    }
    const int grp = static_cast<int>(out.group_size.size());
    out.group_size.push_back(0);
    members.assign(1, seed);
    assign(seed, grp);
    while (out.group_size[grp] < n_max) {
      int best = -1;
      for (int m : members)
        for (int e = g.begin[m]; e < g.begin[m + 1]; ++e) {
          const int k = g.neighbour[e];
          if (unassigned(k) &&
              (best < 0 || degree[k] < degree[best] || (degree[k] == degree[best] && k < best)))
            best = k;
        }
      if (best < 0) break;
      members.push_back(best);
      assign(best, grp);
    }
    // Orphans: unassigned neighbours left with no unassigned neighbour of their own.
    for (std::size_t q = 0; q < members.size() && out.group_size[grp] < n_max; ++q)
      for (int e = g.begin[members[q]]; e < g.begin[members[q] + 1]; ++e) {
        const int k = g.neighbour[e];
        if (unassigned(k) && degree[k] == 0 && out.group_size[grp] < n_max) assign(k, grp);
      }
  }
  if (left > 0) {
    const int grp = static_cast<int>(out.group_size.size());
    out.group_size.push_back(0);
    for (int i = 0; i < ns; ++i)
      if (unassigned(i)) assign(i, grp);
  }
  out.num_groups = static_cast<int>(out.group_size.size());
}

/// Sequential (semantic = false) or semantic partitioning; `single` puts everything in one group.
void sequential(const StepProblem& p, int n_max, bool single, bool semantic,
                SubstructurePartition& out) {
  ConstraintGraph g;
  buildGraph(p, g);
  const int ns = p.numSubsystems();
  out.group.assign(ns, -1);
  out.group_size.clear();
  // Declared substructures first, one group each in order of first appearance.
  std::vector<std::pair<int, int>> declared;  // (substructure, group), sorted by substructure
  if (semantic) {
    for (int i = 0; i < ns; ++i) {
      const int label = p.subsystems[i].substructure;
      if (!g.constrained[i] || label < 0) continue;
      auto it = std::lower_bound(declared.begin(), declared.end(), std::make_pair(label, -1));
      if (it == declared.end() || it->first != label) {
        it = declared.insert(it, {label, static_cast<int>(out.group_size.size())});
        out.group_size.push_back(0);
      }
      out.group[i] = it->second;
      ++out.group_size[it->second];
    }
  }
  const int first_undeclared = static_cast<int>(out.group_size.size());
  for (int i = 0; i < ns; ++i) {
    if (!g.constrained[i] || out.group[i] >= 0) continue;
    if (static_cast<int>(out.group_size.size()) == first_undeclared ||
        (!single && out.group_size.back() >= n_max))
      out.group_size.push_back(0);
    out.group[i] = static_cast<int>(out.group_size.size()) - 1;
    ++out.group_size.back();
  }
  out.num_groups = static_cast<int>(out.group_size.size());
}

}  // namespace

void partitionSubstructures(const StepProblem& p, PartitionMethod method, int n_max,
                            SubstructurePartition& out) {
  n_max = std::max(n_max, 1);
  if (method == PartitionMethod::MinimumDegree)
    minimumDegree(p, n_max, out);
  else
    sequential(p, n_max, method == PartitionMethod::Single, method == PartitionMethod::Semantic,
               out);

  // Constraints and rows: internal to the group of all their subsystems, else the interface.
  const int nc = p.numConstraints();
  out.constraint_group.assign(nc, -1);
  out.row_begin.assign(out.num_groups + 1, 0);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    int grp = -2;
    for (int a = 0; a < c.num_attachments; ++a) {
      const int gi = out.group[p.attachments[c.first_attachment + a].subsystem];
      grp = grp == -2 ? gi : grp == gi ? grp : -1;
    }
    out.constraint_group[j] = grp < 0 ? -1 : grp;
    if (grp >= 0) out.row_begin[grp + 1] += c.rows;
  }
  for (int gi = 0; gi < out.num_groups; ++gi) out.row_begin[gi + 1] += out.row_begin[gi];
  out.rows.resize(out.row_begin[out.num_groups]);
  out.interface_rows.clear();
  std::vector<int> fill(out.row_begin.begin(), out.row_begin.end() - 1);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    const int grp = out.constraint_group[j];
    for (int r = 0; r < c.rows; ++r) {
      if (grp >= 0)
        out.rows[fill[grp]++] = c.row_offset + r;
      else
        out.interface_rows.push_back(c.row_offset + r);
    }
  }
}

}  // namespace subsim
