// Who trains a run. The process training a run (the app's worker thread, the CLI, rank 0 of a job over
// processes) holds an exclusive flock(2) on the run folder's run.lock for as long as it trains; the kernel
// lets go of it when that process ends, however it ends. So a reader tells a live owner from a dead one by
// the lock alone, without trusting a process id (reused after a reboot, or naming a process of another
// machine). flock is per open file description: a reader in the trainer's own process, with its own open(),
// sees the lock held too. The descriptor is close-on-exec, so a child (a data-parallel worker) never keeps
// it.
#pragma once

#include <string>

namespace wb {

class RunLock {
public:
    RunLock() = default;
    RunLock(RunLock&& other) noexcept;
    RunLock& operator=(RunLock&& other) noexcept;
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;
    ~RunLock();

    // Takes the run's lock, creating run.lock. InputError naming the folder when another process trains it.
    static RunLock acquire(const std::string& runDir);
    bool held() const { return m_fd >= 0; }
    // Removes run.lock and lets go of the lock: a run that ended leaves no lock file behind (one that was
    // killed leaves it, unlocked, which readers take as no owner).
    void release();

private:
    static RunLock acquireOnce(const std::string& runDir, const std::string& path);
    int m_fd = -1;
    std::string m_path;
};

// True while a process holds the run's lock. Creates nothing: a folder without run.lock has no owner.
bool runHasLiveOwner(const std::string& runDir);

// An exclusive lock on one file for a read-modify-write (annotations.lock): blocks until the other writers
// are done; released when it goes out of scope. TrainingError when the file cannot be opened.
class ScopedFileLock {
public:
    explicit ScopedFileLock(const std::string& path);
    ~ScopedFileLock();
    ScopedFileLock(const ScopedFileLock&) = delete;
    ScopedFileLock& operator=(const ScopedFileLock&) = delete;

private:
    int m_fd = -1;
};

}  // namespace wb
