#include "subsim/model/deformable_body.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "subsim/model/model.hpp"

namespace subsim {

void splitDeformable(DeformableBody& body) {
  const TetMesh& mesh = body.rest_mesh;
  const int nt = mesh.numTets();
  if (body.pieces < 1 || body.pieces > nt)
    throw std::invalid_argument("pieces: expected 1.." + std::to_string(nt) +
                                " (the mesh's tets), got " + std::to_string(body.pieces));
  // The longest axis of the rest mesh's bounding box.
  Vec3 lower = Vec3::Constant(1e300), upper = Vec3::Constant(-1e300);
  for (const Vec3& x : mesh.nodes) {
    lower = lower.cwiseMin(x);
    upper = upper.cwiseMax(x);
  }
  int axis = 0;
  (upper - lower).maxCoeff(&axis);
  DoubleBuffer key(nt);
  for (int t = 0; t < nt; ++t) {
    double c = 0.0;
    for (int n : mesh.tets[t]) c += mesh.nodes[n][axis];
    key[t] = c;
  }
  std::vector<int> order(nt);
  std::iota(order.begin(), order.end(), 0);
  // Ties broken by index: the same mesh always splits the same way.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });

  body.piece.clear();
  body.interfaces.clear();
  std::vector<int> first_copy_piece(mesh.numNodes(), -1), first_copy_node(mesh.numNodes(), -1);
  for (int k = 0; k < body.pieces; ++k) {
    const int begin = static_cast<int>(static_cast<long long>(nt) * k / body.pieces);
    const int end = static_cast<int>(static_cast<long long>(nt) * (k + 1) / body.pieces);
    TetMesh sub;
    std::vector<int> local(mesh.numNodes(), -1), body_node;
    for (int r = begin; r < end; ++r) {
      std::array<int, 4> tet = mesh.tets[order[r]];
      for (int& n : tet) {
        if (local[n] < 0) {
          local[n] = static_cast<int>(body_node.size());
          body_node.push_back(n);
          sub.nodes.push_back(mesh.nodes[n]);
        }
        n = local[n];
      }
      sub.tets.push_back(tet);
    }
    const int piece_index = static_cast<int>(body.piece.size());
    for (int i = 0; i < static_cast<int>(body_node.size()); ++i) {
      const int n = body_node[i];
      if (first_copy_piece[n] < 0) {
        first_copy_piece[n] = piece_index;
        first_copy_node[n] = i;
      } else {
        body.interfaces.push_back({first_copy_piece[n], first_copy_node[n], piece_index, i});
      }
    }
    body.piece.push_back(FemPiece{CorotationalFemModel(sub, body.material), std::move(body_node)});
  }
  body.node_home.resize(mesh.numNodes());
  for (int n = 0; n < mesh.numNodes(); ++n)
    body.node_home[n] = {first_copy_piece[n], first_copy_node[n]};
  // Every further copy is joined to the home copy (above): group the interfaces by their home.
  std::vector<std::vector<std::array<int, 2>>> others(mesh.numNodes());
  for (const FemInterface& c : body.interfaces)
    others[body.piece[c.piece_a].body_node[c.node_a]].push_back({c.piece_b, c.node_b});
  body.shared_copies.clear();
  body.shared_begin.assign(1, 0);
  for (int n = 0; n < mesh.numNodes(); ++n) {
    if (others[n].empty()) continue;
    body.shared_copies.push_back(body.node_home[n]);
    body.shared_copies.insert(body.shared_copies.end(), others[n].begin(), others[n].end());
    body.shared_begin.push_back(static_cast<int>(body.shared_copies.size()));
  }
}

double selfContactExclusion(const DeformableBody& body) {
  if (body.self_contact_exclusion > 0.0) return body.self_contact_exclusion;
  double longest = 0.0;
  for (const auto& t : body.surface)
    for (int k = 0; k < 3; ++k)
      longest = std::max(
          longest, (body.rest_mesh.nodes[t[k]] - body.rest_mesh.nodes[t[(k + 1) % 3]]).norm());
  return 1.5 * longest;
}

std::vector<VecX> placedPieces(const DeformableBody& body, const Pose& pose) {
  std::vector<VecX> out;
  for (const FemPiece& p : body.piece) {
    VecX x(3 * p.body_node.size());
    for (size_t i = 0; i < p.body_node.size(); ++i)
      x.segment<3>(3 * i) = pose.transformPoint(body.rest_mesh.nodes[p.body_node[i]]);
    out.push_back(std::move(x));
  }
  return out;
}

void unifyNodeCopies(const DeformableBody& body, std::vector<VecX>& fem_x,
                     std::vector<VecX>& fem_v) {
  for (size_t g = 0; g + 1 < body.shared_begin.size(); ++g) {
    double mass = 0.0;
    Vec3 x = Vec3::Zero(), v = Vec3::Zero();
    for (int c = body.shared_begin[g]; c < body.shared_begin[g + 1]; ++c) {
      const auto [piece, node] = body.shared_copies[c];
      const double m = body.piece[piece].fem.lumpedMass()[3 * node];
      mass += m;
      x += m * fem_x[body.first_piece + piece].segment<3>(3 * node);
      v += m * fem_v[body.first_piece + piece].segment<3>(3 * node);
    }
    if (!(mass > 0.0)) continue;  // a node no tet uses has no mass and no copies to merge
    x /= mass;
    v /= mass;
    for (int c = body.shared_begin[g]; c < body.shared_begin[g + 1]; ++c) {
      const auto [piece, node] = body.shared_copies[c];
      fem_x[body.first_piece + piece].segment<3>(3 * node) = x;
      fem_v[body.first_piece + piece].segment<3>(3 * node) = v;
    }
  }
}

int Model::numDeformablePieces() const {
  int n = 0;
  for (const DeformableBody& d : deformables) n += d.numPieces();
  return n;
}

int Model::deformableOfPiece(int piece) const {
  for (int d = 0; d < static_cast<int>(deformables.size()); ++d)
    if (piece < deformables[d].first_piece + deformables[d].numPieces()) return d;
  return -1;
}

int Model::addDeformable(DeformableBody body) {
  const std::string where =
      "deformables[" + std::to_string(deformables.size()) + "] ('" + body.name + "')";
  const std::string defect = checkTetMesh(body.rest_mesh);
  if (!defect.empty()) throw std::invalid_argument(where + ": mesh: " + defect);
  try {
    validateFemMaterial(body.material);
    splitDeformable(body);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  body.surface = boundaryTriangles(body.rest_mesh);
  body.first_piece = numDeformablePieces();
  deformables.push_back(std::move(body));
  return static_cast<int>(deformables.size()) - 1;
}

}  // namespace subsim
