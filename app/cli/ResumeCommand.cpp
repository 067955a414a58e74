// `lstm-workbench-cli resume RUN`: a run continued from its last checkpoint, with new limits if given.
#include "Commands.h"
#include "TrainingRun.h"

int runResume(const ResumeOptions& o) {
    const auto spec = torchrunRank(o.processes);
    if (spec && spec->rank > 0) return runWorker(*spec, {});
    auto job = wb::TrainingJob::resume(o.runDir, o.epochs, o.maxSteps, o.learningRate, o.processes);
    if (spec) job->joinAsRankZero(*spec);
    return trainJob(*job, o.json, o.quiet);
}
