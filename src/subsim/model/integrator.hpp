#pragma once
// The integrate stage for rigid bodies: new pose and velocity from the midpoint velocity vhat.
#include "subsim/model/model.hpp"

namespace subsim {

/// g = 1 / (1 - theta), the factor of the theta-method (AL paper eq. 2) that turns the midpoint
/// velocity into the end-of-step one, v_{k+1} = g (vhat - theta v_k), and scales A = g M.  The
/// one place it is written (assembly, the World and this integrator all use it).
inline double thetaFactor(double theta) {
  return 1.0 / (1.0 - theta);
}

/// Advances one dynamic rigid body by h given its twist (v_hat, w_hat) from the solver, where
/// vhat = theta v_k + (1 - theta) v_{k+1} (Model::theta; 1/2 is the midpoint rule):
///   position:  x_{k+1} = x_k + h v_hat
///   linear:    v_{k+1} = (v_hat - theta v_k) / (1 - theta)
///   rotation:  R_{k+1} = exp(h [w_hat]) R_k                         (SO(3) exponential, world w)
///   angular:   L_{k+1} = I_k (w_hat - theta w_k) / (1 - theta),  w_{k+1} = I_{k+1}^{-1} L_{k+1}
/// The step solved M_k (v_{k+1} - v_k) = h f + J^T lambda with M_k = I_k = R_k I R_k^T; carrying
/// the angular momentum L (rather than w) across the rotation makes a torque-free body conserve L
/// exactly, which is how the gyroscopic term is handled.
void integrateRigidBody(const Body& body, const Vec3& v_hat, const Vec3& w_hat, double h,
                        double theta, Pose& pose, Vec3& linear_velocity, Vec3& angular_velocity);

/// Pose of a kinematic body at time t and its mean twist over [t, t + h] (finite difference of
/// the trajectory, so that contact with it is exact for the step).
void kinematicTwist(const Body& body, double t, double h, Vec3& linear_velocity,
                    Vec3& angular_velocity);

}  // namespace subsim
