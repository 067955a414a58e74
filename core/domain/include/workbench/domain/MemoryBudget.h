// What this process may still allocate, so that work which cannot fit is refused with a clear message
// before it starts, instead of running until the kernel kills the process (docs/reliability.md).
#pragma once

#include <cstdint>
#include <string>

namespace wb {

// WORKBENCH_MEMORY_LIMIT_BYTES when set (tests, containers), otherwise MemAvailable from /proc/meminfo;
// 0 when neither is known (guards are then off).
std::uint64_t availableMemoryBytes();

}  // namespace wb
