#include "subsim/fem/tet_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

namespace subsim {
namespace {

// Relative threshold of the degeneracy test: |6 V| against the cube of the longest edge, so the
// test does not depend on the unit of length.
constexpr double kFlatness = 1e-12;

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", x);
  return buffer;
}

// Built with a stream: GCC 12's -O3 warns falsely (-Wrestrict) on "(" + std::to_string(...).
std::string tetName(int t) {
  std::ostringstream out;
  out << "tets[" << t << "]";
  return out.str();
}

std::string nodesOf(const std::array<int, 4>& tet) {
  std::ostringstream out;
  out << "(" << tet[0] << ", " << tet[1] << ", " << tet[2] << ", " << tet[3] << ")";
  return out.str();
}

double longestEdge(const TetMesh& mesh, const std::array<int, 4>& tet) {
  double longest = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      longest = std::max(longest, (mesh.nodes[tet[j]] - mesh.nodes[tet[i]]).norm());
  return longest;
}

// The defect of one tet whose indices are already known to be in range ("" when valid).
std::string tetDefect(const TetMesh& mesh, int t) {
  const std::array<int, 4>& tet = mesh.tets[t];
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (tet[i] == tet[j])
        return tetName(t) + ": node " + std::to_string(tet[i]) + " repeated in " + nodesOf(tet) +
               ", expected four distinct nodes";
  const double volume6 = signedVolume6(mesh, t);
  const double edge = longestEdge(mesh, tet);
  const double threshold = kFlatness * edge * edge * edge;
  if (std::abs(volume6) < threshold)
    return tetName(t) + ": degenerate (6V = " + number(volume6) +
           "), expected |6V| >= " + number(threshold) + " (1e-12 times the longest edge cubed)";
  if (volume6 < 0.0)
    return tetName(t) + ": inverted (6V = " + number(volume6) +
           "), expected positive orientation det[x1 - x0, x2 - x0, x3 - x0] > 0";
  return "";
}

// The faces of tet (0, 1, 2, 3) ordered so that their right-hand normals point out of a
// positively oriented tet: each face seen from the opposite vertex turns clockwise.
constexpr int kFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

}  // namespace

double signedVolume6(const TetMesh& mesh, int t) {
  const std::array<int, 4>& tet = mesh.tets[t];
  const Vec3& x0 = mesh.nodes[tet[0]];
  return (mesh.nodes[tet[1]] - x0).cross(mesh.nodes[tet[2]] - x0).dot(mesh.nodes[tet[3]] - x0);
}

std::string checkTetMesh(const TetMesh& mesh) {
  if (mesh.nodes.empty()) return "nodes: empty, expected at least 4 nodes";
  if (mesh.tets.empty()) return "tets: empty, expected at least one tet";
  for (int n = 0; n < mesh.numNodes(); ++n) {
    const Vec3& x = mesh.nodes[n];
    if (!x.allFinite())
      return "nodes[" + std::to_string(n) + "]: expected finite coordinates, got (" +
             number(x.x()) + ", " + number(x.y()) + ", " + number(x.z()) + ")";
  }
  std::vector<char> used(mesh.nodes.size(), 0);
  for (int t = 0; t < mesh.numTets(); ++t) {
    for (int index : mesh.tets[t]) {
      if (index < 0 || index >= mesh.numNodes())
        return tetName(t) + ": node index " + std::to_string(index) + " out of range [0, " +
               std::to_string(mesh.numNodes() - 1) + "]";
      used[index] = 1;
    }
    std::string defect = tetDefect(mesh, t);
    if (!defect.empty()) return defect;
  }
  for (int n = 0; n < mesh.numNodes(); ++n)
    if (!used[n])
      return "nodes[" + std::to_string(n) + "]: unused, expected every node to belong to a tet";
  return "";
}

// Sorting (face key, face id) pairs finds the faces that occur once in O(F log F); the face id
// (4 * tet + local face) then restores the deterministic by-tet order.  Expects a mesh that
// passes checkTetMesh (an inverted tet would give an inward face).
void appendTetMesh(TetMesh& mesh, const TetMesh& part, const Vec3& offset) {
  const int first = mesh.numNodes();
  for (const Vec3& x : part.nodes) mesh.nodes.push_back(x + offset);
  for (const std::array<int, 4>& t : part.tets)
    mesh.tets.push_back({t[0] + first, t[1] + first, t[2] + first, t[3] + first});
}

std::vector<std::array<int, 3>> boundaryTriangles(const TetMesh& mesh) {
  struct Face {
    std::array<int, 3> key;  // the face's nodes, ascending
    int id;
  };
  std::vector<Face> faces;
  faces.reserve(4 * mesh.tets.size());
  for (int t = 0; t < mesh.numTets(); ++t)
    for (int f = 0; f < 4; ++f) {
      std::array<int, 3> key = {mesh.tets[t][kFaces[f][0]], mesh.tets[t][kFaces[f][1]],
                                mesh.tets[t][kFaces[f][2]]};
      std::sort(key.begin(), key.end());
      faces.push_back({key, 4 * t + f});
    }
  std::sort(faces.begin(), faces.end(), [](const Face& a, const Face& b) { return a.key < b.key; });

  std::vector<int> single;
  for (std::size_t i = 0; i < faces.size();) {
    std::size_t j = i + 1;
    while (j < faces.size() && faces[j].key == faces[i].key) ++j;
    if (j == i + 1) single.push_back(faces[i].id);
    i = j;
  }
  std::sort(single.begin(), single.end());

  std::vector<std::array<int, 3>> triangles;
  triangles.reserve(single.size());
  for (int id : single) {
    const std::array<int, 4>& tet = mesh.tets[id / 4];
    const int* face = kFaces[id % 4];
    triangles.push_back({tet[face[0]], tet[face[1]], tet[face[2]]});
  }
  return triangles;
}

}  // namespace subsim
