// failWritesToClosedPeers (see BrokenPipes.h).
#include "process/BrokenPipes.h"

#include <csignal>

namespace wb {

namespace {
extern "C" void onBrokenPipe(int) {}
}  // namespace

void failWritesToClosedPeers() {
    struct sigaction action {};
    action.sa_handler = onBrokenPipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // the write that raised it returns EPIPE either way
    sigaction(SIGPIPE, &action, nullptr);
}

}  // namespace wb
