// How the run folder's and the sweep's CSV files write a field and a number (one place for metrics.csv,
// results.csv and the sweep plots' CSVs).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace wb::csv {

// A field needs quotes when it holds the delimiter, a quote or a line break (RFC 4180).
inline std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// %g with this many significant digits; "nan", "inf" and "-inf" spelled alike on every C library.
inline std::string number(double v, int significant) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", significant, v);
    return buf;
}

}  // namespace wb::csv
