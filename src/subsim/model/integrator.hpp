#pragma once
// The integrate stage for rigid bodies: new pose and velocity from the midpoint velocity vhat.
#include "subsim/math/theta_factor.hpp"
#include "subsim/model/model.hpp"

namespace subsim {

/// The angular velocity a torque-free rigid body of orientation R_k and angular velocity w_k
/// (world) has after h: Euler's equations I dw_b/dt = -w_b x I w_b in the body frame by the
/// implicit midpoint rule (Newton on the 3x3 system), which keeps the kinetic energy and |L| of a
/// free body exactly; returned in world coordinates of the frame R_k.  Where Newton does not
/// converge (h |w| of order 1 rad or more) it returns w_k: no gyroscopic change, still no energy
/// gained.  The assembly adds I_k (w' - w_k) to the momentum b as the step's gyroscopic impulse.
Vec3 gyroscopicEndVelocity(const Body& body, const Quat& orientation, const Vec3& w, double h);

/// Advances one dynamic rigid body by h given its twist (v_hat, w_hat) from the solver, where
/// vhat = theta v_k + (1 - theta) v_{k+1} (Model::theta; 1/2 is the midpoint rule):
///   position:  x_{k+1} = x_k + h v_hat
///   linear:    v_{k+1} = (v_hat - theta v_k) / (1 - theta)
///   rotation:  R_{k+1} = exp(h [w_hat]) R_k                         (SO(3) exponential, world w)
///   angular:   w_{k+1} = R_{k+1} R_k^T (w_hat - theta w_k) / (1 - theta)
/// The step solved I_k (w_{k+1} - w_k) = I_k (w' - w_k) + h tau + J^T lambda in the frame R_k,
/// with the gyroscopic impulse of gyroscopicEndVelocity(); the end velocity is then carried with
/// the body into R_{k+1}, so that a free body's body-frame w follows the midpoint rule exactly
/// (energy and |L| kept; world L turns by O(h^2)).  Carrying L instead (w_{k+1} = I_{k+1}^-1 L)
/// with the explicit rotation exp(h w_k) made a tumbling rod drift to its least-inertia axis,
/// gaining 18x its energy in 3 s.
void integrateRigidBody(const Vec3& v_hat, const Vec3& w_hat, double h, double theta, Pose& pose,
                        Vec3& linear_velocity, Vec3& angular_velocity);

/// Pose of a kinematic body at time t and its mean twist over [t, t + h] (finite difference of
/// the trajectory, so that contact with it is exact for the step).
void kinematicTwist(const Body& body, double t, double h, Vec3& linear_velocity,
                    Vec3& angular_velocity);

}  // namespace subsim
