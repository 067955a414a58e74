#pragma once
// Fault injection for tests: the places where the workbench writes files can be made to fail (disk full,
// read-only folder, I/O error) or to kill the process on the spot, so that tests can prove that a run
// survives a crash at every moment of a checkpoint and stops cleanly when the disk fails.
//
// Off unless the environment variable WORKBENCH_FAILPOINTS is set when the first file is written (or
// failpoints::configure() is called). Its value is one rule:
//
//     <action>@<n>[:<path substring>]
//
//   action  kill    raise SIGKILL at the n-th failpoint reached (every site counts, in order)
//           enospc  the n-th file write and every later one fail with "No space left on device"
//           erofs   ... with "Read-only file system"
//           eio     ... with "Input/output error"
//   n       1-based; with a path substring only the files whose path contains it are counted
//
// e.g. WORKBENCH_FAILPOINTS=kill@12   or   WORKBENCH_FAILPOINTS=enospc@2:model.safetensors
//
// WORKBENCH_FAILPOINTS_TRACE=<file> (read with the rule, with or without one) appends one line per site
// reached, in order, before the rule acts on it: "<site> <path>", e.g. "BeforeRename /run/model.safetensors".
// Line n of a run's trace is the site that kill@n fires at (without a path substring), and the last line of
// a killed run's trace is the site that killed it, so a test can tell which moment it interrupted. Each line
// is one write(2) on a file opened with O_APPEND: it is on disk even when the next instruction is SIGKILL.
#include <string>

namespace wb::failpoints {

enum class Site {
    BeforeCreate,  // before the temporary file of an atomic write is created
    MidWrite,      // half of the bytes written
    BeforeSync,    // all bytes written, not yet fsync'ed
    BeforeRename,  // the temporary is complete; the rename that publishes it comes next
};

const char* siteName(Site site);  // "BeforeCreate", "MidWrite", "BeforeSync", "BeforeRename"

// Called at each site with the file being written. Returns 0, or the errno to fail with; kills the
// process when the rule says so.
int reached(Site site, const std::string& path);

// Replaces the rule (the empty string turns injection off) and resets the counter. For tests in-process.
void configure(const std::string& rule);

// The rule in force, "" when off.
std::string rule();

}  // namespace wb::failpoints
