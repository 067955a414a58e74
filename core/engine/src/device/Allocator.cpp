// The allocator set-up for training (see workbench/engine/Allocator.h).
#include "workbench/engine/Allocator.h"

#include <limits>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wb {

void tuneAllocatorForTraining() {
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        // A training step allocates and frees the same large activations every time (the fused LSTM's
        // gates are [T, B, 4H], the LM's logits [B, T, V]: tens of MB). glibc serves such blocks with mmap
        // and unmaps them on free, so every step faulted in ~70 MB of fresh zeroed pages (imdb: ~17,000
        // page faults a step, ~15 % of its time). Serving them from the heap and never trimming it lets
        // the next step reuse the same pages.
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
        // That holds for the main thread's arena only. A thread of its own (the app's training worker,
        // one per device) gets a separate arena made of 64 MB heaps, which glibc unmaps as soon as one is
        // empty, whatever the trim threshold: in the app the worker spent ~9 % of its time in the kernel
        // faulting pages in (perf, default experiment, 1 thread; the CLI 1 %), and trained ~10 % slower
        // than the CLI. One arena for all threads removes that; the app's threads allocate little besides
        // training, so they hardly contend for its lock. Takes effect only for threads that have not
        // allocated yet, hence "first thing in main()".
        mallopt(M_ARENA_MAX, 1);
    });
#endif
}

}  // namespace wb
