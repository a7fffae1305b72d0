// Lesson 07: one precision's part of a run, for main.cpp and the harness.
//
// Teaches: a row is only as honest as its check. For each precision this holds the options, the
// outputs every row writes, the long double reference (polynomial CND) and the bounds derived
// for this precision and these options, and it turns them into the harness's two checks per row
// (call and put: poisoned before the run, verified after). A row passes only if both pass.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <string>
#include <vector>

#include "black_scholes.hpp"
#include "course/device_buffer.hpp"
#include "course/harness.hpp"

namespace black_scholes {

template <class T>
class PrecisionRun {
 public:
  // Rounds the options to T, computes the reference and the model error (long double, OpenMP).
  PrecisionRun(const OptionSet<double>& options, Market market);

  std::string group() const { return std::string(course::precision_name(course::precision_of<T>)); }  // "FP32"
  std::size_t size() const { return options_.size(); }
  double bytes() const { return bytes_per_option<T>() * static_cast<double>(size()); }  // per run
  Inputs<T> inputs() const { return options_.inputs(); }
  Outputs<T> outputs() { return {call_, put_}; }
  Market market() const { return market_; }
  const ModelError& model() const { return model_; }
  const PriceTolerances& tolerances(double factor);  // for |error| <= factor u kappa, computed once

  // The checks of a row that writes the host outputs (CPU rows, end to end).
  std::vector<course::OutputCheck> host_checks(double factor);

  // ---- GPU ----
  void upload();  // allocates the five device arrays and copies the inputs in (main.cpp's setup step)
  PricingArgs<T> device_args(int block_size) const;
  std::vector<course::OutputCheck> device_checks(double factor);  // d_call, d_put, read back
  // End to end: the host outputs, and the device outputs poisoned too (else a kernel that wrote
  // nothing would pass with the previous row's prices, copied back).
  std::vector<course::OutputCheck> end_to_end_checks(double factor);
  void copy_in(cudaStream_t stream);   // the three inputs, host to device
  void copy_out(cudaStream_t stream);  // the two outputs, device to host

 private:
  OptionSet<T> options_;
  Market market_;
  std::vector<T> call_, put_;
  std::vector<long double> reference_call_, reference_put_;
  ModelError model_;
  std::map<double, PriceTolerances> tolerances_;
  course::DeviceBuffer<T> d_price_, d_strike_, d_years_, d_call_, d_put_;
};

extern template class PrecisionRun<float>;
extern template class PrecisionRun<double>;

}  // namespace black_scholes
