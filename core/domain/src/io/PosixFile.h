// The few POSIX calls behind files written and read at offsets (the token store's ids, written by many
// threads at once and read with pread): an owned descriptor, and writes and reads that go on until every byte
// is done, since pwrite and pread may stop short or be interrupted by a signal.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace wb::detail {

// Closes the descriptor it owns; -1 owns nothing.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor();
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// Opens path for reading and writing, created or emptied (mode 0644). Throws std::runtime_error
// "cannot create PATH: reason".
int openForWriting(const std::string& path);

// Writes n bytes at offset. Returns 0, or the errno of the write that failed (EIO when one wrote nothing).
int writeFully(int fd, const char* data, std::size_t n, off_t offset);

// Reads n bytes at offset. Returns 0, the errno of the read that failed, or kEndOfFile when the file ends
// first.
inline constexpr int kEndOfFile = -1;
int readFully(int fd, char* out, std::size_t n, off_t offset);

}  // namespace wb::detail
