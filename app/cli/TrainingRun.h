// Training a job to its end on the CLI's main thread: shared by `train`, `resume` and `worker` (each rank of
// a job started by torchrun is one of these).
#pragma once

#include <cstdint>
#include <optional>

#include "workbench/engine/Distributed.h"
#include "workbench/engine/Training.h"

// Runs the job with progress on stderr; SIGINT and SIGTERM ask it to stop after the current batch (it saves a
// checkpoint). Unless printSummary is false, prints the run's summary, as one JSON document with jsonOut,
// read back from the run folder. Returns 0, or 130 when stopped.
int trainJob(wb::TrainingJob& job, bool jsonOut, bool quiet, bool printSummary = true);

// The torchrun variables, when this process was started as one rank of a job; nullopt otherwise. Throws
// InputError when --nproc (processesFlag > 0) is given too.
std::optional<wb::DistributedSpec> torchrunRank(std::int64_t processesFlag);
