#pragma once
// The accuracy-time front of `subsim bench --front` (README.md, "The accuracy-time front"): each
// solver (at each thread count) gives a curve of (solve time, AA) points over an iteration sweep
// on identical recorded problems, and a method is better where it reaches more accuracy in less
// time.  These functions read such curves; they do not run anything.
#include <optional>
#include <vector>

namespace subsim::bench {

/// One point of a curve: mean solve time per problem (ms) and AA (mean -log10 of the AL paper's
/// constraint residual).
struct FrontPoint {
  double ms = 0.0;
  double aa = 0.0;
};

/// For every point of every curve, whether it is on the front: no point of any curve is at least
/// as fast and at least as accurate while strictly better in one of the two.  Equal points are
/// both on it.
std::vector<std::vector<bool>> paretoFront(const std::vector<std::vector<FrontPoint>>& curves);

/// The solve time at which `curve` first reaches accuracy `target`, on its envelope (the best AA
/// reached within each time, points taken by increasing time): the first point's time when it is
/// already there, else interpolated linearly in log time between the envelope's last point below
/// `target` and its first at or above it.  Empty when the curve never reaches `target`.
std::optional<double> timeToReach(std::vector<FrontPoint> curve, double target);

/// The accuracy the envelope of `curve` has reached within `ms` (interpolated linearly in log time
/// between its points; its best AA beyond its slowest point).  Empty when its fastest point is
/// slower than `ms`.
std::optional<double> accuracyWithin(std::vector<FrontPoint> curve, double ms);

}  // namespace subsim::bench
