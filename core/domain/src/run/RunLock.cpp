// RunLock and ScopedFileLock (see workbench/domain/RunLock.h).
#include "workbench/domain/RunLock.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string lockPath(const std::string& runDir) { return (fs::path(runDir) / runfiles::kLock).string(); }

int flockRetrying(int fd, int operation) {
    int rc;
    do rc = ::flock(fd, operation);
    while (rc != 0 && errno == EINTR);
    return rc;
}

// The process id and host the owner wrote into run.lock: only words for a message, never trusted.
std::string ownerWords(int fd) {
    char buf[256] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string text = n > 0 ? std::string(buf, std::size_t(n)) : std::string();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text.empty() ? std::string() : " (" + text + ")";
}

}  // namespace

RunLock::RunLock(RunLock&& other) noexcept : m_fd(other.m_fd), m_path(std::move(other.m_path)) {
    other.m_fd = -1;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
    if (this != &other) {
        release();
        m_fd = other.m_fd;
        m_path = std::move(other.m_path);
        other.m_fd = -1;
    }
    return *this;
}

RunLock::~RunLock() { release(); }

void RunLock::release() {
    if (m_fd < 0) return;
    // Unlinked while still held: a process that opened the file and waits for it gets the lock of a file
    // that is gone, sees that (acquire compares the inodes) and opens the path again.
    ::unlink(m_path.c_str());
    ::close(m_fd);  // closing the only descriptor of the open file lets go of the lock
    m_fd = -1;
}

namespace {
// Whether fd is still the file at path (release() unlinks run.lock before it lets go of the lock).
bool stillAtPath(int fd, const std::string& path) {
    struct stat open {
    }, named{};
    return ::fstat(fd, &open) == 0 && ::stat(path.c_str(), &named) == 0 && open.st_dev == named.st_dev &&
           open.st_ino == named.st_ino;
}
}  // namespace

RunLock RunLock::acquire(const std::string& runDir) {
    const std::string path = lockPath(runDir);
    for (int reopen = 0;; ++reopen) {
        auto lock = acquireOnce(runDir, path);
        if (stillAtPath(lock.m_fd, path) || reopen == 50) return lock;
        ::close(lock.m_fd);  // the owner removed the file as it let go: take the path's new file
        lock.m_fd = -1;
    }
}

RunLock RunLock::acquireOnce(const std::string& runDir, const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw TrainingError("cannot open " + path + ": " + std::strerror(errno));
    // A reader probing the lock holds it shared for a moment: wait that out, but not a live owner.
    for (int attempt = 0;; ++attempt) {
        if (flockRetrying(fd, LOCK_EX | LOCK_NB) == 0) break;
        const int err = errno;
        if (err != EWOULDBLOCK || attempt == 50) {
            const std::string owner = ownerWords(fd);
            ::close(fd);
            if (err != EWOULDBLOCK) throw TrainingError("cannot lock " + path + ": " + std::strerror(err));
            throw InputError(
                runDir, 0,
                "another process is training this run" + owner + ": stop it there, or wait until it ends");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    char host[128] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string words = "pid " + std::to_string(::getpid()) + " on " + host + "\n";
    if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, words.data(), words.size(), 0) < 0) {
        // Only words for another process's message: the lock itself is what counts.
    }
    RunLock lock;
    lock.m_fd = fd;
    lock.m_path = path;
    return lock;
}

bool runHasLiveOwner(const std::string& runDir) {
    const int fd = ::open(lockPath(runDir).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;  // never locked: a run from before run.lock, or one that never trained
    // Shared, so that two readers never see each other as the owner.
    const bool free = flockRetrying(fd, LOCK_SH | LOCK_NB) == 0;
    ::close(fd);
    return !free;
}

ScopedFileLock::ScopedFileLock(const std::string& path) {
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) throw TrainingError("cannot open " + path + ": " + std::strerror(errno));
    if (flockRetrying(m_fd, LOCK_EX) != 0) {
        const int err = errno;
        ::close(m_fd);
        throw TrainingError("cannot lock " + path + ": " + std::strerror(err));
    }
}

ScopedFileLock::~ScopedFileLock() {
    if (m_fd >= 0) ::close(m_fd);
}

}  // namespace wb
