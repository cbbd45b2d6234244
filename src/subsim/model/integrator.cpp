#include "subsim/model/integrator.hpp"

#include "subsim/math/so3.hpp"

namespace subsim {

void integrateRigidBody(const Vec3& v_hat, const Vec3& w_hat, double h, double theta, Pose& pose,
                        Vec3& linear_velocity, Vec3& angular_velocity) {
  const double g = thetaFactor(theta);
  pose.position += h * v_hat;
  linear_velocity = g * (v_hat - theta * linear_velocity);
  const Quat q0 = pose.orientation;
  const Vec3 w_next = g * (w_hat - theta * angular_velocity);
  pose.orientation = integrateRotation(q0, w_hat, h);
  angular_velocity = pose.orientation * (q0.conjugate() * w_next);
}

Vec3 gyroscopicEndVelocity(const Body& body, const Quat& orientation, const Vec3& w, double h) {
  const Mat3& I = body.inertia;
  const Vec3 w_b = orientation.conjugate() * w;
  // F(x) = I (x - w_b) + h m x I m,  m = (w_b + x) / 2;  dF/dx = I + h/2 ([m]x I - [I m]x).
  Vec3 x = w_b;
  double step = 0.0;
  for (int it = 0; it < 20; ++it) {
    const Vec3 m = 0.5 * (w_b + x);
    const Vec3 Im = I * m;
    const Vec3 F = I * (x - w_b) + h * m.cross(Im);
    const Mat3 dF = I + 0.5 * h * (skew(m) * I - skew(Im));
    const Vec3 dx = dF.partialPivLu().solve(F);
    x -= dx;
    step = dx.norm();
    if (!(step > 1e-14 * x.norm())) break;  // converged, or not finite
  }
  // Newton converges quadratically where h |w| is small; a last step still far from round-off
  // (or non-finite) means it did not: no gyroscopic change rather than a wrong one.
  const bool converged = x.allFinite() && step <= 1e-8 * (x.norm() + w_b.norm());
  return converged ? Vec3(orientation * x) : w;
}

void kinematicTwist(const Body& body, double t, double h, Vec3& linear_velocity,
                    Vec3& angular_velocity) {
  const Pose p0 = body.trajectory.pose(t);
  const Pose p1 = body.trajectory.pose(t + h);
  linear_velocity = (p1.position - p0.position) / h;
  angular_velocity = quatLog(p1.orientation * p0.orientation.conjugate()) / h;
}

}  // namespace subsim
