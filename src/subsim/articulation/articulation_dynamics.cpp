// Spatial algebra in world coordinates (Featherstone, RBDA 2008, chapter 2): motion vectors are
// [angular; linear velocity of the body-fixed point at the world origin], force vectors
// [moment about the world origin; force].  Working in one frame removes every coordinate transform
// from the recursions (the "absolute coordinates" variants of section 5.3 and 6.2): the price is
// that the link inertias change with q, which we pay once per call when forming them.
#include "subsim/articulation/articulation_dynamics.hpp"

#include <cassert>

#include "subsim/math/so3.hpp"

namespace subsim {

namespace {

using Type = ArticulationJointType;

Mat3 rotation(const Pose& p) {
  return p.orientation.toRotationMatrix();
}

Quat floatingQuaternion(const VecX& q, int i) {
  return Quat(q(i + 6), q(i + 3), q(i + 4), q(i + 5)).normalized();  // stored x, y, z, w
}

/// The joint's motion in its own frame (X_J of RBDA Table 4.1, as a Pose).
Pose jointPose(const ArticulationLink& l, const VecX& q) {
  switch (l.joint) {
    case Type::Fixed:
      return Pose{};
    case Type::Revolute:
      return Pose{Vec3::Zero(), quatFromAxisAngle(l.axis, q(l.q_index))};
    case Type::Prismatic:
      return Pose{l.axis * q(l.q_index), Quat::Identity()};
    case Type::Floating:
      return Pose{q.segment<3>(l.q_index), floatingQuaternion(q, l.q_index)};
  }
  return Pose{};
}

/// v x (RBDA eq. 2.31) applied to m.
Vec6 crossMotion(const Vec6& v, const Vec6& m) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

/// v x* (RBDA eq. 2.32) applied to f.
Vec6 crossForce(const Vec6& v, const Vec6& f) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

/// Motion subspace S_i of link i's joint in world coordinates (first nv_i columns of S).  For a
/// floating joint v = [velocity of the link origin p; omega], so the spatial velocity's linear part
/// (the velocity of the point at the world origin) is v_p + p x omega.
void motionSubspace(const ArticulationLink& l, const Pose& pose, Mat6& S) {
  switch (l.joint) {
    case Type::Fixed:
      break;
    case Type::Revolute: {
      // The link origin lies on the axis (the child frame only rotates about it).
      const Vec3 s = pose.rotate(l.axis);
      S.col(0).head<3>() = s;
      S.col(0).tail<3>() = pose.position.cross(s);
      break;
    }
    case Type::Prismatic:
      S.col(0).head<3>().setZero();
      S.col(0).tail<3>() = pose.rotate(l.axis);
      break;
    case Type::Floating:
      S.setZero();
      S.block<3, 3>(3, 0).setIdentity();
      S.block<3, 3>(0, 3).setIdentity();
      S.block<3, 3>(3, 3) = skew(pose.position);
      break;
  }
}

/// Spatial inertia about the world origin (RBDA eq. 2.63 with c the world centre of mass).
Mat6 spatialInertia(const ArticulationLink& l, const Pose& pose) {
  const Mat3 R = rotation(pose);
  const Vec3 c = pose.transformPoint(l.com);
  const Mat3 cx = skew(c);
  Mat6 I;
  I.block<3, 3>(0, 0) = R * l.inertia * R.transpose() - l.mass * cx * cx;
  I.block<3, 3>(0, 3) = l.mass * cx;
  I.block<3, 3>(3, 0) = -l.mass * cx;
  I.block<3, 3>(3, 3) = l.mass * Mat3::Identity();
  return I;
}

ArticulationWorkspace& threadWorkspace() {
  thread_local ArticulationWorkspace ws;
  return ws;
}

/// Poses, motion subspaces and spatial inertias of every link at q.
void prepare(const Articulation& art, const VecX& q, ArticulationWorkspace& ws) {
  const int n = static_cast<int>(art.links.size());
  ws.resize(n);
  forwardKinematics(art, q, ws.poses);
  for (int i = 0; i < n; ++i) {
    motionSubspace(art.links[i], ws.poses[i], ws.motion_subspace[i]);
    ws.inertia[i] = spatialInertia(art.links[i], ws.poses[i]);
  }
}

/// RNEA (RBDA section 5.3, Table 5.1) in world coordinates; a == nullptr means a = 0.
void rnea(const Articulation& art, const VecX& q, const VecX& v, const VecX* a, const Vec3& gravity,
          VecX& tau, ArticulationWorkspace& ws) {
  assert(q.size() == art.nq() && v.size() == art.nv() && (!a || a->size() == art.nv()));
  prepare(art, q, ws);
  const int n = static_cast<int>(art.links.size());
  // Gravity enters as a fictitious upward acceleration of the base (RBDA section 5.3), so each
  // f_i below already contains -m_i g.
  Vec6 base_acceleration;
  base_acceleration << Vec3::Zero(), -gravity;
  for (int i = 0; i < n; ++i) {
    const ArticulationLink& l = art.links[i];
    const int nvj = jointVelocitySize(l.joint);
    const Vec6 v_parent = l.parent >= 0 ? ws.velocity[l.parent] : Vec6::Zero();
    const Vec6 a_parent = l.parent >= 0 ? ws.acceleration[l.parent] : base_acceleration;
    Vec6 v_joint = Vec6::Zero(), a_joint = Vec6::Zero(), c = Vec6::Zero();
    if (nvj > 0) {
      const auto S = ws.motion_subspace[i].leftCols(nvj);
      v_joint.noalias() = S * v.segment(l.v_index, nvj);
      if (a) a_joint.noalias() = S * a->segment(l.v_index, nvj);
      if (l.joint == Type::Floating) {
        // S depends on the link origin p, not on a body: dS/dt v = [0; v_p x omega].
        c.tail<3>() = v.segment<3>(l.v_index).cross(v.segment<3>(l.v_index + 3));
      } else {
        // S is fixed in the parent, so dS/dt = v_parent x S (RBDA eq. 5.8's c_J + v x v_J term).
        c = crossMotion(v_parent, v_joint);
      }
    }
    ws.velocity[i] = v_parent + v_joint;
    ws.acceleration[i] = a_parent + a_joint + c;
    // Newton-Euler equation of one body in spatial form (RBDA eq. 5.9).
    const Vec6 h = ws.inertia[i] * ws.velocity[i];
    ws.force[i] = ws.inertia[i] * ws.acceleration[i] + crossForce(ws.velocity[i], h);
  }
  tau.resize(art.nv());
  for (int i = n - 1; i >= 0; --i) {
    const ArticulationLink& l = art.links[i];
    const int nvj = jointVelocitySize(l.joint);
    if (nvj > 0)
      tau.segment(l.v_index, nvj).noalias() =
          ws.motion_subspace[i].leftCols(nvj).transpose() * ws.force[i];
    // World coordinates: the parent's force needs no transform (RBDA eq. 5.10 with X = 1).
    if (l.parent >= 0) ws.force[l.parent] += ws.force[i];
  }
}

}  // namespace

void ArticulationWorkspace::resize(int num_links) {
  const auto n = static_cast<std::size_t>(num_links);
  poses.resize(n);
  motion_subspace.resize(n);
  inertia.resize(n);
  velocity.resize(n);
  acceleration.resize(n);
  force.resize(n);
}

void forwardKinematics(const Articulation& art, const VecX& q, std::vector<Pose>& link_poses) {
  assert(q.size() == art.nq());
  link_poses.resize(art.links.size());
  for (std::size_t i = 0; i < art.links.size(); ++i) {
    const ArticulationLink& l = art.links[i];
    const Pose joint_frame = l.parent >= 0 ? link_poses[l.parent] * l.joint_origin : l.joint_origin;
    link_poses[i] = joint_frame * jointPose(l, q);
  }
}

void pointJacobian(const Articulation& art, const std::vector<Pose>& link_poses, int link,
                   const Vec3& point_world, MatX& J) {
  // The linear rows of the link Jacobian at the point.
  thread_local MatX full;
  linkJacobian(art, link_poses, link, point_world, full);
  J = full.topRows<3>();
}

void linkJacobian(const Articulation& art, const std::vector<Pose>& link_poses, int link,
                  const Vec3& point_world, MatX& J) {
  J.resize(6, art.nv());
  J.setZero();
  Mat6 S;
  // Only the joints on the path to the root move the link (RBDA section 4.2's support set).
  for (int i = link; i >= 0; i = art.links[i].parent) {
    const ArticulationLink& l = art.links[i];
    const int nvj = jointVelocitySize(l.joint);
    if (nvj == 0) continue;
    motionSubspace(l, link_poses[i], S);
    // Velocity of the point: v_O + omega x point (S is [omega; v_O] per joint coordinate).
    J.block(0, l.v_index, 3, nvj) =
        S.block(3, 0, 3, nvj) - skew(point_world) * S.block(0, 0, 3, nvj);
    J.block(3, l.v_index, 3, nvj) = S.block(0, 0, 3, nvj);
  }
}

void massMatrix(const Articulation& art, const VecX& q, MatX& M) {
  massMatrix(art, q, M, threadWorkspace());
}

void massMatrix(const Articulation& art, const VecX& q, MatX& M, ArticulationWorkspace& ws) {
  prepare(art, q, ws);
  M.resize(art.nv(), art.nv());
  M.setZero();  // entries of joints on different branches stay zero
  // CRBA (RBDA section 6.2, Table 6.2): after the backward sweep reaches i, inertia[i] is the
  // composite inertia of i's subtree, and M_ji = S_j^T I^c_i S_i for every j supporting i.
  Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> F;
  for (int i = static_cast<int>(art.links.size()) - 1; i >= 0; --i) {
    const ArticulationLink& l = art.links[i];
    const int nvi = jointVelocitySize(l.joint);
    if (nvi > 0) {
      F.noalias() = ws.inertia[i] * ws.motion_subspace[i].leftCols(nvi);
      auto Mii = M.block(l.v_index, l.v_index, nvi, nvi);
      Mii.noalias() = ws.motion_subspace[i].leftCols(nvi).transpose() * F;
      // Round-off leaves a multi-DOF block asymmetric by ~1e-16; callers factor M as SPD.
      for (int r = 0; r < nvi; ++r)
        for (int c = r + 1; c < nvi; ++c) Mii(r, c) = Mii(c, r) = 0.5 * (Mii(r, c) + Mii(c, r));
      for (int j = l.parent; j >= 0; j = art.links[j].parent) {
        const ArticulationLink& lj = art.links[j];
        const int nvj = jointVelocitySize(lj.joint);
        if (nvj == 0) continue;
        M.block(lj.v_index, l.v_index, nvj, nvi).noalias() =
            ws.motion_subspace[j].leftCols(nvj).transpose() * F;
        M.block(l.v_index, lj.v_index, nvi, nvj) =
            M.block(lj.v_index, l.v_index, nvj, nvi).transpose();
      }
    }
    if (l.parent >= 0) ws.inertia[l.parent] += ws.inertia[i];
  }
}

void inverseDynamics(const Articulation& art, const VecX& q, const VecX& v, const VecX& a,
                     const Vec3& gravity, VecX& tau) {
  rnea(art, q, v, &a, gravity, tau, threadWorkspace());
}

void inverseDynamics(const Articulation& art, const VecX& q, const VecX& v, const VecX& a,
                     const Vec3& gravity, VecX& tau, ArticulationWorkspace& ws) {
  rnea(art, q, v, &a, gravity, tau, ws);
}

void biasForces(const Articulation& art, const VecX& q, const VecX& v, const Vec3& gravity,
                VecX& bias) {
  rnea(art, q, v, nullptr, gravity, bias, threadWorkspace());
}

void biasForces(const Articulation& art, const VecX& q, const VecX& v, const Vec3& gravity,
                VecX& bias, ArticulationWorkspace& ws) {
  rnea(art, q, v, nullptr, gravity, bias, ws);
}

void integrateConfiguration(const Articulation& art, const VecX& q, const VecX& v, double h,
                            VecX& q_out) {
  assert(q.size() == art.nq() && v.size() == art.nv());
  q_out = q;  // safe when q_out aliases q; everything below reads q_out
  for (const ArticulationLink& l : art.links) {
    switch (l.joint) {
      case Type::Fixed:
        break;
      case Type::Revolute:
      case Type::Prismatic:
        q_out(l.q_index) += h * v(l.v_index);
        break;
      case Type::Floating: {
        // q holds the pose relative to the joint frame while v is in world axes; the joint frame
        // is fixed (a floating joint is on a root), so rotate v into it once.
        const Quat R0 = l.joint_origin.orientation;
        q_out.segment<3>(l.q_index) += h * (R0.conjugate() * v.segment<3>(l.v_index));
        const Vec3 w_joint = R0.conjugate() * v.segment<3>(l.v_index + 3);
        const Quat r = integrateRotation(floatingQuaternion(q_out, l.q_index), w_joint, h);
        q_out.segment<4>(l.q_index + 3) = r.coeffs();  // Eigen's coeffs are x, y, z, w
        break;
      }
    }
  }
}

double kineticEnergy(const Articulation& art, const VecX& q, const VecX& v) {
  // Deliberately not spatial algebra: link origin velocities and angular velocities propagated in
  // 3D vectors, so this is an independent check of CRBA (tests compare 2T with v^T M v).
  ArticulationWorkspace& ws = threadWorkspace();
  const int n = static_cast<int>(art.links.size());
  ws.resize(n);
  std::vector<Pose>& poses = ws.poses;
  forwardKinematics(art, q, poses);
  // velocity[i] holds [omega; velocity of the link origin] here, not a spatial vector.
  auto w = [&](int k) { return ws.velocity[k].head<3>(); };
  auto vo = [&](int k) { return ws.velocity[k].tail<3>(); };
  double T = 0.0;
  for (int i = 0; i < n; ++i) {
    const ArticulationLink& l = art.links[i];
    Vec3 wp = Vec3::Zero(), vp = Vec3::Zero(), op = Vec3::Zero();
    if (l.parent >= 0) {
      wp = w(l.parent);
      vp = vo(l.parent);
      op = poses[l.parent].position;
    }
    w(i) = wp;
    vo(i) = vp + wp.cross(poses[i].position - op);
    switch (l.joint) {
      case Type::Fixed:
        break;
      case Type::Revolute:
        w(i) += poses[i].rotate(l.axis) * v(l.v_index);
        break;
      case Type::Prismatic:
        vo(i) += poses[i].rotate(l.axis) * v(l.v_index);
        break;
      case Type::Floating:
        vo(i) = v.segment<3>(l.v_index);
        w(i) = v.segment<3>(l.v_index + 3);
        break;
    }
    const Mat3 R = rotation(poses[i]);
    const Vec3 wi = w(i);
    const Vec3 v_com = vo(i) + wi.cross(R * l.com);
    T += 0.5 * (l.mass * v_com.squaredNorm() + wi.dot(R * l.inertia * R.transpose() * wi));
  }
  return T;
}

}  // namespace subsim
