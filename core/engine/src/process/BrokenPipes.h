// What a write to a closed peer does to this process.
#pragma once

namespace wb {

// From now on a write to a socket or pipe whose reader has gone fails with EPIPE, where it would have ended
// the whole process with SIGPIPE. A rank of a multi-process run needs this: Gloo writes to its peers with
// writev(), which cannot ask for MSG_NOSIGNAL, so a rank that wrote to a peer the moment it died was killed
// without a word (exit 141) instead of naming the lost peer. (PyTorch's own ranks never see it: Python
// ignores SIGPIPE.) A handler that does nothing, not SIG_IGN: exec resets a handled signal to its default,
// so the programs this process starts (its ranks, scontrol, a shell) keep the usual SIGPIPE. Idempotent and
// thread-safe; it stays for the life of the process.
void failWritesToClosedPeers();

}  // namespace wb
