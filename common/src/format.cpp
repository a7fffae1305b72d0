// Text helpers for reports.
#include "course/format.hpp"

#include <cmath>
#include <cstdio>

namespace course {

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  } else {
    std::snprintf(text, sizeof text, bytes < 10 ? "%.2f %s" : "%.1f %s", bytes, units[unit]);
  }
  return text;
}

std::string format_count(std::uint64_t count) {
  std::string digits = std::to_string(count);
  std::string out;
  const int length = static_cast<int>(digits.size());
  for (int i = 0; i < length; ++i) {
    if (i > 0 && (length - i) % 3 == 0) out += ',';
    out += digits[static_cast<std::size_t>(i)];
  }
  return out;
}

std::string format_fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string format_ms(double ms) {
  char text[32];
  if (!(ms < 1e7)) {  // beyond about 3 hours (or not a number): 3 significant digits, never 300 of them
    std::snprintf(text, sizeof text, "%.3g", ms);
  } else if (ms >= 100) {
    std::snprintf(text, sizeof text, "%.0f", ms);
  } else if (ms >= 10) {
    std::snprintf(text, sizeof text, "%.1f", ms);
  } else if (ms >= 1) {
    std::snprintf(text, sizeof text, "%.2f", ms);
  } else {
    std::snprintf(text, sizeof text, "%.3g", ms);
  }
  return text;
}

}  // namespace course
