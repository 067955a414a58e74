// How the process's memory allocator is set up for training (see core/engine/src/device/Allocator.cpp for
// why).
#pragma once

namespace wb {

// Makes every training step reuse the pages of the step before: one malloc arena for all threads, large
// blocks served from the heap instead of mmap, and the heap never trimmed. Call it first thing in main(),
// before any thread starts (a thread that has allocated keeps its arena); calling it again is harmless.
// Every SequenceModel calls it too, which is enough for single-threaded programs.
void tuneAllocatorForTraining();

}  // namespace wb
