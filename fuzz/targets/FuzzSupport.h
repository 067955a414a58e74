// Shared by the fuzz targets: a scratch folder per process (in /dev/shm when it is writable, so the
// per-iteration files never touch a disk), splitting one fuzz input into several files, and a check that
// aborts loudly when an invariant of a loader's result is broken (libFuzzer then keeps the input).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace fuzz {

namespace fs = std::filesystem;

// Splits data on a separator byte; "a\x01b" gives {"a", "b"}. At most maxParts parts: the last one keeps
// any further separators.
inline std::vector<std::string_view> split(std::string_view data, char separator, std::size_t maxParts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < maxParts) {
        const auto at = data.find(separator);
        if (at == std::string_view::npos) break;
        parts.push_back(data.substr(0, at));
        data.remove_prefix(at + 1);
    }
    parts.push_back(data);
    return parts;
}

// The process's scratch folder, created on first use and removed when the process exits.
inline const fs::path& scratchDir() {
    // Never destroyed: the atexit handler below, registered while this static is made, runs after its
    // destructor.
    static const fs::path& dir = *[] {
        fs::path base = "/dev/shm";
        if (::access(base.c_str(), W_OK) != 0) {
            const char* tmp = std::getenv("TMPDIR");
            base = tmp && *tmp ? tmp : "/tmp";
        }
        // libFuzzer leaves without running atexit handlers on a finding or a timeout: clear the folders of
        // earlier processes that are gone.
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(base, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("wb-fuzz-", 0) != 0) continue;
            const long pid = std::strtol(name.c_str() + 8, nullptr, 10);
            if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                fs::remove_all(entry.path(), ec);
        }
        fs::path d = base / ("wb-fuzz-" + std::to_string(::getpid()));
        fs::remove_all(d);
        fs::create_directories(d);
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(scratchDir(), ec);
        });
        return new fs::path(d);
    }();
    return dir;
}

// An empty folder under the scratch folder (emptied again on every call: one path per target).
inline fs::path freshDir(const char* name) {
    const fs::path d = scratchDir() / name;
    std::error_code ec;
    fs::remove_all(d, ec);
    fs::create_directories(d);
    return d;
}

inline bool writeFile(const fs::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

// One file, rewritten per iteration, under the scratch folder.
inline std::string writeScratchFile(const char* name, const std::uint8_t* data, std::size_t size) {
    const fs::path p = scratchDir() / name;
    if (!writeFile(p, std::string_view(reinterpret_cast<const char*>(data), size))) {
        std::fprintf(stderr, "fuzz: cannot write %s\n", p.c_str());
        std::abort();
    }
    return p.string();
}

[[noreturn]] inline void invariantFailed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "fuzz: invariant broken at %s:%d: %s\n", file, line, what);
    std::abort();
}

}  // namespace fuzz

#define FUZZ_CHECK(cond) ((cond) ? (void)0 : ::fuzz::invariantFailed(#cond, __FILE__, __LINE__))
