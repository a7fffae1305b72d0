// Tests of lesson 07: known prices, put-call parity, extreme options, the CPU rows at every
// length, checks that fail when they should, and every GPU kernel of the registry at awkward
// counts in each precision it is built for. Suites named Gpu* need a GPU (label gpu); the
// others run anywhere (cpu).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "black_scholes.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "exercises/exercises.hpp"
#include "exercise_record.hpp"
#include "gpu_test.hpp"

namespace {

using namespace black_scholes;

// Counts that break sloppy kernels: none, one, around the block and vector boundaries, primes.
const std::size_t kCounts[] = {0, 1, 2, 3, 5, 7, 31, 1023, 1024, 1025, 4099, 65537, 100003};

template <class T>
OptionSet<T> options_of(const OptionSet<double>& options) {
  if constexpr (std::is_same_v<T, float>) {
    return round_to_float(options);
  } else {
    return options;
  }
}

template <class T>
OptionSet<T> random_options(std::size_t n, std::uint64_t seed) {
  return options_of<T>(make_options(n, seed));
}

// One hand-made option per entry, in precision T.
template <class T>
OptionSet<T> options_from(const std::vector<std::array<double, 3>>& list) {
  OptionSet<double> options;
  for (const auto& [S, X, years] : list) {
    options.price.push_back(S);
    options.strike.push_back(X);
    options.years.push_back(years);
  }
  return options_of<T>(options);
}

struct Priced {
  std::vector<long double> call, put;
};
template <class T>
Priced reference_of(const OptionSet<T>& options, Market market, Cnd cnd = Cnd::polynomial) {
  Priced priced{std::vector<long double>(options.size()), std::vector<long double>(options.size())};
  reference_prices(options.inputs(), market, cnd, std::span(priced.call), std::span(priced.put));
  return priced;
}

template <class T>
struct Result {
  std::vector<T> call, put;
  explicit Result(std::size_t n)
      : call(n, std::numeric_limits<T>::quiet_NaN()), put(n, std::numeric_limits<T>::quiet_NaN()) {}
  Outputs<T> outputs() { return {call, put}; }
};

// "" when both outputs pass their checks; otherwise what failed.
template <class T>
std::string failures(const OptionSet<T>& options, Market market, const Result<T>& result, double factor) {
  const Priced reference = reference_of(options, market);
  const PriceTolerances tolerances = price_tolerances(options.inputs(), market, factor);
  const auto call = verify_prices<T>(std::span<const T>(result.call), std::span<const long double>(reference.call),
                                     tolerances.call);
  const auto put = verify_prices<T>(std::span<const T>(result.put), std::span<const long double>(reference.put),
                                    tolerances.put);
  std::string text;
  if (!call.passed) text += "call: " + call.summary() + "\n";
  if (!put.passed) text += "put: " + put.summary() + "\n";
  return text;
}

// The CPU rows, by name, so a failure says which.
template <class T>
struct CpuRow {
  const char* name;
  void (*price)(Inputs<T>, Outputs<T>, Market);
};
template <class T>
void simd_serial_default(Inputs<T> in, Outputs<T> out, Market market) {
  price_simd_serial<T>(in, out, market);
}
template <class T>
void simd_parallel_default(Inputs<T> in, Outputs<T> out, Market market) {
  price_simd_parallel<T>(in, out, market);
}
template <class T>
void simd_parallel_no_prefetch(Inputs<T> in, Outputs<T> out, Market market) {
  price_simd_parallel<T>(in, out, market, Prefetch::hardware_only);
}
template <class T>
std::vector<CpuRow<T>> cpu_rows() {
  return {{"serial (classic formula)", &price_serial<T>},
          {"SIMD, 1 thread", &simd_serial_default<T>},
          {"SIMD, all threads", &simd_parallel_default<T>},
          {"SIMD, all threads, no prefetch", &simd_parallel_no_prefetch<T>}};
}

template <class T>
class BlackScholesCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
class PrecisionName {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, float> ? "float" : "double";
  }
};
TYPED_TEST_SUITE(BlackScholesCpu, Precisions, PrecisionName);

// ---- Known values ---------------------------------------------------------------------------

// The textbook option: S = 100, X = 100, T = 1 year, r = 5%, v = 20%.
TEST(BlackScholesReference, TextbookValuesWithTheExactCnd) {
  const auto exact = reference_price(100, 100, 1, 0.05L, 0.2L, Cnd::exact);
  EXPECT_NEAR(static_cast<double>(exact.call), 10.4506, 5e-5);
  EXPECT_NEAR(static_cast<double>(exact.put), 5.5735, 5e-5);
  // The polynomial CND is within 7.5e-8 of N(d), so each price within 7.5e-8 (S + X e^(-rT)).
  const auto poly = reference_price(100, 100, 1, 0.05L, 0.2L, Cnd::polynomial);
  const double bound = kCndPolynomialMaxError * (100 + 100 * std::exp(-0.05));
  EXPECT_LE(std::fabs(static_cast<double>(poly.call - exact.call)), bound);
  EXPECT_LE(std::fabs(static_cast<double>(poly.put - exact.put)), bound);
  EXPECT_NE(poly.call, exact.call) << "the polynomial is an approximation: some difference must show";
}

TEST(BlackScholesReference, NormalCdfKnownValues) {
  for (const Cnd cnd : {Cnd::exact, Cnd::polynomial}) {
    const double tolerance = cnd == Cnd::exact ? 1e-18 : kCndPolynomialMaxError;
    EXPECT_NEAR(static_cast<double>(normal_cdf(0, cnd)), 0.5, tolerance);
    EXPECT_NEAR(static_cast<double>(normal_cdf(1.959963984540054L, cnd)), 0.975, tolerance + 1e-15);
    EXPECT_NEAR(static_cast<double>(normal_cdf(-1, cnd)), 0.15865525393145705, tolerance + 1e-15);
    EXPECT_NEAR(static_cast<double>(normal_cdf(3, cnd) + normal_cdf(-3, cnd)), 1.0, 1e-18) << "N(d) + N(-d) = 1";
  }
  // A&S 26.2.17's bound holds on a fine grid of d.
  long double worst = 0;
  for (int i = -8000; i <= 8000; ++i) {
    const long double d = i / 1000.0L;
    worst = std::max(worst, std::fabs(normal_cdf(d, Cnd::polynomial) - normal_cdf(d, Cnd::exact)));
  }
  EXPECT_LE(static_cast<double>(worst), kCndPolynomialMaxError);
  EXPECT_GT(static_cast<double>(worst), 1e-9);
}

TYPED_TEST(BlackScholesCpu, TextbookOptionInEveryRow) {
  using T = TypeParam;
  const Market market{0.05, 0.2};
  const auto options = options_from<T>({{100, 100, 1}});
  for (const auto& row : cpu_rows<T>()) {
    SCOPED_TRACE(row.name);
    Result<T> result(1);
    row.price(options.inputs(), result.outputs(), market);
    EXPECT_EQ(failures(options, market, result, kAccurateFactor), "");
    EXPECT_NEAR(result.call[0], 10.4506, 2e-4);  // the polynomial's 1e-5 and float's rounding
    EXPECT_NEAR(result.put[0], 5.5735, 2e-4);
  }
}

// ---- Put-call parity: C - P = S - X e^(-rT), whatever N is ---------------------------------------

TYPED_TEST(BlackScholesCpu, PutCallParityOnRandomOptions) {
  using T = TypeParam;
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Market market{0.03, 0.45};
  const auto options = random_options<T>(20011, seed);
  // Each price is within the bound, so C - P is within twice it.
  const double bound = 2 * price_tolerances(options.inputs(), market, kAccurateFactor).call.max_abs;
  const long double rate = static_cast<T>(market.rate);
  for (const auto& row : cpu_rows<T>()) {
    SCOPED_TRACE(row.name);
    Result<T> result(options.size());
    row.price(options.inputs(), result.outputs(), market);
    double worst = 0;
    for (std::size_t i = 0; i < options.size(); ++i) {
      const long double forward = options.price[i] - options.strike[i] * std::exp(-rate * options.years[i]);
      worst = std::max(worst, static_cast<double>(std::fabs((result.call[i] - static_cast<long double>(result.put[i])) -
                                                            forward)));
    }
    EXPECT_LE(worst, bound);
  }
}

// ---- Extremes: deep in and out of the money, very short and very long expiries --------------------

TYPED_TEST(BlackScholesCpu, DeepMoneynessAndExtremeExpiries) {
  using T = TypeParam;
  const Market market;  // the classic's 2% and 30%
  const auto options = options_from<T>({
      {30, 1, 1},        // deep in the money: call ~ S - X e^-rT, put ~ 0
      {5, 100, 1},       // deep out of the money: call ~ 0, put ~ X e^-rT - S
      {30, 1, 0.001},    // under a day to expiry
      {20, 20, 0.001},   // at the money, under a day: d small, both prices small
      {5, 100, 0.001},   //
      {20, 20, 1.0 / 365},
      {20, 25, 50},      // fifty years: discounting dominates
      {5, 100, 50},
      {30, 1, 50},
  });
  const Priced reference = reference_of(options, market);
  for (const auto& row : cpu_rows<T>()) {
    SCOPED_TRACE(row.name);
    Result<T> result(options.size());
    row.price(options.inputs(), result.outputs(), market);
    EXPECT_EQ(failures(options, market, result, kAccurateFactor), "");
    const double slack = price_tolerances(options.inputs(), market, kAccurateFactor).call.max_abs;
    for (std::size_t i = 0; i < options.size(); ++i) {
      SCOPED_TRACE("option " + std::to_string(i));
      const double S = options.price[i], X = options.strike[i];
      const double discounted = X * std::exp(-static_cast<double>(static_cast<T>(market.rate)) * options.years[i]);
      // No-arbitrage bounds: max(S - X e^-rT, 0) <= C <= S, max(X e^-rT - S, 0) <= P <= X e^-rT.
      EXPECT_GE(result.call[i], std::max(S - discounted, 0.0) - slack);
      EXPECT_LE(result.call[i], S + slack);
      EXPECT_GE(result.put[i], std::max(discounted - S, 0.0) - slack);
      EXPECT_LE(result.put[i], discounted + slack);
      EXPECT_TRUE(std::isfinite(result.call[i]) && std::isfinite(result.put[i]));
    }
  }
  // The long double reference itself: the deep in-the-money put is tiny but not zero.
  EXPECT_GT(reference.put[0], 0.0L);
  EXPECT_LT(reference.put[0], 1e-20L);
}

// 1 - (1 - tail) loses the tail: the classic's put of a deep in-the-money call is 0 in float
// (or garbage in its last bits), and in double once the tail is below 1e-16; the tail form keeps
// it to a few ulp of its own size. All are within the absolute bound: only the relative error of
// the small put shows the cancellation (docs/07_black_scholes.md, section 10, prints this table).
TEST(BlackScholesCancellation, ThePutKeepsItsTailOnlyWithoutOneMinusCnd) {
  struct Case {
    float S, X, years;
    bool classic_float_lost, classic_double_lost;
  };
  const Case cases[] = {{30, 5, 1, true, false}, {28, 1, 4, true, false}, {30, 1, 1, true, true},
                        {30, 10, 1, false, false}};
  const float rate = 0.02f, volatility = 0.3f;
  std::printf("%5s %4s %4s %11s | %-23s %-23s | %-23s %-23s\n", "S", "X", "T", "put", "float 1 - cnd (rel err)",
              "float tail form", "double 1 - cnd", "double tail form");
  for (const Case& c : cases) {
    const long double exact = reference_price(c.S, c.X, c.years, rate, volatility, Cnd::polynomial).put;
    ASSERT_GT(exact, 0.0L);
    const auto relative = [&](long double value) { return static_cast<double>(std::fabs((value - exact) / exact)); };
    const float classic_f = price_classic<HostMath>(c.S, c.X, c.years, rate, volatility).put;
    const float tail_f = price_shared_exp<HostMath, float>(c.S, c.X, c.years, make_coefficients(rate, volatility)).put;
    const double S = c.S, X = c.X, years = c.years, r = rate, v = volatility;
    const double classic_d = price_classic<HostMath>(S, X, years, r, v).put;
    const double tail_d = price_shared_exp<HostMath, double>(S, X, years, make_coefficients(r, v)).put;
    std::printf("%5g %4g %4g %11.4Le | %10.3e (%9.2e) %10.3e (%9.2e) | %10.3e (%9.2e) %10.3e (%9.2e)\n", c.S, c.X,
                c.years, exact, classic_f, relative(classic_f), tail_f, relative(tail_f), classic_d,
                relative(classic_d), tail_d, relative(tail_d));
    if (c.classic_float_lost) {
      EXPECT_GT(relative(classic_f), 0.5);
    }
    if (c.classic_double_lost) {
      EXPECT_GT(relative(classic_d), 0.5);
    }
    EXPECT_LT(relative(tail_f), 1e-4);
    EXPECT_LT(relative(tail_d), 1e-13);
  }
}

// ---- Every length, every thread count -------------------------------------------------------------

TYPED_TEST(BlackScholesCpu, EveryRowAtEveryCount) {
  using T = TypeParam;
  const std::uint64_t seed = course::fresh_seed();
  const Market market;
  for (std::size_t n : kCounts) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto options = random_options<T>(n, seed);
    for (const auto& row : cpu_rows<T>()) {
      SCOPED_TRACE(row.name);
      Result<T> result(n);
      row.price(options.inputs(), result.outputs(), market);
      EXPECT_EQ(failures(options, market, result, kAccurateFactor), "");
    }
  }
}

TYPED_TEST(BlackScholesCpu, SimdGivesTheSameBitsOnAnyThreadCountAndPrefetch) {
  using T = TypeParam;
  const auto options = random_options<T>(100003, course::fresh_seed());
  const Market market;
  Result<T> one(options.size()), all(options.size()), two(options.size()), plain(options.size());
  price_simd_serial<T>(options.inputs(), one.outputs(), market);
  price_simd_parallel<T>(options.inputs(), all.outputs(), market);
  price_simd_parallel<T>(options.inputs(), plain.outputs(), market, Prefetch::hardware_only);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(3);  // slices that end inside a vector of the widest width
  price_simd_parallel<T>(options.inputs(), two.outputs(), market);
  omp_set_num_threads(threads);
  const std::size_t bytes = options.size() * sizeof(T);
  for (const Result<T>* other : {&all, &two, &plain}) {
    EXPECT_EQ(std::memcmp(one.call.data(), other->call.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(one.put.data(), other->put.data(), bytes), 0);
  }
}

TEST(BlackScholesData, SameOptionsForAnyThreadCountInTheClassicRanges) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = make_options(200003, 7);
  omp_set_num_threads(std::max(2, threads));
  const auto many = make_options(200003, 7);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.price, many.price);
  EXPECT_EQ(one.strike, many.strike);
  EXPECT_EQ(one.years, many.years);
  EXPECT_NE(one.price, make_options(200003, 8).price) << "another seed, other options";
  for (std::size_t i = 0; i < one.size(); ++i) {
    ASSERT_TRUE(one.price[i] >= kPriceRange.low && one.price[i] <= kPriceRange.high);
    ASSERT_TRUE(one.strike[i] >= kStrikeRange.low && one.strike[i] <= kStrikeRange.high);
    ASSERT_TRUE(one.years[i] >= kYearsRange.low && one.years[i] <= kYearsRange.high);
  }
  EXPECT_NE(one.price, one.strike) << "each quantity has its own stream";
  const auto rounded = round_to_float(one);
  EXPECT_EQ(rounded.price[123], static_cast<float>(one.price[123]));
}

// ---- The errors, measured and bounded ---------------------------------------------------------------

TEST(BlackScholesModelError, WithinTheBoundAndNotZero) {
  const auto options = make_options(50021, course::fresh_seed());
  const ModelError model = model_error(options.inputs(), Market{});
  EXPECT_GT(model.bound, 0);
  EXPECT_LE(model.call.max_abs, model.bound);
  EXPECT_LE(model.put.max_abs, model.bound);
  EXPECT_GT(model.call.max_abs, 1e-9) << "the polynomial differs from N(d): the model error must show";
  EXPECT_GT(model.call.rel_l1, 0);
}

// K = 16 is not fitted to the data: in every CPU row, over markets and options well beyond the
// classic's, the worst single option stays far inside K u kappa (the test prints the worst ratio;
// docs/07_black_scholes.md, section 9, quotes it).
TYPED_TEST(BlackScholesCpu, WorstOptionIsFarInsideTheBound) {
  using T = TypeParam;
  struct Scenario {
    const char* name;
    Market market;
    Range price, strike, years;
  };
  const Scenario scenarios[] = {
      {"classic", {0.02, 0.30}, kPriceRange, kStrikeRange, kYearsRange},
      {"low volatility", {0.02, 0.05}, kPriceRange, kStrikeRange, kYearsRange},
      {"high volatility and rate", {0.10, 1.50}, kPriceRange, kStrikeRange, kYearsRange},
      {"expiry 1e-4 to 0.01 years", {0.02, 0.30}, kPriceRange, kStrikeRange, {1e-4, 0.01}},
      {"at the money, 0.01 to 30 years", {0.02, 0.30}, {99, 101}, {99, 101}, {0.01, 30}},
      {"negative rate", {-0.01, 0.30}, kPriceRange, kStrikeRange, kYearsRange},
  };
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Scenario& scenario : scenarios) {
    OptionSet<double> drawn;
    drawn.price.resize(100003);
    drawn.strike.resize(100003);
    drawn.years.resize(100003);
    course::fill_uniform(std::span(drawn.price), seed, scenario.price.low, scenario.price.high);
    course::fill_uniform(std::span(drawn.strike), seed + 1, scenario.strike.low, scenario.strike.high);
    course::fill_uniform(std::span(drawn.years), seed + 2, scenario.years.low, scenario.years.high);
    const OptionSet<T> options = options_of<T>(drawn);
    const Priced reference = reference_of(options, scenario.market);
    const double rate = static_cast<T>(scenario.market.rate), volatility = static_cast<T>(scenario.market.volatility);
    for (const auto& row : cpu_rows<T>()) {
      Result<T> result(options.size());
      row.price(options.inputs(), result.outputs(), scenario.market);
      double worst = 0;
      for (std::size_t i = 0; i < options.size(); ++i) {
        const double kappa = condition(options.price[i], options.strike[i], options.years[i], rate, volatility);
        const double error = std::max(std::fabs(static_cast<double>(result.call[i] - reference.call[i])),
                                      std::fabs(static_cast<double>(result.put[i] - reference.put[i])));
        worst = std::max(worst, error / (u * kappa));
      }
      std::printf("%-6s %-32s %-32s worst option: %.2f u kappa\n", std::is_same_v<T, float> ? "float" : "double",
                  scenario.name, row.name, worst);
      EXPECT_LT(worst, kAccurateFactor / 2) << scenario.name << ", " << row.name;
    }
  }
}

TEST(BlackScholesTolerance, DerivedFromThePrecisionAndNotVacuous) {
  const auto options = make_options(10007, 3);
  const Market market;
  const auto in_float = price_tolerances(round_to_float(options).inputs(), market, kAccurateFactor);
  const auto in_double = price_tolerances(options.inputs(), market, kAccurateFactor);
  // The same condition, scaled by the unit roundoff: 2^29 apart.
  EXPECT_NEAR(in_float.call.max_abs / in_double.call.max_abs, std::ldexp(1.0, 29), std::ldexp(1.0, 29) * 1e-6);
  // On the classic's options a float price may be off by a few 1e-4 at most, a double by ~1e-12.
  EXPECT_LT(in_float.call.max_abs, 1e-3);
  EXPECT_LT(in_double.put.max_abs, 1e-11);
  EXPECT_LT(in_float.put.max_rel_l1, 1e-4);
}

// ---- Wrong results fail -------------------------------------------------------------------------------

template <class T>
class BlackScholesWrong : public ::testing::Test {};
TYPED_TEST_SUITE(BlackScholesWrong, Precisions, PrecisionName);

TYPED_TEST(BlackScholesWrong, AWrongCallFailsAndTheRightPutStillPasses) {
  using T = TypeParam;
  const Market market;
  const auto options = random_options<T>(30011, course::fresh_seed());
  Result<T> right(options.size());
  price_simd_parallel<T>(options.inputs(), right.outputs(), market);
  ASSERT_EQ(failures(options, market, right, kAccurateFactor), "");
  // A plausible bug: the strike discounted with e^(+rT) instead of e^(-rT) in the call.
  Result<T> wrong = right;
  const long double rate = static_cast<T>(market.rate), volatility = static_cast<T>(market.volatility);
  for (std::size_t i = 0; i < options.size(); ++i) {
    const long double S = options.price[i], X = options.strike[i], years = options.years[i];
    const long double v_sqrt_t = volatility * std::sqrt(years);
    const long double d1 = (std::log(S / X) + (rate + volatility * volatility / 2) * years) / v_sqrt_t;
    wrong.call[i] = static_cast<T>(S * normal_cdf(d1, Cnd::polynomial) -
                                   X * std::exp(rate * years) * normal_cdf(d1 - v_sqrt_t, Cnd::polynomial));
  }
  const std::string report = failures(options, market, wrong, kAccurateFactor);
  EXPECT_NE(report.find("call: FAILED"), std::string::npos) << report;
  EXPECT_EQ(report.find("put:"), std::string::npos) << "only the call is wrong: " << report;
}

TYPED_TEST(BlackScholesWrong, AWrongPutFailsAndTheRightCallStillPasses) {
  using T = TypeParam;
  const Market market;
  const auto options = random_options<T>(30011, course::fresh_seed());
  Result<T> right(options.size());
  price_simd_parallel<T>(options.inputs(), right.outputs(), market);
  // A plausible bug: the put from parity with the undiscounted strike, P = C - S + X.
  Result<T> wrong = right;
  for (std::size_t i = 0; i < options.size(); ++i) {
    wrong.put[i] = right.call[i] - options.price[i] + options.strike[i];
  }
  const std::string report = failures(options, market, wrong, kAccurateFactor);
  EXPECT_NE(report.find("put: FAILED"), std::string::npos) << report;
  EXPECT_EQ(report.find("call:"), std::string::npos) << "only the put is wrong: " << report;
}

TYPED_TEST(BlackScholesWrong, OneBadElementOrOneMissingElementFails) {
  using T = TypeParam;
  const Market market;
  const auto options = random_options<T>(4099, course::fresh_seed());
  Result<T> right(options.size());
  price_simd_parallel<T>(options.inputs(), right.outputs(), market);
  const double max_abs = price_tolerances(options.inputs(), market, kAccurateFactor).put.max_abs;
  Result<T> one_off = right;
  one_off.put[4000] += static_cast<T>(4 * max_abs);
  EXPECT_NE(failures(options, market, one_off, kAccurateFactor), "");
  Result<T> missing = right;
  missing.call[17] = std::numeric_limits<T>::quiet_NaN();  // as a poisoned, unwritten output reads
  EXPECT_NE(failures(options, market, missing, kAccurateFactor).find("call: FAILED"), std::string::npos);
}

// A small error in every element: each is within the per-element bound, the sum is not.
TEST(BlackScholesWrongNorm, ASystematicErrorFailsTheL1NormAlone) {
  const Market market;
  const auto options = random_options<float>(20011, 11);
  Result<float> result(options.size());
  price_simd_parallel<float>(options.inputs(), result.outputs(), market);
  const PriceTolerances tolerances = price_tolerances(options.inputs(), market, kAccurateFactor);
  for (float& call : result.call) call += static_cast<float>(0.9 * tolerances.call.max_abs);
  const Priced reference = reference_of(options, market);
  const auto check = verify_prices<float>(std::span<const float>(result.call),
                                          std::span<const long double>(reference.call), tolerances.call);
  EXPECT_FALSE(check.passed) << check.summary();
  EXPECT_EQ(check.mismatches, 0u) << "every element is within the bound: only the norm catches it";
  EXPECT_NE(check.tolerance_text.find("rel L1"), std::string::npos) << check.summary();
}

// ---- The registry ---------------------------------------------------------------------------------

TEST(BlackScholesRegistry, OneHeadlinePerPrecisionAndNamesUnique) {
  const auto names = course::kernel_names(kernels());
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names.front(), "classic") << "the progression starts with the classic kernel";
  for (const auto precision : {course::Precision::fp32, course::Precision::fp64}) {
    int headlines = 0;
    for (const auto& kernel : kernels()) {
      headlines += kernel.traits.headline && course::includes(kernel.traits.precisions, precision);
    }
    EXPECT_EQ(headlines, 1);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) EXPECT_NE(names[i], names[j]);
  }
}

// ---- GPU ------------------------------------------------------------------------------------------

// The options on the GPU in `extra` more elements than asked (left poisoned: nothing may write
// past the count), priced by `launch`, read back.
template <class T>
Result<T> run_on_gpu(PriceFn<T> launch, const OptionSet<T>& options, Market market, int block = 0,
                     std::size_t offset = 0) {
  const std::size_t n = options.size(), size = n + offset + 8;
  course::DeviceBuffer<T> price(size), strike(size), years(size), call(size), put(size);
  std::vector<T> padded(size, T(1));
  const auto upload = [&](course::DeviceBuffer<T>& buffer, const std::vector<T>& values) {
    std::copy(values.begin(), values.end(), padded.begin() + static_cast<std::ptrdiff_t>(offset));
    buffer.copy_from_host(padded);
  };
  upload(price, options.price);
  upload(strike, options.strike);
  upload(years, options.years);
  call.poison();
  put.poison();
  launch(make_args<T>(price.data() + offset, strike.data() + offset, years.data() + offset, call.data() + offset,
                      put.data() + offset, n, market, block),
         nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> all_call(size), all_put(size);
  call.copy_to_host(all_call);
  put.copy_to_host(all_put);
  for (std::size_t i = 0; i < size; ++i) {
    if (i < offset || i >= offset + n) {
      EXPECT_TRUE(std::isnan(all_call[i]) && std::isnan(all_put[i])) << "wrote outside the options at " << i;
    }
  }
  Result<T> result(n);
  std::copy_n(all_call.begin() + static_cast<std::ptrdiff_t>(offset), n, result.call.begin());
  std::copy_n(all_put.begin() + static_cast<std::ptrdiff_t>(offset), n, result.put.begin());
  return result;
}

// Every kernel in kernels/registry.inc, in each precision its traits name, without naming any.
class GpuBlackScholesKernels : public ::testing::TestWithParam<std::string> {
 protected:
  const course::KernelEntry<Launcher>& entry() const {
    for (const auto& kernel : kernels()) {
      if (kernel.name == GetParam()) return kernel;
    }
    throw std::out_of_range(GetParam());
  }
  template <class T>
  bool runs_in() const {
    return course::includes(entry().traits.precisions,
                             std::is_same_v<T, float> ? course::Precision::fp32 : course::Precision::fp64);
  }
  template <class T>
  void check_counts() {
    if (!runs_in<T>()) return;
    const std::uint64_t seed = course::fresh_seed();
    const Market market;
    for (std::size_t n : kCounts) {
      SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + ", n = " + std::to_string(n) +
                   ", seed = " + std::to_string(seed));
      const auto options = random_options<T>(n, seed);
      const Result<T> result = run_on_gpu<T>(entry().launch.template get<T>(), options, market);
      EXPECT_EQ(failures(options, market, result, error_factor(entry().traits)), "");
    }
  }
  template <class T>
  void check_parity() {
    if (!runs_in<T>()) return;
    const Market market{0.05, 0.6};
    const auto options = random_options<T>(65537, course::fresh_seed());
    const Result<T> result = run_on_gpu<T>(entry().launch.template get<T>(), options, market);
    const double bound = 2 * price_tolerances(options.inputs(), market, error_factor(entry().traits)).call.max_abs;
    const long double rate = static_cast<T>(market.rate);
    double worst = 0;
    for (std::size_t i = 0; i < options.size(); ++i) {
      const long double forward = options.price[i] - options.strike[i] * std::exp(-rate * options.years[i]);
      worst = std::max(worst, static_cast<double>(std::fabs(result.call[i] - static_cast<long double>(result.put[i]) -
                                                            forward)));
    }
    EXPECT_LE(worst, bound) << (sizeof(T) == 4 ? "float" : "double");
  }
  template <class T>
  void check_blocks_and_offsets() {
    if (!runs_in<T>()) return;
    const Market market;
    const auto options = random_options<T>(100003, course::fresh_seed());
    const double factor = error_factor(entry().traits);
    for (int block : {32, 100, 256, 1024}) {  // 1024: the classic's block must launch
      SCOPED_TRACE("block " + std::to_string(block));
      EXPECT_EQ(failures(options, market, run_on_gpu<T>(entry().launch.template get<T>(), options, market, block),
                         factor),
                "");
    }
    for (std::size_t offset : {1, 2, 3}) {  // not 16-byte aligned: the vector kernels fall back
      SCOPED_TRACE("arrays offset by " + std::to_string(offset) + " elements");
      EXPECT_EQ(failures(options, market,
                         run_on_gpu<T>(entry().launch.template get<T>(), options, market, 0, offset), factor),
                "");
    }
  }
  // The worst single option in units of u kappa: how much of its factor K the kernel uses.
  template <class T>
  void check_worst_option() {
    if (!runs_in<T>()) return;
    const Market market;
    const auto options = random_options<T>(100003, course::fresh_seed());
    const Result<T> result = run_on_gpu<T>(entry().launch.template get<T>(), options, market);
    const Priced reference = reference_of(options, market);
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double rate = static_cast<T>(market.rate), volatility = static_cast<T>(market.volatility);
    double worst = 0;
    for (std::size_t i = 0; i < options.size(); ++i) {
      const double kappa = condition(options.price[i], options.strike[i], options.years[i], rate, volatility);
      const double error = std::max(std::fabs(static_cast<double>(result.call[i] - reference.call[i])),
                                    std::fabs(static_cast<double>(result.put[i] - reference.put[i])));
      worst = std::max(worst, error / (u * kappa));
    }
    std::printf("%-6s %-12s worst option: %.2f u kappa (K = %g)\n", std::is_same_v<T, float> ? "float" : "double",
                GetParam().c_str(), worst, error_factor(entry().traits));
    EXPECT_LT(worst, error_factor(entry().traits));
  }
};

TEST_P(GpuBlackScholesKernels, WorstOptionWithinItsFactor) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  check_worst_option<float>();
  check_worst_option<double>();
}

TEST_P(GpuBlackScholesKernels, MatchTheReferenceAtAwkwardCounts) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  check_counts<float>();
  check_counts<double>();
}

TEST_P(GpuBlackScholesKernels, PutCallParity) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  check_parity<float>();
  check_parity<double>();
}

TEST_P(GpuBlackScholesKernels, AnyBlockSizeAndMisalignedArrays) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  check_blocks_and_offsets<float>();
  check_blocks_and_offsets<double>();
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuBlackScholesKernels, ::testing::ValuesIn(course::kernel_names(kernels())),
                         course::testing::ParamName());

// The library row (library.cu): Thrust over zip iterators, held to the accurate kernels' factor at
// the awkward counts (none, one, around the vector and block boundaries) and on arrays that are
// not 16-byte aligned; run_on_gpu also fails any write outside the options.
template <class T>
void check_thrust_price() {
  const Market market;
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kCounts) {
    SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + ", n = " + std::to_string(n) +
                 ", seed = " + std::to_string(seed));
    const auto options = random_options<T>(n, seed);
    EXPECT_EQ(failures(options, market, run_on_gpu<T>(&thrust_price<T>, options, market), kAccurateFactor), "");
  }
  const auto options = random_options<T>(100003, seed);
  for (std::size_t offset : {1, 3}) {
    SCOPED_TRACE("arrays offset by " + std::to_string(offset) + " elements");
    EXPECT_EQ(failures(options, market, run_on_gpu<T>(&thrust_price<T>, options, market, 0, offset), kAccurateFactor),
              "");
  }
}

TEST(GpuBlackScholesLibrary, ThrustMatchesTheReferenceAtAwkwardCounts) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  check_thrust_price<float>();
  check_thrust_price<double>();
}

TEST(GpuBlackScholes, AShortLaunchLeavesPoisonThatFails) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const Market market;
  const auto options = random_options<double>(4099, course::fresh_seed());
  auto shorter = options;  // price one option fewer than the arrays hold
  shorter.price.pop_back();
  shorter.strike.pop_back();
  shorter.years.pop_back();
  Result<double> result = run_on_gpu<double>(&launch_shared_exp<double>, shorter, market);
  result.call.push_back(std::numeric_limits<double>::quiet_NaN());  // what the unwritten element reads as
  result.put.push_back(std::numeric_limits<double>::quiet_NaN());
  const std::string report = failures(options, market, result, kAccurateFactor);
  EXPECT_NE(report.find("call: FAILED"), std::string::npos) << report;
  EXPECT_NE(report.find("put: FAILED"), std::string::npos) << report;
}

// The double instantiation exists so the table links; it refuses before touching the GPU.
TEST(BlackScholesRegistry, FastMathRefusesDouble) {
  EXPECT_THROW(launch_fast_math<double>(PricingArgs<double>{.count = 1}, nullptr), std::invalid_argument);
}

// ---- Exercise 1: the digital call ---------------------------------------------------------------------

std::vector<float> run_digital(void (*launch)(const exercises::DigitalArgs&, cudaStream_t),
                               const OptionSet<float>& options, Market market) {
  const std::size_t n = options.size();
  course::DeviceBuffer<float> price(n), strike(n), years(n), digital(n);
  price.copy_from_host(options.price);
  strike.copy_from_host(options.strike);
  years.copy_from_host(options.years);
  digital.poison();
  launch({price.data(), strike.data(), years.data(), digital.data(), n,
          make_coefficients(static_cast<float>(market.rate), static_cast<float>(market.volatility))},
         nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> out(n);
  digital.copy_to_host(out);
  return out;
}

// e^(-rT) N(d2) <= 1 is computed to a few u, plus phi(d2) times the error of d2, at most ~75 u on
// the classic's options (kappa's d term without S): 16 u (1 + 0.4 * 75) ~ 3e-5; 5e-5 leaves room.
course::VerifyResult check_digital(const OptionSet<float>& options, Market market, const std::vector<float>& digital) {
  const long double rate = static_cast<float>(market.rate), volatility = static_cast<float>(market.volatility);
  std::vector<double> reference(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const long double S = options.price[i], X = options.strike[i], years = options.years[i];
    const long double v_sqrt_t = volatility * std::sqrt(years);
    const long double d2 = (std::log(S / X) + (rate + volatility * volatility / 2) * years) / v_sqrt_t - v_sqrt_t;
    reference[i] = static_cast<double>(std::exp(-rate * years) * normal_cdf(d2, Cnd::polynomial));
  }
  return course::verify(std::span<const float>(digital), std::span<const double>(reference),
                        course::Tolerance::relative(0, 5e-5));
}

// The digital exercises' check (digital, vector_tail): every count, every remainder of n / 4.
void expect_digital_matches(void (*launch)(const exercises::DigitalArgs&, cudaStream_t)) {
  const Market market;
  for (std::size_t n : {1, 2, 3, 4, 5, 1023, 1024, 100003}) {
    const auto options = random_options<float>(n, course::fresh_seed());
    const auto check = check_digital(options, market, run_digital(launch, options, market));
    ASSERT_TRUE(check.passed) << "n = " << n << ": " << check.summary();
  }
}

TEST(GpuDigitalExercise, SolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_digital_matches(exercises::launch_digital_solution);
}

// The student's check (./scripts/check_exercise.sh 07 digital): DISABLED_ in the default run,
// where the shipped starter fails it.
TEST(GpuDigitalExercise, DISABLED_StarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_digital_matches(exercises::launch_digital_starter);
}

TEST(GpuDigitalExercise, StarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("07_black_scholes", "digital");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const auto options = random_options<float>(1000, 5);
  const Market market;
  const auto check = check_digital(options, market, run_digital(exercises::launch_digital_starter, options, market));
  EXPECT_FALSE(check.passed) << "the empty starter writes nothing: every element should stay poisoned";
  EXPECT_EQ(check.nan_count, options.size());
}

// ---- Find the bug (vector_tail): right prices, loads past the end that only memcheck sees -----------

TEST(GpuDigitalExercise, VectorTailSolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_digital_matches(exercises::launch_vector_tail_solution);
}

// The student's check (./scripts/check_exercise.sh 07 vector_tail runs it under compute-sanitizer
// --tool memcheck, which reports the starter's loads past the end although its prices are right).
TEST(GpuDigitalExercise, DISABLED_VectorTailStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_digital_matches(exercises::launch_vector_tail_starter);
}

// The starter as shipped, once at a count that is not a multiple of four, results not checked: the
// test 07_black_scholes.sanitizer.vector_tail_starter runs this one under memcheck and expects the error.
TEST(GpuDigitalExercise, VectorTailStarterAsShippedRuns) {
  COURSE_SKIP_IF_STARTER_EDITED("07_black_scholes", "vector_tail");
  COURSE_REQUIRE_GPU_OR_SKIP();
  (void)run_digital(exercises::launch_vector_tail_starter, random_options<float>(1023, 5), Market{});
}

}  // namespace

// ---- Exercise 2: the put from put-call parity (CPU) ----------------------------------------------

namespace {

using ParityFn = double (*)(double, double, double, double, double);

// The first option whose put from parity differs from the classic formula's put (both in double)
// by more than rounding (1e-12 of S + X: the sum cancels, so the error is absolute), or "".
std::string first_parity_problem(ParityFn put_from_parity) {
  for (const double years : {0.25, 0.1, 2.0, 10.0, 1.0}) {
    for (const double rate : {0.05, 0.02, 0.0}) {
      for (const double S : {5.0, 50.0, 100.0, 250.0}) {
        for (const double X : {1.0, 80.0, 100.0, 120.0}) {
          const auto prices = black_scholes::price_classic<black_scholes::HostMath, double>(S, X, years, rate, 0.3);
          const double put = put_from_parity(prices.call, S, X, years, rate);
          if (!(std::abs(put - prices.put) <= 1e-12 * (S + X))) {
            return "S = " + std::to_string(S) + ", X = " + std::to_string(X) + ", T = " + std::to_string(years) +
                   " years, r = " + std::to_string(rate) + ", call " + std::to_string(prices.call) + ": put " +
                   std::to_string(put) + ", the formula's " + std::to_string(prices.put);
          }
        }
      }
    }
  }
  return "";
}

TEST(ParityExercise, SolutionMatches) {
  const std::string problem = first_parity_problem(black_scholes::exercises::put_from_parity_solution);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The student's check (./scripts/check_exercise.sh 07 parity): DISABLED_ in the default run,
// where the shipped starter fails it.
TEST(ParityExercise, DISABLED_StarterMatches) {
  const std::string problem = first_parity_problem(black_scholes::exercises::put_from_parity_starter);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(ParityExercise, StarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("07_black_scholes", "parity");
  EXPECT_FALSE(first_parity_problem(black_scholes::exercises::put_from_parity_starter).empty())
      << "the starter passes as shipped: has it been solved?";
}

}  // namespace
