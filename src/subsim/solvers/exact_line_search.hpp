#pragma once
// Exact line search for CANAL (AL paper eq. 26): the minimiser of a convex h(v + alpha d) along a
// descent direction is the root of its derivative g(alpha) = d^T r(v + alpha d), non-decreasing in
// alpha, negative at 0.  Found by a safeguarded Newton-bisection ("rtsafe", Press et al.,
// Numerical Recipes, 9.4): a Newton step on g when it stays inside the bracket and shrinks it
// fast enough, bisection otherwise.  g is piecewise smooth (the cone projection switches
// regions), which is why pure Newton on g is not safe.
#include <algorithm>
#include <cmath>

namespace subsim {

struct LineSearchResult {
  double alpha = 0.0;
  int evaluations = 0;
};

/// `g(alpha, &dg)` returns g and writes g'(alpha) >= 0.  g(0) = g0 < 0 is given.  The bracket
/// starts at [0, 1] and doubles its upper end (at most `max_expansions` times) until g >= 0 there;
/// the search stops when |g| <= tolerance * |g0| or the bracket is narrower than 1e-12 alpha.
template <class G>
LineSearchResult exactLineSearch(const G& g, double g0, double tolerance = 1e-10,
                                 int max_evaluations = 60, int max_expansions = 30) {
  LineSearchResult res;
  double lo = 0.0, hi = 1.0, dg = 0.0;
  double g_hi = g(hi, &dg);
  ++res.evaluations;
  const double target = tolerance * std::abs(g0);
  // The full Newton step is the usual answer: accept it at once when it is (nearly) the root.
  if (std::abs(g_hi) <= target) {
    res.alpha = hi;
    return res;
  }
  for (int k = 0; k < max_expansions && g_hi < 0.0; ++k) {
    lo = hi;
    hi *= 2.0;
    g_hi = g(hi, &dg);
    ++res.evaluations;
  }
  if (g_hi < 0.0) {  // no sign change within reach: take the farthest point (still a descent)
    res.alpha = hi;
    return res;
  }
  double alpha = 0.5 * (lo + hi);
  double dx_old = hi - lo, dx = dx_old;
  double ga = g(alpha, &dg);
  ++res.evaluations;
  while (res.evaluations < max_evaluations) {
    if (std::abs(ga) <= target) break;
    if (ga < 0.0)
      lo = alpha;
    else
      hi = alpha;
    // Newton out of range or not halving the step fast enough: bisect.
    const double newton = dg > 0.0 ? alpha - ga / dg : lo - 1.0;
    if (newton <= lo || newton >= hi || std::abs(2.0 * ga) > std::abs(dx_old * dg)) {
      dx_old = dx;
      dx = 0.5 * (hi - lo);
      alpha = lo + dx;
    } else {
      dx_old = dx;
      dx = newton - alpha;
      alpha = newton;
    }
    if (hi - lo <= 1e-12 * hi) break;
    ga = g(alpha, &dg);
    ++res.evaluations;
  }
  res.alpha = alpha;
  return res;
}

}  // namespace subsim
