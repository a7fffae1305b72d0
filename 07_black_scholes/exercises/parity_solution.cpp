// Exercise 2, a solution: the put from put-call parity, the strike discounted over the option's life.
#include <cmath>

#include "exercises/exercises.hpp"

namespace black_scholes::exercises {

double put_from_parity_solution(double call, double S, double X, double years, double rate) {
  // [docs:parity_put]
  const double discounted_strike = X * std::exp(-rate * years);  // X e^(-r T): T years, not one
  return call - S + discounted_strike;
  // [docs:end parity_put]
}

}  // namespace black_scholes::exercises
