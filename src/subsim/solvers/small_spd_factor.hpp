#pragma once
// Cholesky factor and solves for small dense SPD matrices (a SubADMM subsystem of a few bodies:
// 4 cable segments are 24 DOF).  Eigen's dynamic-size triangular solves carry a blocking and
// dispatch overhead that dominates at this size: on the 640-segment cable they took 43 % of
// SubADMM's time.  These plain column-oriented loops (the inverse of the diagonal stored in
// place of it, so no division in a solve) halve the v-step; an explicit inverse would make the
// v-step a single product but costs three times a factorisation, and the adaptive penalty
// refactors a subsystem several times per step.  No heap allocation.
//
// The loops keep to K's envelope: Cholesky fills no entry of L outside the rows that K's lower
// triangle reaches in the columns up to it (the profile), so those entries are zero and skipped.
// A chain of bodies (cable segments coupled in a row) has a block-tridiagonal K and a
// block-bidiagonal factor: at 4 segments a third of the dense solve's products are with zeros.
// Skipping them changes no value (only, at most, the sign of an exact zero).
#include "subsim/math/types.hpp"

namespace subsim {

inline constexpr int kSmallSpdMaxSize = 48;

/// Factors the n x n column-major SPD matrix K (n <= kSmallSpdMaxSize) as L L^T into `factor`
/// (n x n column-major: L below the diagonal, 1 / L_jj on it, L^T above it, so that both
/// triangular solves run down contiguous columns) and its envelope into `envelope` (2n ints:
/// the last row column j of L may fill, then the first column row j of L may fill).
/// False when K is not positive definite (then `factor` holds garbage).
bool factorSmallSpd(const double* K, int n, double* factor, int* envelope);

/// x = K^-1 x with the factor and envelope of factorSmallSpd.
void solveSmallSpd(const double* factor, int n, const int* envelope, double* x);

}  // namespace subsim
