// `lstm-workbench-cli train CORPUS --out RUN`: one run, in this process, over --nproc processes it starts,
// or as rank 0 of a job torchrun started.
#include <algorithm>
#include <cstdio>

#include "Commands.h"
#include "ProgressPrinter.h"
#include "TrainingRun.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/SlurmJob.h"
#include "workbench/engine/SweepEstimate.h"
#include "workbench/engine/SweepRun.h"

namespace {

// --fit-minutes: the run's steps and validations timed in a short calibration run, as the app's estimate
// times them, and its max steps cut to what fits (workbench/engine/SweepEstimate.h).
wb::RunPlan fitToMinutes(TrainOptions& o, bool underTorchrun) {
    if (underTorchrun)
        throw wb::InputError(
            "--fit-minutes: not under torchrun (each rank would time the run for itself); fit it once with "
            "`sweep --plan`, then start the ranks with --max-steps");
    const bool say = !o.quiet && !o.json;
    if (say)
        std::fprintf(stderr, "%s: timing a few steps to fit %s…\n", o.out.c_str(),
                     wb::humanSeconds(o.fitMinutes * 60).c_str());
    const auto launcher = wb::makeLocalLauncher(wb::thisProgram());
    const wb::RunsEstimate estimate = wb::estimateRuns({o.config}, *launcher);
    const double asked = estimate.total;
    const wb::RunPlan plan = wb::fitToSeconds(o.config, estimate.models.front(), o.fitMinutes * 60,
                                              estimate.calibrationUsPerSample);
    if (say) {
        if (plan.fitted())
            std::fprintf(stderr, "%s: %s\n", o.out.c_str(), plan.describe().c_str());
        else
            std::fprintf(stderr, "%s: estimated at %s, which fits %s: trained as asked\n", o.out.c_str(),
                         wb::humanSeconds(asked).c_str(), wb::humanSeconds(o.fitMinutes * 60).c_str());
    }
    return plan;
}

}  // namespace

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
    const wb::RunPlan plan = o.fitMinutes > 0 ? fitToMinutes(o, spec.has_value()) : wb::RunPlan{};
    // A corpus not tokenized before is tokenized into its store first: minutes for a few GB, so it shows.
    ProgressPrinter tokenizing(o.quiet || o.json);
    wb::TrainingJob job(o.config, o.out, nullptr, [&](std::uint64_t done, std::uint64_t total) {
        tokenizing.tokenizing(o.corpus, done, total);
        return true;
    });
    tokenizing.finish();
    if (spec) job.joinAsRankZero(*spec);
    job.setPlan(plan);
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
