// Lesson 07: the Black-Scholes formula, once, for every side that computes it: the CPU rows
// (g++, scalar and SIMD lanes), the GPU kernels (nvcc) and the tests.
//
// Teaches:
//  - the model in code: a European call (put) pays max(S - X, 0) (max(X - S, 0)) at expiry T;
//    under Black-Scholes its price today is
//      call = S N(d1) - X e^(-rT) N(d2),   put = X e^(-rT) N(-d2) - S N(-d1),
//      d1 = (ln(S/X) + (r + v^2/2) T) / (v sqrt(T)),   d2 = d1 - v sqrt(T),
//    with N the cumulative normal distribution (CND), r the risk-free rate, v the volatility;
//  - the classic's CND: a 5-term polynomial in k = 1 / (1 + p |d|) times the normal density
//    (Abramowitz & Stegun 26.2.17, error below 7.5e-8), which gives the tail N(-|d|) directly;
//  - one formula, several "math policies": the same template runs with the accurate device
//    functions (expf, logf), the fast intrinsics (__expf, __logf), glibc's vector functions on
//    CPU lanes, and plain std:: functions, so no two copies of the formula can drift apart;
//  - cancellation: the classic writes the put with 1 - N(d). For large d, N(d) is 1 - tail with a
//    tiny tail, and 1 - N(d) keeps only the bits of the tail that survived the rounding of
//    1 - tail: in float, a tail below 6e-8 is lost entirely. price_shared_exp() never forms
//    1 - (1 - tail): it keeps the tail and chooses which side to subtract it from.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define BS_HD __host__ __device__ __forceinline__
#else
#define BS_HD inline
#endif

namespace black_scholes {

// The polynomial CND's constants, as the classic wrote them.
inline constexpr double kCndP = 0.2316419;
inline constexpr double kCndA1 = 0.31938153;
inline constexpr double kCndA2 = -0.356563782;
inline constexpr double kCndA3 = 1.781477937;
inline constexpr double kCndA4 = -1.821255978;
inline constexpr double kCndA5 = 1.330274429;
inline constexpr double kRsqrt2Pi = 0.39894228040143267793994605993438;  // 1 / sqrt(2 pi)
// Abramowitz & Stegun's bound on |polynomial CND - N(d)|, for every d.
inline constexpr double kCndPolynomialMaxError = 7.5e-8;

template <class T>
struct Prices {
  T call, put;
};

// The per-run constants of the market, computed once (on the host) in the precision T.
template <class T>
struct Coefficients {
  T rate;                // r
  T volatility;          // v
  T drift;               // r + v^2 / 2
  T inverse_volatility;  // 1 / v
};
template <class T>
BS_HD Coefficients<T> make_coefficients(T rate, T volatility) {
  return {rate, volatility, rate + T(0.5) * volatility * volatility, T(1) / volatility};
}

// The math functions of the host's C++ library (float, double and long double).
struct HostMath {
  template <class T> static T exp(T x) { return std::exp(x); }
  template <class T> static T log(T x) { return std::log(x); }
  template <class T> static T sqrt(T x) { return std::sqrt(x); }
  template <class T> static T rsqrt(T x) { return T(1) / std::sqrt(x); }
  template <class A, class B> static auto div(A a, B b) { return a / b; }
};

#if defined(__CUDACC__)
namespace detail {

// The math policies of the GPU kernels (kernels/NN_name.cu).
// DeviceMath: the accurate functions of CUDA's math library: expf within 2 ulp, logf 1 ulp,
// rsqrtf 2 ulp; in double exp and log within 1 ulp, rsqrt 1 ulp. Division and sqrt are
// IEEE-rounded (nvcc's defaults, -prec-div=true -prec-sqrt=true).
struct DeviceMath {
  __device__ static float exp(float x) { return ::expf(x); }
  __device__ static double exp(double x) { return ::exp(x); }
  __device__ static float log(float x) { return ::logf(x); }
  __device__ static double log(double x) { return ::log(x); }
  __device__ static float sqrt(float x) { return ::sqrtf(x); }
  __device__ static double sqrt(double x) { return ::sqrt(x); }
  __device__ static float rsqrt(float x) { return ::rsqrtf(x); }
  __device__ static double rsqrt(double x) { return ::rsqrt(x); }
  template <class A, class B>
  __device__ static auto div(A a, B b) {
    return a / b;
  }
};

// FastMath: the special-function unit's approximations (float only; CUDA Programming Guide,
// intrinsic functions): __expf within 2 + floor(|1.173 x|) ulp, __logf within 2^-21.41 absolute
// for x in [0.5, 2] and 3 ulp elsewhere, __fdividef 2 ulp, rsqrtf 2 ulp. A few instructions each
// where the accurate ones take tens. Denormal results flush to zero.
struct FastMath {
  __device__ static float exp(float x) { return __expf(x); }
  __device__ static float log(float x) { return __logf(x); }
  __device__ static float sqrt(float x) { return __fsqrt_rn(x); }
  __device__ static float rsqrt(float x) { return ::rsqrtf(x); }
  __device__ static float div(float a, float b) { return __fdividef(a, b); }
};

}  // namespace detail
#endif

// |d|, written so that it works for scalars and for the CPU's vector types alike.
template <class T, class V>
BS_HD V magnitude(const V& d) {
  return d < T(0) ? -d : d;
}

// N(-|d|) = density(d) * tail_polynomial(d), the polynomial part of the classic's CND.
// V is a scalar T or a vector of T (CPU lanes); T is the scalar type.
template <class Math, class T, class V>
BS_HD V tail_polynomial(const V& d) {
  const V k = Math::div(T(1), T(1) + T(kCndP) * magnitude<T>(d));
  return k * (T(kCndA1) + k * (T(kCndA2) + k * (T(kCndA3) + k * (T(kCndA4) + k * T(kCndA5)))));
}

// The classic's cnd(d): the tail, and 1 - tail for d > 0.
template <class Math, class T>
BS_HD T cnd_classic(T d) {
  const T tail = T(kRsqrt2Pi) * Math::exp(T(-0.5) * d * d) * tail_polynomial<Math, T>(d);
  return d > T(0) ? T(1) - tail : tail;
}

// [docs:price_classic]
// One option as the classic priced it: three exponentials (two in the CNDs), a log, a square
// root, and the put from 1 - cnd (which cancels for large d).
template <class Math, class T>
BS_HD Prices<T> price_classic(T S, T X, T years, T rate, T volatility) {
  const T sqrt_t = Math::sqrt(years);
  const T d1 = Math::div(Math::log(Math::div(S, X)) + (rate + T(0.5) * volatility * volatility) * years,
                         volatility * sqrt_t);
  const T d2 = d1 - volatility * sqrt_t;
  const T cnd_d1 = cnd_classic<Math>(d1);
  const T cnd_d2 = cnd_classic<Math>(d2);
  const T discount = Math::exp(-rate * years);
  return {S * cnd_d1 - X * discount * cnd_d2, X * discount * (T(1) - cnd_d2) - S * (T(1) - cnd_d1)};
}
// [docs:end price_classic]

// [docs:price_shared_exp]
// The same prices with one exponential fewer, and no 1 - (1 - tail).
//  - The density terms of both CNDs are equal: S phi(d1) = X e^(-rT) phi(d2) (expand d2^2 =
//    d1^2 - 2 d1 v sqrt(T) + v^2 T), so exp(-d1^2 / 2) serves both.
//  - Each CND is kept as its tail, N(-|d|) = phi(d) P(k), already multiplied by S or X e^(-rT);
//    N(d) and N(-d) are then "tail" or "whole - tail", chosen by the sign of d.
//  - 1 / (v sqrt(T)) is (1 / v) rsqrt(T): one reciprocal square root, no division.
// V is T (one option) or a vector of T (CPU lanes, one option each); vectors are passed by
// reference (by value, GCC would note that the calling convention for 32- and 64-byte vectors
// depends on the instruction set: a concern only for calls that are not inlined, and these are).
template <class Math, class T, class V>
BS_HD Prices<V> price_shared_exp(const V& S, const V& X, const V& years, const Coefficients<T>& c) {
  const V inv_sqrt_t = Math::rsqrt(years);
  const V d1 = (Math::log(Math::div(S, X)) + c.drift * years) * (c.inverse_volatility * inv_sqrt_t);
  const V d2 = d1 - c.volatility * (years * inv_sqrt_t);
  const V discounted_strike = X * Math::exp(-c.rate * years);           // X e^(-rT)
  const V density = S * (T(kRsqrt2Pi) * Math::exp(T(-0.5) * d1 * d1));  // S phi(d1) = X e^(-rT) phi(d2)
  const V s_tail = density * tail_polynomial<Math, T>(d1);  // S N(-|d1|)
  const V x_tail = density * tail_polynomial<Math, T>(d2);  // X e^(-rT) N(-|d2|)
  const V s_above = d1 > T(0) ? S - s_tail : s_tail;           // S N(d1)
  const V s_below = d1 > T(0) ? s_tail : S - s_tail;           // S N(-d1)
  const V x_above = d2 > T(0) ? discounted_strike - x_tail : x_tail;  // X e^(-rT) N(d2)
  const V x_below = d2 > T(0) ? x_tail : discounted_strike - x_tail;  // X e^(-rT) N(-d2)
  return {s_above - x_above, x_below - s_below};
}
// [docs:end price_shared_exp]

}  // namespace black_scholes
