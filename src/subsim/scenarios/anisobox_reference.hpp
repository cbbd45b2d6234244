#pragma once
// The reference path of the `anisobox` scene (COND paper section V-G, Fig. 14): a box sliding on
// a floor with elliptic friction under maximal dissipation,
//   x'' = -g (mu1^2 vx, mu2^2 vy) / |(mu1 vx, mu2 vy)|,
// integrated with classical RK4 at 1e-5 s until it stops.  The simulated path converges to it at
// first order in the time step.
#include <Eigen/Core>

namespace subsim {

/// Where the box stops, from the origin, launched at `v0` (m/s) on a floor with friction mu1
/// along x and mu2 along y, gravity `g` (m/s^2).
Eigen::Vector2d anisotropicSlideStop(double mu1, double mu2, const Eigen::Vector2d& v0,
                                     double g = 9.81);

}  // namespace subsim
