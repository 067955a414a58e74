// The memory budget (see MemoryBudget.h).
#include "workbench/domain/MemoryBudget.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace wb {

std::uint64_t availableMemoryBytes() {
    if (const char* limit = std::getenv("WORKBENCH_MEMORY_LIMIT_BYTES"); limit && *limit) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(limit, &end, 10);
        if (errno == 0 && end && *end == '\0') return v;
    }
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return 0;
}

}  // namespace wb
