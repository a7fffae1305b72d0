// Lesson 07: one precision's data, reference, bounds and checks (precision_run.hpp).
#include "precision_run.hpp"

namespace black_scholes {

namespace {

template <class T>
OptionSet<T> in_precision(const OptionSet<double>& options) {
  if constexpr (std::is_same_v<T, float>) {
    return round_to_float(options);
  } else {
    return options;
  }
}

// Verifies `output` (already on the host) against a stored long double reference.
template <class T>
course::VerifyResult verify_output(const std::vector<T>& output, const std::vector<long double>& reference,
                                   const PriceTolerance& tolerance) {
  return verify_prices<T>(std::span<const T>(output), std::span<const long double>(reference), tolerance);
}

}  // namespace

template <class T>
PrecisionRun<T>::PrecisionRun(const OptionSet<double>& options, Market market)
    : options_(in_precision<T>(options)),
      market_(market),
      call_(options.size()),
      put_(options.size()),
      reference_call_(options.size()),
      reference_put_(options.size()) {
  reference_prices(inputs(), market_, Cnd::polynomial, std::span(reference_call_), std::span(reference_put_));
  model_ = model_error(inputs(), market_);
}

template <class T>
const PriceTolerances& PrecisionRun<T>::tolerances(double factor) {
  auto found = tolerances_.find(factor);
  if (found == tolerances_.end()) {
    found = tolerances_.emplace(factor, price_tolerances(inputs(), market_, factor)).first;
  }
  return found->second;
}

template <class T>
std::vector<course::OutputCheck> PrecisionRun<T>::host_checks(double factor) {
  const PriceTolerances bounds = tolerances(factor);
  auto check = [](std::vector<T>& output, const std::vector<long double>& reference, PriceTolerance tolerance) {
    return course::Check{[&output] { course::poison(std::span<T>(output)); },
                         [&output, &reference, tolerance] { return verify_output(output, reference, tolerance); }};
  };
  return {{"call", check(call_, reference_call_, bounds.call)}, {"put", check(put_, reference_put_, bounds.put)}};
}

template <class T>
void PrecisionRun<T>::upload() {
  const std::size_t n = size();
  d_price_ = course::DeviceBuffer<T>(n, "stock prices");
  d_strike_ = course::DeviceBuffer<T>(n, "strikes");
  d_years_ = course::DeviceBuffer<T>(n, "years to expiry");
  d_call_ = course::DeviceBuffer<T>(n, "call prices");
  d_put_ = course::DeviceBuffer<T>(n, "put prices");
  d_price_.copy_from_host(options_.price);
  d_strike_.copy_from_host(options_.strike);
  d_years_.copy_from_host(options_.years);
}

template <class T>
PricingArgs<T> PrecisionRun<T>::device_args(int block_size) const {
  return make_args<T>(d_price_.data(), d_strike_.data(), d_years_.data(), d_call_.data(), d_put_.data(), size(),
                      market_, block_size);
}

template <class T>
std::vector<course::OutputCheck> PrecisionRun<T>::device_checks(double factor) {
  const PriceTolerances bounds = tolerances(factor);
  auto check = [](course::DeviceBuffer<T>& device, std::vector<T>& host, const std::vector<long double>& reference,
                  PriceTolerance tolerance) {
    return course::Check{[&device] { device.poison(); },
                         [&device, &host, &reference, tolerance] {
                           device.copy_to_host(host);
                           return verify_output(host, reference, tolerance);
                         }};
  };
  return {{"call", check(d_call_, call_, reference_call_, bounds.call)},
          {"put", check(d_put_, put_, reference_put_, bounds.put)}};
}

template <class T>
std::vector<course::OutputCheck> PrecisionRun<T>::end_to_end_checks(double factor) {
  std::vector<course::OutputCheck> checks = host_checks(factor);
  course::DeviceBuffer<T>* device[] = {&d_call_, &d_put_};
  for (std::size_t k = 0; k < checks.size(); ++k) {
    checks[k].check.poison = [host_poison = checks[k].check.poison, buffer = device[k]] {
      buffer->poison();
      host_poison();
    };
  }
  return checks;
}

template <class T>
void PrecisionRun<T>::copy_in(cudaStream_t stream) {
  d_price_.copy_from_host_async(options_.price, stream);
  d_strike_.copy_from_host_async(options_.strike, stream);
  d_years_.copy_from_host_async(options_.years, stream);
}

template <class T>
void PrecisionRun<T>::copy_out(cudaStream_t stream) {
  d_call_.copy_to_host_async(call_, stream);
  d_put_.copy_to_host_async(put_, stream);
}

template class PrecisionRun<float>;
template class PrecisionRun<double>;

}  // namespace black_scholes
