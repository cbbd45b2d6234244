#include "subsim/model/integrator.hpp"

#include "subsim/math/so3.hpp"

namespace subsim {

void integrateRigidBody(const Body& body, const Vec3& v_hat, const Vec3& w_hat, double h,
                        double theta, Pose& pose, Vec3& linear_velocity, Vec3& angular_velocity) {
  const double g = thetaFactor(theta);
  pose.position += h * v_hat;
  linear_velocity = g * (v_hat - theta * linear_velocity);
  const Mat3 R0 = pose.orientation.toRotationMatrix();
  const Vec3 w_next = g * (w_hat - theta * angular_velocity);
  const Vec3 L = R0 * (body.inertia * (R0.transpose() * w_next));
  pose.orientation = integrateRotation(pose.orientation, w_hat, h);
  const Mat3 R1 = pose.orientation.toRotationMatrix();
  angular_velocity = R1 * body.inertia.ldlt().solve(R1.transpose() * L);
}

void kinematicTwist(const Body& body, double t, double h, Vec3& linear_velocity,
                    Vec3& angular_velocity) {
  const Pose p0 = body.trajectory.pose(t);
  const Pose p1 = body.trajectory.pose(t + h);
  linear_velocity = (p1.position - p0.position) / h;
  angular_velocity = quatLog(p1.orientation * p0.orientation.conjugate()) / h;
}

}  // namespace subsim
