#include "io/Failpoints.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <mutex>

#include "workbench/domain/Errors.h"

namespace wb::failpoints {
namespace {

enum class Action { None, Kill, Enospc, Erofs, Eio };

struct Rule {
    std::string text;
    Action action = Action::None;
    long n = 0;
    std::string pathPart;
    long count = 0;        // failpoints counted so far
    bool failing = false;  // an errno rule has fired: the disk stays full
};

std::mutex mutex;
bool loaded = false;
Rule current;
std::string tracePath;  // WORKBENCH_FAILPOINTS_TRACE, "" when off

std::string tracePathFromEnvironment() {
    const char* env = std::getenv("WORKBENCH_FAILPOINTS_TRACE");
    return env ? env : "";
}

// Plain syscalls, not writeFileAtomic: the trace must not reach failpoints itself, and must survive the
// SIGKILL that may follow at once.
void trace(Site site, const std::string& path) {
    if (tracePath.empty()) return;
    const std::string line = std::string(siteName(site)) + " " + path + "\n";
    const int fd = ::open(tracePath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
}

Rule parse(const std::string& text) {
    Rule r;
    r.text = text;
    if (text.empty()) return r;
    const auto at = text.find('@');
    const auto colon = text.find(':', at == std::string::npos ? 0 : at);
    if (at == std::string::npos)
        throw InputError("WORKBENCH_FAILPOINTS: expected <action>@<n>, got '" + text + "'");
    const auto action = text.substr(0, at);
    if (action == "kill")
        r.action = Action::Kill;
    else if (action == "enospc")
        r.action = Action::Enospc;
    else if (action == "erofs")
        r.action = Action::Erofs;
    else if (action == "eio")
        r.action = Action::Eio;
    else
        throw InputError("WORKBENCH_FAILPOINTS: unknown action '" + action +
                         "' (kill, enospc, erofs or eio)");
    const auto number = text.substr(at + 1, colon == std::string::npos ? std::string::npos : colon - at - 1);
    char* end = nullptr;
    r.n = std::strtol(number.c_str(), &end, 10);
    if (number.empty() || *end != '\0' || r.n < 1)
        throw InputError("WORKBENCH_FAILPOINTS: '" + number + "' is not a positive count");
    if (colon != std::string::npos) r.pathPart = text.substr(colon + 1);
    return r;
}

int errnoOf(Action a) {
    switch (a) {
        case Action::Enospc:
            return ENOSPC;
        case Action::Erofs:
            return EROFS;
        case Action::Eio:
            return EIO;
        default:
            return 0;
    }
}

}  // namespace

const char* siteName(Site site) {
    switch (site) {
        case Site::BeforeCreate:
            return "BeforeCreate";
        case Site::MidWrite:
            return "MidWrite";
        case Site::BeforeSync:
            return "BeforeSync";
        case Site::BeforeRename:
            return "BeforeRename";
    }
    return "?";
}

int reached(Site site, const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!loaded) {
        loaded = true;
        const char* env = std::getenv("WORKBENCH_FAILPOINTS");
        current = parse(env ? env : "");
        tracePath = tracePathFromEnvironment();
    }
    trace(site, path);
    if (current.action == Action::None) return 0;
    if (!current.pathPart.empty() && path.find(current.pathPart) == std::string::npos) return 0;
    if (current.action == Action::Kill) {
        if (++current.count == current.n) std::raise(SIGKILL);
        return 0;
    }
    // A disk-full or read-only rule counts files, at the moment their writing starts. From the n-th on,
    // every write fails: a read-only folder refuses to create the file; a full disk or a failing one
    // lets it be created and fails half-way through the bytes.
    if (site == Site::BeforeCreate && !current.failing && ++current.count == current.n)
        current.failing = true;
    if (!current.failing) return 0;
    const Site failsAt = current.action == Action::Erofs ? Site::BeforeCreate : Site::MidWrite;
    return site == failsAt ? errnoOf(current.action) : 0;
}

void configure(const std::string& text) {
    auto r = parse(text);
    std::lock_guard<std::mutex> lock(mutex);
    loaded = true;
    current = std::move(r);
    tracePath = tracePathFromEnvironment();
}

std::string rule() {
    std::lock_guard<std::mutex> lock(mutex);
    return current.text;
}

}  // namespace wb::failpoints
