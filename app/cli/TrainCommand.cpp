// `lstm-workbench-cli train CORPUS --out RUN`: one run, in this process, over --nproc processes it starts,
// or as rank 0 of a job torchrun started.
#include <algorithm>
#include <cstdio>

#include "Commands.h"
#include "ProgressPrinter.h"
#include "TrainingRun.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/SlurmJob.h"

int runTrain(TrainOptions o) {
    o.config.data.corpus = o.corpus;
    const auto spec = torchrunRank(o.nprocGiven ? o.config.device.spec.processes : 0);
    if (spec && spec->rank > 0) return runWorker(*spec, o.corpus);
    // A Slurm job started again after its time limit or a preemption runs its script from the top: this
    // `train` continues the run the job's earlier sitting left in --out (SlurmJob.h) instead of refusing it.
    if (wb::continuesRequeuedRun(o.out)) {
        auto job = wb::TrainingJob::resume(o.out);
        if (spec) job->joinAsRankZero(*spec);
        std::fprintf(stderr, "%s: Slurm started job %s again; continuing the run from step %lld\n",
                     o.out.c_str(), wb::slurmJobFromEnvironment()->id.c_str(),
                     static_cast<long long>(job->stepsDone()));
        return trainJob(*job, o.json, o.quiet);
    }
    // Processes sharing this machine share its cores: unless told otherwise, each gets its share.
    const auto localProcesses = spec ? spec->localWorldSize : o.config.device.spec.processes;
    if (!o.threadsGiven)
        o.config.device.spec = wb::shareCoresBetweenProcesses(o.config.device.spec, localProcesses);
    // A corpus not tokenized before is tokenized into its store first: minutes for a few GB, so it shows.
    ProgressPrinter tokenizing(o.quiet || o.json);
    wb::TrainingJob job(o.config, o.out, nullptr, [&](std::uint64_t done, std::uint64_t total) {
        tokenizing.tokenizing(o.corpus, done, total);
        return true;
    });
    tokenizing.finish();
    if (spec) job.joinAsRankZero(*spec);
    if (!o.quiet && !o.json) {
        const auto summary = wb::summarizeModel(job.config(), job.vocabularySize(), job.classCount());
        std::fprintf(stderr, "%s: %lld parameters, %s train FLOPs/sample, %lld steps/epoch\n", o.out.c_str(),
                     static_cast<long long>(summary.totalParameters),
                     wb::humanCount(summary.trainFlopsPerSample).c_str(),
                     static_cast<long long>(job.stepsPerEpoch()));
    }
    // The name a user gives on the command line names the run in every list, as the app's Rename does. The
    // run folder exists only once training starts, so the name is written when it ends, however it ends.
    const auto nameTheRun = [&] {
        if (!o.runName.empty() && wb::isRunFolder(o.out)) {
            // Only the name: notes and tags the app saved meanwhile stay (saveRunAnnotations merges).
            const wb::RunAnnotations base = wb::readRunAnnotations(o.out);
            wb::RunAnnotations named = base;
            named.name = o.runName;
            wb::saveRunAnnotations(o.out, base, named);
        }
    };
    int code = 0;
    try {
        code = trainJob(job, o.json, o.quiet);
    } catch (...) {
        nameTheRun();
        throw;
    }
    nameTheRun();
    return code;
}
