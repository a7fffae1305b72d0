// The floating-point precisions a lesson computes in, and their names in reports.
//
// Teaches: float and double are two experiments, not one: each has its own CPU rows, its own
// headline kernel and its own ceiling (FP32 and FP64 FMA throughput differ by 2x to 64x
// between GPUs). Reports group rows by precision under these names.
#pragma once

#include <string_view>

namespace course {

enum class Precision { fp32, fp64 };

// "FP32" or "FP64": the group name of a precision's rows.
constexpr std::string_view precision_name(Precision precision) {
  return precision == Precision::fp32 ? "FP32" : "FP64";
}

// The C++ type of a precision, for code that runs both: course::precision_of<float>.
template <class T>
constexpr Precision precision_of = sizeof(T) == sizeof(double) ? Precision::fp64 : Precision::fp32;

}  // namespace course
