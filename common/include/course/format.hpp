// Small text helpers shared by the reports: sizes, counts, times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace course {

std::string format_bytes(double bytes);             // "40.0 MiB", "1.00 GiB"
std::string format_count(std::uint64_t count);      // "10,000,000"
std::string format_fixed(double value, int digits); // "3.142"
std::string format_ms(double ms);                   // 3 significant digits, "0.0351", "41.2"

}  // namespace course
