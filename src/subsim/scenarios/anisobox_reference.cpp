#include "subsim/scenarios/anisobox_reference.hpp"

#include <cmath>

namespace subsim {

Eigen::Vector2d anisotropicSlideStop(double mu1, double mu2, const Eigen::Vector2d& v0, double g) {
  const double dt = 1e-5;
  Eigen::Vector2d x = Eigen::Vector2d::Zero(), v = v0;
  const auto accel = [&](const Eigen::Vector2d& vel) {
    const double norm = std::hypot(mu1 * vel[0], mu2 * vel[1]);
    return Eigen::Vector2d(-g * mu1 * mu1 * vel[0] / norm, -g * mu2 * mu2 * vel[1] / norm);
  };
  for (int k = 0; k < 10000000 && v.norm() > 1e-9; ++k) {
    if ((v + dt * accel(v)).dot(v) <= 0.0) break;  // it stops within this step
    const Eigen::Vector2d k1v = accel(v), k1x = v;
    const Eigen::Vector2d k2v = accel(v + 0.5 * dt * k1v), k2x = v + 0.5 * dt * k1v;
    const Eigen::Vector2d k3v = accel(v + 0.5 * dt * k2v), k3x = v + 0.5 * dt * k2v;
    const Eigen::Vector2d k4v = accel(v + dt * k3v), k4x = v + dt * k3v;
    x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
  }
  return x;
}

}  // namespace subsim
