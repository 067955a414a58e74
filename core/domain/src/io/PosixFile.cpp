// See PosixFile.h.
#include "io/PosixFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace wb::detail {

FileDescriptor::~FileDescriptor() {
    if (m_fd >= 0) ::close(m_fd);
}

int openForWriting(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    return fd;
}

int writeFully(int fd, const char* data, std::size_t n, off_t offset) {
    while (n > 0) {
        const ssize_t wrote = pwrite(fd, data, n, offset);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) return errno;
        if (wrote == 0) return EIO;
        data += wrote;
        n -= static_cast<std::size_t>(wrote);
        offset += wrote;
    }
    return 0;
}

int readFully(int fd, char* out, std::size_t n, off_t offset) {
    for (std::size_t done = 0; done < n;) {
        const ssize_t got = pread(fd, out + done, n - done, offset + static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return kEndOfFile;
        done += static_cast<std::size_t>(got);
    }
    return 0;
}

}  // namespace wb::detail
