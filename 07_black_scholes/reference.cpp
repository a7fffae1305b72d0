// Lesson 07: the references every row is checked against, and the bounds it is held to.
//
// Teaches: two different errors hide in one number.
//  - The model error: the classic's polynomial CND is not N(d). Against the exact N(d) =
//    erfc(-d / sqrt 2) / 2 it is off by up to 7.5e-8, so a price is off by up to 7.5e-8 (S + X
//    e^(-rT)) whatever the precision of the arithmetic. model_error() measures it, in long double.
//  - The arithmetic error: how far a row is from the same formula (the same polynomial) computed
//    in long double, whose 64-bit mantissa makes its own rounding negligible next to double's.
//    This is what verification checks, with a bound derived from the precision and the option's
//    condition (price_tolerances), so a float row and a double row are each held to what their
//    precision can deliver, no more and no less.
// The references never form 1 - (1 - tail) (see formula.hpp): a small put stays accurate.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "black_scholes.hpp"

namespace black_scholes {

namespace {

// The classic's constants as long double literals: the polynomial itself, exactly as written.
constexpr long double kP = 0.2316419L;
constexpr long double kA1 = 0.31938153L;
constexpr long double kA2 = -0.356563782L;
constexpr long double kA3 = 1.781477937L;
constexpr long double kA4 = -1.821255978L;
constexpr long double kA5 = 1.330274429L;
constexpr long double kInvSqrt2Pi = 0.39894228040143267793994605993438L;
constexpr long double kInvSqrt2 = 0.70710678118654752440084436210485L;
static_assert(static_cast<double>(kA1) == kCndA1 && static_cast<double>(kA5) == kCndA5 &&
              static_cast<double>(kP) == kCndP && static_cast<double>(kInvSqrt2Pi) == kRsqrt2Pi);

// N(-|d|), the lower tail, without cancellation in either form.
long double tail(long double d, Cnd cnd) {
  const long double magnitude = std::fabs(d);
  if (cnd == Cnd::exact) return 0.5L * std::erfc(magnitude * kInvSqrt2);
  const long double k = 1.0L / (1.0L + kP * magnitude);
  return kInvSqrt2Pi * std::exp(-0.5L * d * d) * (k * (kA1 + k * (kA2 + k * (kA3 + k * (kA4 + k * kA5)))));
}

std::string sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}

}  // namespace

long double normal_cdf(long double d, Cnd cnd) {
  const long double lower = tail(d, cnd);
  return d > 0 ? 1.0L - lower : lower;
}

Prices<long double> reference_price(long double S, long double X, long double years, long double rate,
                                    long double volatility, Cnd cnd) {
  const long double v_sqrt_t = volatility * std::sqrt(years);
  const long double d1 = (std::log(S / X) + (rate + 0.5L * volatility * volatility) * years) / v_sqrt_t;
  const long double d2 = d1 - v_sqrt_t;
  const long double discounted_strike = X * std::exp(-rate * years);
  const long double tail1 = tail(d1, cnd), tail2 = tail(d2, cnd);
  const long double n_d1 = d1 > 0 ? 1.0L - tail1 : tail1;   // N(d1)
  const long double n_md1 = d1 > 0 ? tail1 : 1.0L - tail1;  // N(-d1)
  const long double n_d2 = d2 > 0 ? 1.0L - tail2 : tail2;
  const long double n_md2 = d2 > 0 ? tail2 : 1.0L - tail2;
  return {S * n_d1 - discounted_strike * n_d2, discounted_strike * n_md2 - S * n_md1};
}

template <class T>
void reference_prices(Inputs<T> in, Market market, Cnd cnd, std::span<long double> call, std::span<long double> put) {
  // The market as a row of precision T sees it: rounded to T once.
  const long double rate = static_cast<T>(market.rate);
  const long double volatility = static_cast<T>(market.volatility);
  const std::size_t n = in.size();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const Prices<long double> p = reference_price(in.price[i], in.strike[i], in.years[i], rate, volatility, cnd);
    call[i] = p.call;
    put[i] = p.put;
  }
}

namespace {

// Sums and the largest error, merged across threads.
struct ErrorAccumulator {
  long double sum_error = 0, sum_reference = 0;
  double max_abs = -1;
  std::size_t worst_index = 0;
  void add(std::size_t i, long double value, long double reference) {
    const long double error = std::fabs(value - reference);
    sum_error += error;
    sum_reference += std::fabs(reference);
    if (static_cast<double>(error) > max_abs || std::isnan(error)) {
      max_abs = std::isnan(error) ? std::numeric_limits<double>::infinity() : static_cast<double>(error);
      worst_index = i;
    }
  }
  void merge(const ErrorAccumulator& other) {
    sum_error += other.sum_error;
    sum_reference += other.sum_reference;
    if (other.max_abs > max_abs || (other.max_abs == max_abs && other.worst_index < worst_index)) {
      max_abs = other.max_abs;
      worst_index = other.worst_index;
    }
  }
  ErrorStats stats() const {
    return {std::max(0.0, max_abs),
            static_cast<double>(sum_reference > 0 ? sum_error / sum_reference : sum_error), worst_index};
  }
};

}  // namespace

ErrorStats error_stats(std::span<const long double> values, std::span<const long double> reference) {
  ErrorAccumulator accumulator;
  for (std::size_t i = 0; i < values.size(); ++i) accumulator.add(i, values[i], reference[i]);
  return accumulator.stats();
}

template <class T>
ModelError model_error(Inputs<T> in, Market market) {
  const long double rate = static_cast<T>(market.rate);
  const long double volatility = static_cast<T>(market.volatility);
  const std::size_t n = in.size();
  ErrorAccumulator call, put;
  long double largest = 0;  // S + X e^(-rT)
#pragma omp parallel
  {
    ErrorAccumulator my_call, my_put;
    long double my_largest = 0;
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const long double S = in.price[i], X = in.strike[i], years = in.years[i];
      const Prices<long double> poly = reference_price(S, X, years, rate, volatility, Cnd::polynomial);
      const Prices<long double> exact = reference_price(S, X, years, rate, volatility, Cnd::exact);
      my_call.add(i, poly.call, exact.call);
      my_put.add(i, poly.put, exact.put);
      my_largest = std::max(my_largest, S + X * std::exp(-rate * years));
    }
#pragma omp critical(black_scholes_model_error)
    {
      call.merge(my_call);
      put.merge(my_put);
      largest = std::max(largest, my_largest);
    }
  }
  return {call.stats(), put.stats(), kCndPolynomialMaxError * static_cast<double>(largest)};
}

std::string PriceTolerance::describe() const {
  return "abs " + sci(max_abs) + " and rel L1 <= " + sci(max_rel_l1);
}

// [docs:condition]
// How much rounding errors of relative size u in the steps of the formula can move one option's
// prices, in units of u: the sizes of the two terms (S N(d1) and X e^(-rT) N(d2), each at most S
// and X e^(-rT); the discount's exponent adds rT), plus the density S phi(d1) = X e^(-rT) phi(d2)
// times the absolute error of d1 and d2 in units of u (from ln(S/X), the drift and the division
// by v sqrt T, each rounded, plus the relative rounding of d itself).
double condition(double S, double X, double years, double rate, double volatility) {
  const double v_sqrt_t = volatility * std::sqrt(years);
  const double log_moneyness = std::log(S / X);
  const double drift = (rate + 0.5 * volatility * volatility) * years;
  const double d1 = (log_moneyness + drift) / v_sqrt_t;
  const double d2 = d1 - v_sqrt_t;
  const double discounted_strike = X * std::exp(-rate * years);
  const double density = S * kRsqrt2Pi * std::exp(-0.5 * d1 * d1);  // S phi(d1)
  const double d_error = (1 + std::fabs(log_moneyness) + std::fabs(drift)) / v_sqrt_t + std::fabs(d1) +
                         std::fabs(d2) + v_sqrt_t;
  return S + discounted_strike * (1 + std::fabs(rate) * years) + density * d_error;
}
// [docs:end condition]

template <class T>
PriceTolerances price_tolerances(Inputs<T> in, Market market, double factor) {
  const double rate = static_cast<T>(market.rate);
  const double volatility = static_cast<T>(market.volatility);
  const Coefficients<double> coefficients = make_coefficients(rate, volatility);
  const std::size_t n = in.size();
  double max_kappa = 0, sum_kappa = 0, sum_call = 0, sum_put = 0;
#pragma omp parallel for reduction(max : max_kappa) reduction(+ : sum_kappa, sum_call, sum_put) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const double S = in.price[i], X = in.strike[i], years = in.years[i];
    const double kappa = condition(S, X, years, rate, volatility);
    max_kappa = std::max(max_kappa, kappa);
    sum_kappa += kappa;
    const Prices<double> p = price_shared_exp<HostMath, double>(S, X, years, coefficients);
    sum_call += std::fabs(p.call);
    sum_put += std::fabs(p.put);
  }
  const double u = std::numeric_limits<T>::epsilon() / 2;  // unit roundoff: 2^-24 float, 2^-53 double
  const double infinity = std::numeric_limits<double>::infinity();
  PriceTolerances tolerances;
  tolerances.max_kappa = max_kappa;
  tolerances.call = {factor * u * max_kappa, sum_call > 0 ? factor * u * sum_kappa / sum_call : infinity};
  tolerances.put = {factor * u * max_kappa, sum_put > 0 ? factor * u * sum_kappa / sum_put : infinity};
  return tolerances;
}

namespace {

// The element check is course::verify's; the relative L1 norm is held to its bound here.
course::VerifyResult with_l1_bound(course::VerifyResult result, const PriceTolerance& tolerance) {
  result.tolerance_text = tolerance.describe();
  if (result.passed && !(result.rel_l1_error <= tolerance.max_rel_l1)) {
    result.passed = false;
    result.tolerance_text += "; rel L1 " + sci(result.rel_l1_error) + " is over it";
  }
  return result;
}

}  // namespace

template <class T>
course::VerifyResult verify_prices(std::span<const T> prices, const course::ReferenceBlock& reference,
                                   const PriceTolerance& tolerance) {
  return with_l1_bound(course::verify(prices, reference, course::Tolerance::relative(0, tolerance.max_abs)), tolerance);
}

course::VerifyResult verify_prices(std::span<const double> prices, const course::LongReferenceBlock& reference,
                                   const PriceTolerance& tolerance) {
  course::VerifyResult result = course::verify(prices, reference, course::Tolerance::relative(0, tolerance.max_abs));
  return with_l1_bound(std::move(result), tolerance);
}

template <class T>
course::VerifyResult verify_prices(std::span<const T> prices, std::span<const long double> reference,
                                   const PriceTolerance& tolerance) {
  if constexpr (std::is_same_v<T, double>) {
    return verify_prices(prices, course::long_reference_of(reference), tolerance);
  } else {
    return verify_prices<T>(prices, reference_block(reference), tolerance);
  }
}

course::ReferenceBlock reference_block(std::span<const long double> reference) {
  return [reference](std::size_t begin, std::size_t end, double* out) {
    for (std::size_t i = begin; i < end; ++i) out[i - begin] = static_cast<double>(reference[i]);
  };
}

template void reference_prices<float>(Inputs<float>, Market, Cnd, std::span<long double>, std::span<long double>);
template void reference_prices<double>(Inputs<double>, Market, Cnd, std::span<long double>, std::span<long double>);
template ModelError model_error<float>(Inputs<float>, Market);
template ModelError model_error<double>(Inputs<double>, Market);
template PriceTolerances price_tolerances<float>(Inputs<float>, Market, double);
template PriceTolerances price_tolerances<double>(Inputs<double>, Market, double);
template course::VerifyResult verify_prices<float>(std::span<const float>, const course::ReferenceBlock&,
                                                   const PriceTolerance&);
template course::VerifyResult verify_prices<double>(std::span<const double>, const course::ReferenceBlock&,
                                                    const PriceTolerance&);
template course::VerifyResult verify_prices<float>(std::span<const float>, std::span<const long double>,
                                                   const PriceTolerance&);
template course::VerifyResult verify_prices<double>(std::span<const double>, std::span<const long double>,
                                                    const PriceTolerance&);

}  // namespace black_scholes
