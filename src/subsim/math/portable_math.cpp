#include "subsim/math/portable_math.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace subsim {
namespace {

std::uint64_t bitsOf(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double fromBits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

int biasedExponent(double x) {
  return static_cast<int>((bitsOf(x) >> 52) & 0x7ff);
}

constexpr double kPi = 3.14159265358979311600e+00;
constexpr double kPiLo = 1.22464679914735317720e-16;  // pi - kPi
constexpr double kPiOver2 = 1.57079632679489655800e+00;
constexpr double kPiOver4 = 7.85398163397448278999e-01;

// sin on [-pi/4, pi/4] of x + y (y the tail of the reduced argument, |y| < ulp(x) / 2).
double sinKernel(double x, double y) {
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                   S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                   S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double z = x * x;
  const double v = z * x;
  const double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

// cos on [-pi/4, pi/4] of x + y.
double cosKernel(double x, double y) {
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                   C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                   C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double z = x * x;
  const double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  const double ax = std::fabs(x);
  if (ax < 0.3) return 1.0 - (0.5 * z - (z * r - x * y));
  // 1 - z/2 loses bits above 0.3: subtract a short part qx of z/2 exactly first.
  const double qx = ax > 0.78125 ? 0.28125
                                 : fromBits((bitsOf(ax) - (std::uint64_t{2} << 52)) &
                                            0xffffffff00000000ull);  // ~x/4, 20 bits
  const double hz = 0.5 * z - qx;
  const double a = 1.0 - qx;
  return a - (hz - (z * r - x * y));
}

// x = n pi/2 + (y0 + y1) with |y0 + y1| <= pi/4 (about); returns n mod 4.
int reduceByPiOver2(double x, double& y0, double& y1) {
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  // pi/2 in three 33-bit parts and the tails after each: n * part is exact for |n| < 2^20.
  constexpr double P1 = 1.57079632673412561417e+00, P1t = 6.07710050650619224932e-11,
                   P2 = 6.07710050630396597660e-11, P2t = 2.02226624879595063154e-21,
                   P3 = 2.02226624871116645580e-21, P3t = 8.47842766036889956997e-32;
  const double fn = std::floor(x * kTwoOverPi + 0.5);
  double r = x - fn * P1;
  double w = fn * P1t;
  y0 = r - w;
  const int e = biasedExponent(x);
  // Cancellation: go on with the next part of pi/2 while the leading bits cancelled.
  if (e - biasedExponent(y0) > 16) {
    const double t = r;
    w = fn * P2;
    r = t - w;
    w = fn * P2t - ((t - r) - w);
    y0 = r - w;
    if (e - biasedExponent(y0) > 49) {
      const double t2 = r;
      w = fn * P3;
      r = t2 - w;
      w = fn * P3t - ((t2 - r) - w);
      y0 = r - w;
    }
  }
  y1 = (r - y0) - w;
  // fn is an integer-valued double; its last two bits give the quadrant.
  const double quarter = fn - 4.0 * std::floor(fn * 0.25);
  return static_cast<int>(quarter);
}

}  // namespace

void portableSinCos(double x, double& sin_x, double& cos_x) {
  if (!std::isfinite(x)) {
    sin_x = cos_x = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  const double ax = std::fabs(x);
  if (ax < 0x1p-27) {  // sin x = x and cos x = 1 to within rounding
    sin_x = x;
    cos_x = 1.0;
    return;
  }
  if (ax <= kPiOver4) {
    sin_x = sinKernel(x, 0.0);
    cos_x = cosKernel(x, 0.0);
    return;
  }
  double y0, y1;
  const int quadrant = reduceByPiOver2(x, y0, y1);
  const double s = sinKernel(y0, y1);
  const double c = cosKernel(y0, y1);
  switch (quadrant) {
    case 0:
      sin_x = s, cos_x = c;
      break;
    case 1:
      sin_x = c, cos_x = -s;
      break;
    case 2:
      sin_x = -s, cos_x = -c;
      break;
    default:
      sin_x = -c, cos_x = s;
      break;
  }
}

double portableSin(double x) {
  double s, c;
  portableSinCos(x, s, c);
  return s;
}

double portableCos(double x) {
  double s, c;
  portableSinCos(x, s, c);
  return c;
}

double portableAtan(double x) {
  if (std::isnan(x)) return x;
  // atan at 0.5, 1, 1.5 and infinity, each as a head and a tail.
  constexpr double kHi[] = {4.63647609000806093515e-01, 7.85398163397448278999e-01,
                            9.82793723247329054082e-01, 1.57079632679489655800e+00};
  constexpr double kLo[] = {2.26987774529616870924e-17, 3.06161699786838301793e-17,
                            1.39033110312309984516e-17, 6.12323399573676603587e-17};
  constexpr double T[] = {
      3.33333333333329318027e-01,  -1.99999999998764832476e-01, 1.42857142725034663711e-01,
      -1.11111104054623557880e-01, 9.09088713343650656196e-02,  -7.69187620504482999495e-02,
      6.66107313738753120669e-02,  -5.83357013379057348645e-02, 4.97687799461593236017e-02,
      -3.65315727442169155270e-02, 1.62858201153657823623e-02};
  const bool negative = std::signbit(x);
  double a = std::fabs(x);
  if (a >= 0x1p66) return negative ? -(kHi[3] + kLo[3]) : kHi[3] + kLo[3];
  if (a < 0x1p-27) return x;
  int id;
  if (a < 0.4375) {
    id = -1;
  } else if (a < 0.6875) {  // atan(a) = atan(1/2) + atan((2a - 1) / (2 + a))
    id = 0;
    a = (2.0 * a - 1.0) / (2.0 + a);
  } else if (a < 1.1875) {  // atan(1) + atan((a - 1) / (a + 1))
    id = 1;
    a = (a - 1.0) / (a + 1.0);
  } else if (a < 2.4375) {  // atan(3/2) + atan((a - 1.5) / (1 + 1.5 a))
    id = 2;
    a = (a - 1.5) / (1.0 + 1.5 * a);
  } else {  // atan(inf) + atan(-1 / a)
    id = 3;
    a = -1.0 / a;
  }
  const double z = a * a;
  const double w = z * z;
  // Odd and even coefficients summed apart (fdlibm's split), so the two chains interleave.
  const double s1 = z * (T[0] + w * (T[2] + w * (T[4] + w * (T[6] + w * (T[8] + w * T[10])))));
  const double s2 = w * (T[1] + w * (T[3] + w * (T[5] + w * (T[7] + w * T[9]))));
  if (id < 0) return negative ? -(a - a * (s1 + s2)) : a - a * (s1 + s2);
  const double r = kHi[id] - ((a * (s1 + s2) - kLo[id]) - a);
  return negative ? -r : r;
}

double portableAtan2(double y, double x) {
  if (std::isnan(x) || std::isnan(y)) return x + y;
  const bool y_negative = std::signbit(y);
  const auto withSignOfY = [&](double v) { return y_negative ? -v : v; };
  if (y == 0.0) return std::signbit(x) ? withSignOfY(kPi) : y;  // +-0 or +-pi
  if (x == 0.0) return withSignOfY(kPiOver2);
  if (std::isinf(x)) {
    if (std::isinf(y)) return withSignOfY(x > 0.0 ? kPiOver4 : 3.0 * kPiOver4);
    return x > 0.0 ? withSignOfY(0.0) : withSignOfY(kPi);
  }
  if (std::isinf(y)) return withSignOfY(kPiOver2);
  const int k = biasedExponent(y) - biasedExponent(x);
  double z;
  if (k > 60) return withSignOfY(kPiOver2 + 0.5 * kPiLo);  // |y / x| > 2^60, whatever x's sign
  if (x < 0.0 && k < -60) {
    z = 0.0;  // |y| / |x| < 2^-60 with x < 0: the answer is +-pi
  } else {
    z = portableAtan(std::fabs(y / x));
  }
  if (x > 0.0) return withSignOfY(z);
  return withSignOfY(kPi - (z - kPiLo));
}

}  // namespace subsim
