// Numbers and durations as the app, the CLI and the messages write them, in one place.
#pragma once

#include <string>

namespace wb {

// printf with one double: formatNumber("%.3f", 0.5) == "0.500".
std::string formatNumber(const char* format, double value);
// "12345", "12.3 k", "4.56 M", "7.89 G", "1.23 T" (SI prefixes; below ten thousand, the whole number).
std::string humanCount(double value);
// "38.2 GiB", "512.0 KiB", "12 bytes" (powers of 1024).
std::string humanBytes(double bytes);
// "45 s", "12.5 min", "1.5 h": an estimate's length.
std::string humanSeconds(double seconds);
// "7.5 s", "42 s", "3:07", "1:02:03": elapsed time and ETAs on a clock; "–" when unknown (negative).
std::string clockDuration(double seconds);

}  // namespace wb
