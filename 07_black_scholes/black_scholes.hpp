// Lesson 07: European options priced with the Black-Scholes formula, in float and double, on the
// CPU and on the GPU. The lesson's API, shared by main.cpp and the tests. It is light on purpose
// (no command-line or JSON headers): the kernel files include it.
//
//   formula.hpp              the formula, once, for every side (math policies: std::, CUDA, libmvec)
//   options_data.cpp         the classic's random options, seeded, the same for any thread count
//   black_scholes_cpu.cpp    CPU: one thread, scalar, as the classic wrote it (a teaching row)
//   black_scholes_simd.cpp   CPU: glibc's vector exp and log on SIMD lanes, one thread and OpenMP
//   reference.cpp            long double references (polynomial and exact CND), error bounds, checks
//   kernels/NN_name.cu       the GPU kernels, one step per file (its kernel and its launcher), listed
//                            in kernels/registry.inc; they share only the formula and its device math
//   exercises/               the digital call: starter and solution (exercises.hpp)
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/verify.hpp"
#include "course/kernel_registry.hpp"
#include "formula.hpp"

namespace black_scholes {

// ---- The problem --------------------------------------------------------------------------
// The classic: 4,000,000 options, 10 iterations, in double, one thread per option in blocks of
// 1024; stock price uniform in [5, 30], strike in [1, 100], years to expiry in [0.25, 10],
// risk-free rate 2%, volatility 30%.
inline constexpr std::size_t kClassicOptions = 4'000'000;
inline constexpr int kClassicIterations = 10;
inline constexpr int kClassicBlock = 1024;
inline constexpr double kClassicRate = 0.02;
inline constexpr double kClassicVolatility = 0.30;

struct Range {
  double low, high;
};
inline constexpr Range kPriceRange{5.0, 30.0};
inline constexpr Range kStrikeRange{1.0, 100.0};
inline constexpr Range kYearsRange{0.25, 10.0};

struct Market {
  double rate = kClassicRate;              // r, per year, continuously compounded
  double volatility = kClassicVolatility;  // v, per square root of a year
};

// What one option costs in memory traffic: 3 inputs read, 2 outputs written.
template <class T>
constexpr double bytes_per_option() {
  return 5.0 * sizeof(T);
}

// Host data as a structure of arrays: one array per quantity, so that neighbouring threads (and
// SIMD lanes) read neighbouring addresses.
template <class T>
struct Inputs {
  std::span<const T> price, strike, years;
  std::size_t size() const { return price.size(); }
};
template <class T>
struct Outputs {
  std::span<T> call, put;
};

template <class T>
struct OptionSet {
  std::vector<T> price, strike, years;
  std::size_t size() const { return price.size(); }
  Inputs<T> inputs() const { return {price, strike, years}; }
};

// options_data.cpp: `count` options drawn from the classic's ranges, in double, the same for a
// seed whatever the number of threads; the float set is the same options rounded to float.
OptionSet<double> make_options(std::size_t count, std::uint64_t seed);
OptionSet<float> round_to_float(const OptionSet<double>& options);

// ---- CPU ------------------------------------------------------------------------------------
// black_scholes_cpu.cpp: one thread, one option at a time, price_classic with std::exp/log/sqrt.
template <class T>
void price_serial(Inputs<T> in, Outputs<T> out, Market market);

// black_scholes_simd.cpp: price_shared_exp on SIMD lanes with glibc's vector exp and log
// (libmvec), the widest this CPU has; one thread, or all threads (OpenMP) on equal slices.
// The rows the GPU is compared with request the next cache lines ahead (software prefetch).
enum class Prefetch { hardware_only, software };
template <class T>
void price_simd_serial(Inputs<T> in, Outputs<T> out, Market market, Prefetch prefetch = Prefetch::software);
template <class T>
void price_simd_parallel(Inputs<T> in, Outputs<T> out, Market market, Prefetch prefetch = Prefetch::software);
const char* simd_width_name();  // "AVX-512, 16 floats / 8 doubles per vector", ...

// ---- References, error bounds, checks (reference.cpp) -----------------------------------------
enum class Cnd { polynomial, exact };  // the classic's polynomial, or N(d) = erfc(-d / sqrt 2) / 2

// One option in long double (64-bit mantissa), the CND as asked, no cancellation in the put.
Prices<long double> reference_price(long double S, long double X, long double years, long double rate,
                                    long double volatility, Cnd cnd);

// N(d) in long double, the classic's polynomial or the exact CND.
long double normal_cdf(long double d, Cnd cnd);

// Every option's prices in long double, from the inputs of precision T and the market rounded to
// T (as the rows of that precision see it). OpenMP over the options.
template <class T>
void reference_prices(Inputs<T> in, Market market, Cnd cnd, std::span<long double> call,
                      std::span<long double> put);

// Max abs error and relative L1 norm (sum |a - b| / sum |b|) of one set of prices against another.
struct ErrorStats {
  double max_abs = 0;
  double rel_l1 = 0;
  std::size_t worst_index = 0;
};
ErrorStats error_stats(std::span<const long double> values, std::span<const long double> reference);

// The model error: polynomial CND against the exact CND, both in long double, on these inputs.
struct ModelError {
  ErrorStats call, put;
  double bound = 0;  // 7.5e-8 (S + X e^(-rT)) at its largest over the inputs
};
template <class T>
ModelError model_error(Inputs<T> in, Market market);

// The arithmetic error a row may have: |price - reference| <= factor * u * kappa per option,
// with u the unit roundoff of T (2^-24 float, 2^-53 double) and kappa the option's condition:
//   kappa = S + X e^(-rT) (1 + rT) + S phi(d1) ((1 + |ln(S/X)| + (r + v^2/2) T) / (v sqrt T) + |d1| + |d2| + v sqrt T)
// (the size of the two terms, and how far a rounding error in d1, d2 moves the CNDs:
// docs/07_black_scholes.md, section 9). The check holds every element to the largest bound over
// the inputs, and the relative L1 norm to the sum of the bounds over the sum of the prices.
double condition(double S, double X, double years, double rate, double volatility);  // kappa
inline constexpr double kAccurateFactor = 16;  // accurate functions (expf, logf, std::exp, libmvec)
// A kernel's factor: its max_ulp trait where it sets one (fast_math: 64), else kAccurateFactor.
template <class Traits>
double error_factor(const Traits& traits) {
  return traits.max_ulp > 0 ? traits.max_ulp : kAccurateFactor;
}
struct PriceTolerance {
  double max_abs = 0;
  double max_rel_l1 = 0;
  std::string describe() const;  // "abs <= 1.2e-05 and rel L1 <= 3.4e-07"
};
struct PriceTolerances {
  PriceTolerance call, put;
  double max_kappa = 0;
};
template <class T>
PriceTolerances price_tolerances(Inputs<T> in, Market market, double factor);

// Verifies prices against a reference: every element within max_abs (NaN fails) and the
// relative L1 norm within max_rel_l1.
template <class T>
course::VerifyResult verify_prices(std::span<const T> prices, const course::ReferenceBlock& reference,
                                   const PriceTolerance& tolerance);
// Double prices against the long double reference itself (no rounding of the reference to double).
course::VerifyResult verify_prices(std::span<const double> prices, const course::LongReferenceBlock& reference,
                                   const PriceTolerance& tolerance);
// Against a stored long double reference: as long double for double prices, rounded to double for float.
template <class T>
course::VerifyResult verify_prices(std::span<const T> prices, std::span<const long double> reference,
                                   const PriceTolerance& tolerance);
// A stored long double reference, read in blocks, rounded to double (for float results).
course::ReferenceBlock reference_block(std::span<const long double> reference);

// ---- GPU ------------------------------------------------------------------------------------
// Device pointers and the market for one launch; `block_size` 0 lets the kernel choose.
template <class T>
struct PricingArgs {
  const T* price = nullptr;
  const T* strike = nullptr;
  const T* years = nullptr;
  T* call = nullptr;
  T* put = nullptr;
  std::size_t count = 0;
  Coefficients<T> market{};  // make_coefficients(T(rate), T(volatility)), computed on the host
  int block_size = 0;        // threads per block (kernels without __launch_bounds__); 0: their default
};

template <class T>
PricingArgs<T> make_args(const T* price, const T* strike, const T* years, T* call, T* put, std::size_t count,
                         Market market, int block_size = 0) {
  return {price, strike, years, call, put, count,
          make_coefficients(static_cast<T>(market.rate), static_cast<T>(market.volatility)), block_size};
}

// The five device arrays as one kernel argument, by value (kernels 02 to 05 take them so).
template <class T>
struct Arrays {
  const T* __restrict__ price;
  const T* __restrict__ strike;
  const T* __restrict__ years;
  T* __restrict__ call;
  T* __restrict__ put;
};
template <class T>
Arrays<T> arrays_of(const PricingArgs<T>& args) {
  return {args.price, args.strike, args.years, args.call, args.put};
}

// Every kernel's launcher: prices args.count options in `stream`, launch checked; one per precision.
template <class T>
using PriceFn = void (*)(const PricingArgs<T>& args, cudaStream_t stream);
using Launcher = course::TypedLauncher<PriceFn>;

#define COURSE_KERNEL(name, summary, ...) \
  template <class T>                      \
  void launch_##name(const PricingArgs<T>& args, cudaStream_t stream);
#include "kernels/registry.inc"
#include "exercises/registry.inc"
#undef COURSE_KERNEL

// The registry: every kernel above, in the order of the progression, with its traits.
inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
#define COURSE_KERNEL COURSE_TYPED_KERNEL_ENTRY
#include "kernels/registry.inc"
#include "exercises/registry.inc"  // the "make it fast" exercise: runs only when --kernel names it
#undef COURSE_KERNEL
};
COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)  // kernels() and kernel(name)

// The registry as a run sees it (--precision): each kernel keeps only the precisions asked for,
// and a kernel left with none is dropped.
inline std::vector<course::KernelEntry<Launcher>> restrict_precisions(
    std::span<const course::KernelEntry<Launcher>> table, bool f32, bool f64) {
  const unsigned wanted = (f32 ? 1u : 0u) | (f64 ? 2u : 0u);
  std::vector<course::KernelEntry<Launcher>> kept;
  for (auto entry : table) {
    const unsigned left = static_cast<unsigned>(entry.traits.precisions) & wanted;
    if (left == 0) continue;
    entry.traits.precisions = static_cast<course::Precisions>(left);
    kept.push_back(entry);
  }
  return kept;
}

inline constexpr int kDefaultBlock = 256;  // threads per block when args.block_size is 0

// The kernels' grid, checked: a grid has at most 2^31 - 1 blocks in x (std::length_error, naming
// the kernel, past that).
inline unsigned checked_grid(std::size_t blocks, const char* kernel) {
  if (blocks > 2147483647ull) throw std::length_error(std::string(kernel) + ": more blocks than a grid may have");
  return static_cast<unsigned>(blocks);
}

// The same pricing through Thrust (library.cu), the row the kernels are compared with: a
// transform over zip iterators, (S, X, T) in and (call, put) out, the headline's formula.
template <class T>
void thrust_price(const PricingArgs<T>& args, cudaStream_t stream);

}  // namespace black_scholes
