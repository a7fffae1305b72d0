// Lesson 07's exercises: each has a starter (what you edit) and a solution (what the tests check).
// The tests also run the starter as shipped and expect it to FAIL verification: an unwritten
// output is caught, so "it ran" is never mistaken for "it is right".
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "black_scholes.hpp"

namespace black_scholes::exercises {

// Exercise 1: a cash-or-nothing ("digital") call pays 1 at expiry if the stock ends above the
// strike, else nothing. Its Black-Scholes price is e^(-rT) N(d2): the discounted probability
// that S_T > X. One thread per option, float, the classic's polynomial CND.
struct DigitalArgs {
  const float* price = nullptr;   // S, device
  const float* strike = nullptr;  // X, device
  const float* years = nullptr;   // T, device
  float* digital = nullptr;       // the output, device
  std::size_t count = 0;
  Coefficients<float> market{};
};
void launch_digital_starter(const DigitalArgs& args, cudaStream_t stream);
void launch_digital_solution(const DigitalArgs& args, cudaStream_t stream);

}  // namespace black_scholes::exercises

namespace black_scholes::exercises {

// Exercise 2 (CPU, find the bug): the put from the call by put-call parity,
// put = call - S + X e^(-r T). See parity_starter.cpp.
double put_from_parity_starter(double call, double S, double X, double years, double rate);
double put_from_parity_solution(double call, double S, double X, double years, double rate);

}  // namespace black_scholes::exercises

namespace black_scholes::exercises {

// Find the bug, on a GPU: the digital call with four options per thread loaded as float4s. Every
// price is right; compute-sanitizer's memcheck shows what else is wrong. See vector_tail_starter.cu.
void launch_vector_tail_starter(const DigitalArgs& args, cudaStream_t stream);
void launch_vector_tail_solution(const DigitalArgs& args, cudaStream_t stream);

}  // namespace black_scholes::exercises
