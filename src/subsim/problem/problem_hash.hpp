#pragma once
// Content hashes of recorded problems, so that a replay can tell whether it re-created exactly the
// problem (and warm start) that was recorded, and tools can spot duplicate problems in a file.
//
// FNV-1a 64 over every field in declaration order, each vector preceded by its length and every
// value widened to 64 bits and fed little-endian (doubles by bit pattern), so the hash does not
// depend on the platform and two inputs hash equal iff they are bit-identical (up to the
// ~2^-64 chance of a collision).  0.0 and -0.0, or two NaN payloads, hash differently.
#include <cstdint>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// Every field of the problem: the NCP form below, then the step data (theta, mass blocks,
/// velocities, raw errors, bias, stabilisation, frames) when the problem has it.
std::uint64_t problemHash(const StepProblem& problem);

/// The fields a solver of the NCP form reads: dt, subsystems, a_data, b, constraints (type, rows,
/// offsets, mu, key), attachments, jacobian_data, e, soft_k, soft_c, and the tree structure when
/// present.  Equal for two problems that every solver in solvers/ sees as the same.
std::uint64_t ncpFormHash(const StepProblem& problem);

/// The warm start part of a solution: vhat and lambda (stats are ignored).
std::uint64_t solutionHash(const StepSolution& warm_start);

}  // namespace subsim
