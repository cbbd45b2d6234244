#include "subsim/articulation/articulation.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace subsim {

int jointConfigurationSize(ArticulationJointType type) {
  switch (type) {
    case ArticulationJointType::Fixed:
      return 0;
    case ArticulationJointType::Revolute:
    case ArticulationJointType::Prismatic:
      return 1;
    case ArticulationJointType::Floating:
      return 7;
  }
  return 0;
}

int jointVelocitySize(ArticulationJointType type) {
  switch (type) {
    case ArticulationJointType::Fixed:
      return 0;
    case ArticulationJointType::Revolute:
    case ArticulationJointType::Prismatic:
      return 1;
    case ArticulationJointType::Floating:
      return 6;
  }
  return 0;
}

namespace {

// Unit vectors and quaternions are compared with this slack: tighter than any physically
// meaningful error, looser than a parser's round-off (URDF "0 0 1" or rpy-built quaternions).
constexpr double kUnitTolerance = 1e-6;

bool finite3(const Vec3& v) {
  return v.allFinite();
}

}  // namespace

void Articulation::finalize() {
  const int n = static_cast<int>(links.size());
  auto fail = [&](int i, const std::string& what) {
    std::ostringstream os;
    os << "articulation '" << name << "': link '" << links[i].name << "': " << what;
    throw std::invalid_argument(os.str());
  };

  std::unordered_map<std::string, int> seen;
  DoubleBuffer subtree_mass(links.size(), 0.0);
  int floating_count = 0;
  for (int i = 0; i < n; ++i) {
    const ArticulationLink& l = links[i];
    if (!l.name.empty() && !seen.emplace(l.name, i).second)
      fail(i, "name is also used by link " + std::to_string(seen[l.name]));
    // Topological order lets every recursion in articulation_dynamics.cpp be a single forward
    // (or backward) sweep over the array, as Featherstone's lambda(i) < i numbering (section 4.1).
    if (l.parent < -1 || l.parent >= i)
      fail(i, "parent " + std::to_string(l.parent) + " is not before it");
    if (!finite3(l.joint_origin.position)) fail(i, "joint_origin position is not finite");
    if (!l.joint_origin.orientation.coeffs().allFinite())
      fail(i, "joint_origin orientation is not finite");
    if (std::abs(l.joint_origin.orientation.norm() - 1.0) > kUnitTolerance)
      fail(i, "joint_origin orientation is not a unit quaternion");

    if (l.joint == ArticulationJointType::Revolute || l.joint == ArticulationJointType::Prismatic) {
      if (!finite3(l.axis)) fail(i, "axis is not finite");
      const double axis_norm = l.axis.norm();
      if (axis_norm == 0.0) fail(i, "axis is zero");
      // Not normalised silently: a non-unit axis usually means a unit mix-up upstream, and a
      // scaled axis would scale the joint coordinate (q in rad or m) without anyone noticing.
      if (std::abs(axis_norm - 1.0) > kUnitTolerance)
        fail(i, "axis is not a unit vector (norm " + std::to_string(axis_norm) + ")");
    }
    if (l.joint == ArticulationJointType::Floating) {
      if (l.parent != -1) fail(i, "floating joint '" + l.joint_name + "' is not on a root link");
      if (++floating_count > 1) fail(i, "second floating joint '" + l.joint_name + "'");
    }

    if (!std::isfinite(l.mass)) fail(i, "mass is not finite");
    if (l.mass < 0.0) fail(i, "mass " + std::to_string(l.mass) + " is negative");
    if (!finite3(l.com)) fail(i, "com is not finite");
    if (!l.inertia.allFinite()) fail(i, "inertia is not finite");
    const double scale = std::max(1.0, l.inertia.cwiseAbs().maxCoeff());
    if ((l.inertia - l.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
      fail(i, "inertia is not symmetric");
    if (l.mass > 0.0 || !l.inertia.isZero(0.0)) {
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(l.inertia, Eigen::EigenvaluesOnly);
      const double min_eig = eig.eigenvalues()(0);
      // A massive link needs a positive-definite inertia for the mass matrix to be SPD; a massless
      // one may still carry rotor-like inertia but never a negative one.
      if (l.mass > 0.0 ? !(min_eig > 0.0) : min_eig < 0.0)
        fail(i, "inertia is not positive definite (smallest eigenvalue " + std::to_string(min_eig) +
                    ")");
    }

    // Infinite limits are allowed (a parser's "unlimited"); NaN would make every test false.
    if (std::isnan(l.lower) || std::isnan(l.upper)) fail(i, "lower/upper limit is NaN");
    if (l.lower > l.upper)
      fail(i,
           "lower limit " + std::to_string(l.lower) + " > upper limit " + std::to_string(l.upper));
    if (std::isnan(l.effort_limit) || l.effort_limit < 0.0)
      fail(i, "effort_limit is negative or NaN");
    if (std::isnan(l.velocity_limit) || l.velocity_limit < 0.0)
      fail(i, "velocity_limit is negative or NaN");
    if (!std::isfinite(l.damping) || l.damping < 0.0) fail(i, "damping is negative or not finite");
    subtree_mass[i] = l.mass;
  }

  // A moving joint whose subtree has no mass gives a zero row and column in M (not SPD).
  for (int i = n - 1; i >= 0; --i)
    if (links[i].parent >= 0) subtree_mass[links[i].parent] += subtree_mass[i];
  for (int i = 0; i < n; ++i)
    if (links[i].joint != ArticulationJointType::Fixed && !(subtree_mass[i] > 0.0))
      fail(i, (links[i].joint_name.empty()
                   ? std::string(links[i].joint == ArticulationJointType::Floating
                                     ? "its floating base"
                                     : "its joint")
                   : "joint '" + links[i].joint_name + "'") +
                  " moves no mass (its subtree's mass is 0)");

  nq_ = 0;
  nv_ = 0;
  for (ArticulationLink& l : links) {
    const int nqj = jointConfigurationSize(l.joint);
    const int nvj = jointVelocitySize(l.joint);
    l.q_index = nqj > 0 ? nq_ : -1;
    l.v_index = nvj > 0 ? nv_ : -1;
    nq_ += nqj;
    nv_ += nvj;
  }
  // The DOF tree: a joint's DOFs form a chain below the deepest DOF of the parent link.
  dof_parent_.assign(nv_, -1);
  deepest_dof_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    const ArticulationLink& l = links[i];
    int above = l.parent >= 0 ? deepest_dof_[l.parent] : -1;
    for (int k = 0; k < jointVelocitySize(l.joint); ++k) {
      dof_parent_[l.v_index + k] = above;
      above = l.v_index + k;
    }
    deepest_dof_[i] = above;
  }
}

int Articulation::findLink(const std::string& link_name) const {
  for (int i = 0; i < static_cast<int>(links.size()); ++i)
    if (links[i].name == link_name) return i;
  return -1;
}

VecX Articulation::neutralConfiguration() const {
  VecX q = VecX::Zero(nq_);
  for (const ArticulationLink& l : links)
    if (l.joint == ArticulationJointType::Floating) q(l.q_index + 6) = 1.0;  // w of (x, y, z, w)
  return q;
}

}  // namespace subsim
