// The LSTM_WORKBENCH_* switches that keep an older path beside a newer one, for a side-by-side measurement
// (docs/benchmarks.md): the value "off" turns the newer path off; for a path taken only on some machines,
// "on" takes it on any. Callers read a switch once (a static).
#pragma once

#include <cstdlib>
#include <string_view>

namespace wb {

inline bool switchedOff(const char* name) {
    const char* value = std::getenv(name);
    return value && std::string_view(value) == "off";
}

inline bool switchedOn(const char* name) {
    const char* value = std::getenv(name);
    return value && std::string_view(value) == "on";
}

}  // namespace wb
