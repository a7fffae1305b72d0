// Exercise 2 (lesson 07, runs without a GPU), find the bug: the put from put-call parity.
//
// put_from_parity_starter returns the put of an option from its call, by put-call parity:
//   call - put = S - X e^(-r T)      (S the stock price, X the strike, T the years to expiry,
//                                     r the risk-free rate per year, continuously compounded)
// The check prices options of 0.1 to 10 years with the lesson's classic formula (both the call and
// the put, in double) and compares the put the starter derives from the call with the formula's.
//
// As shipped, some options get the wrong put. Find the bug and fix it.
// Check it:   ./scripts/check_exercise.sh 07 parity      (a hint: add --hint)
#include <cmath>

#include "exercises/exercises.hpp"

namespace black_scholes::exercises {

double put_from_parity_starter(double call, double S, double X, double years, double rate) {
  (void)years;
  const double discounted_strike = X * std::exp(-rate);  // X, discounted to today
  return call - S + discounted_strike;
}

}  // namespace black_scholes::exercises
