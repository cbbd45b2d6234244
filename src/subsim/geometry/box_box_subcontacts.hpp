#pragma once
// The candidate contacts of two boxes as polyhedral exact geometry (PEG) needs them (rpisim
// Sec. 3.1; Nguyen and Trinkle 2010, Nguyen 2011), instead of the clipped face manifold of
// collide_box_box.cpp.
//
// Vertex-face: every vertex of one box within the margin of the other, against the faces of the
// other's closest feature (a face; an edge's two faces; a vertex's three).  Those faces are the
// vertex's subcontacts: near the feature, the vertex is outside the box exactly when it is outside
// at least one of their planes (max_k psi_k >= 0), a non-convex set that a formulation enforcing
// every plane alone (Stewart-Trinkle, Anitescu-Potra, the NCP) replaces by the intersection of the
// half-spaces: a vertex passing an edge 5 um beside it is then blocked by the plane of the face
// beyond the edge.  Such points carry the same ManifoldPoint::subcontact_set (a local id,
// kMaxSubcontactSets per pair); a vertex with one face is a plain contact (-1).  A vertex inside
// the other box gives one contact, with the face of least penetration.
//
// Edge-edge: every pair of non-parallel edges whose closest points are interior to both, with the
// edges' common normal in the outward normal cone of the other box's edge and its opposite in the
// box's own: locally the one plane that separates two crossing edges, a plain contact.
//
// Gaps are the plane distances (negative inside), normals point from b towards a, points lie
// midway between the vertex and its plane (between the edges' closest points).
#include <vector>

#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/shape.hpp"

namespace subsim {

/// Appends to `out` the candidate contacts of box `a` (object `object_a`) and box `b` whose gap is
/// below `margin`.  Both shapes must be boxes.
void collideBoxBoxSubcontacts(const Shape& a, const Pose& pose_a, const Shape& b,
                              const Pose& pose_b, double margin, int object_a, int object_b,
                              std::vector<ContactPoint>& out);

}  // namespace subsim
