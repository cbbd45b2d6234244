#pragma once

namespace subsim {

/// g = 1 / (1 - theta), the factor of the theta-method (AL paper eq. 2) that turns the midpoint
/// velocity into the end-of-step one, v_{k+1} = g (vhat - theta v_k), and scales A = g M.  The
/// one place it is written (assembly, the World, the integrator and SubADMM's penalty bound use
/// it).
inline double thetaFactor(double theta) {
  return 1.0 / (1.0 - theta);
}

}  // namespace subsim
