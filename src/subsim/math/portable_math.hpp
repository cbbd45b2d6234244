#pragma once
// Sine, cosine and arctangent with the same bits on every x86-64 machine.
//
// glibc's libm picks its sin, cos, atan2, exp and log at load time by the processor's features
// (FMA / AVX2 variants or the SSE2 baseline), and the variants round differently: over 2e7
// arguments each function gave different bits with and without FMA (checked with
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX).  A rotation integrated through std::sin then
// depends on the machine, and a chaotic contact scene turns one ulp into a different trajectory.
// These functions use only IEEE basic operations (+, -, *, /, floor), which round the same
// everywhere once contraction into FMA is off (the build fixes -ffp-contract=off), so their bits
// depend on the argument alone.  Box2D (b2ComputeCosSin) and Jolt do the same for the same reason.
//
// Method (Cody-Waite range reduction by pi/2 with a three-part pi/2, then minimax polynomials on
// [-pi/4, pi/4]; the arctangent on four reduced intervals) follows fdlibm (Sun Microsystems, 1993),
// whose kernel coefficients these are.  Error: within 1 ulp of the exact value for |x| <= 8e5 (the
// tests check at most 2 ulp against libm over the ranges the simulator uses); larger arguments are
// reduced with growing absolute error, still deterministically.

namespace subsim {

/// sin(x) and cos(x) together (one range reduction); NaN for non-finite x.
void portableSinCos(double x, double& sin_x, double& cos_x);
double portableSin(double x);
double portableCos(double x);
/// atan(x) in (-pi/2, pi/2).
double portableAtan(double x);
/// The angle of (x, y) in [-pi, pi], with std::atan2's conventions for zeros and infinities.
double portableAtan2(double y, double x);

}  // namespace subsim
