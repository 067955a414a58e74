// See TrainingRun.h.
#include "TrainingRun.h"

#include <csignal>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "ProgressPrinter.h"
#include "workbench/domain/Baseline.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/SlurmJob.h"

using nlohmann::json;

namespace {

// The class-by-class evaluation of a classifier's last validation, with the baseline its accuracy is read
// against: an accuracy near the majority share means the model learned little beyond the class sizes.
void printEvaluation(const wb::ClassifierEvaluation& e) {
    std::printf(
        "validation at step %lld, %lld samples: accuracy %.1f %% vs majority baseline %.1f %% "
        "(always '%s'); macro F1 %.3f\n",
        static_cast<long long>(e.step), static_cast<long long>(e.total()), 100 * e.accuracy,
        100 * e.majorityAccuracy, e.majorityClass.c_str(), e.macroF1);
    std::printf("  %-20s %9s %9s %9s %9s\n", "class", "precision", "recall", "F1", "support");
    for (std::size_t c = 0; c < e.classes.size(); ++c)
        std::printf("  %-20s %9.3f %9.3f %9.3f %9lld\n", e.classes[c].c_str(), e.precision[c], e.recall[c],
                    e.f1[c], static_cast<long long>(e.support[c]));
}

// SIGINT/SIGTERM during training: ask the job to stop after the current batch (it saves a checkpoint).
wb::TrainingJob* g_activeJob = nullptr;
extern "C" void onInterrupt(int) {
    if (g_activeJob) g_activeJob->requestStop();  // an atomic store: async-signal-safe
}

// SIGUSR1 in a Slurm job: its time limit is near (sbatch --signal=USR1@SECONDS). The same stop, and then the
// job queues itself again to continue the run (workbench/engine/SlurmJob.h).
volatile std::sig_atomic_t g_timeLimitNear = 0;
extern "C" void onTimeLimitNear(int) {
    g_timeLimitNear = 1;
    if (g_activeJob) g_activeJob->requestStop();
}

// After a stop for the time limit: rank 0 queues the job again, unless this sitting trained no step (a time
// limit too short for one checkpoint would otherwise requeue the job for ever). Says which on stderr.
void requeueForTimeLimit(const wb::TrainingJob& job, const wb::SlurmJob& slurm, std::int64_t stepsBefore,
                         std::int64_t stepsAfter) {
    if (job.rank() != 0) return;
    if (stepsAfter <= stepsBefore) {
        std::fprintf(stderr,
                     "Slurm's time limit came before this job trained a step: not queued again (give it more "
                     "time than --signal's warning, and time for a validation and a checkpoint)\n");
        return;
    }
    wb::requeueSlurmJob(slurm, job.runDir() + "/.scontrol-requeue");
    std::fprintf(
        stderr,
        "Slurm's time limit is near: checkpoint saved at step %lld, and job %s queued again; when it "
        "starts, it continues this run from there\n",
        static_cast<long long>(stepsAfter), slurm.id.c_str());
}

}  // namespace

int trainJob(wb::TrainingJob& job, bool jsonOut, bool quiet, bool printSummary) {
    ProgressPrinter printer(quiet);
    wb::TrainingCallbacks cb;
    cb.onProgress = [&](const wb::TrainingProgress& p) { printer.update(p); };
    cb.onLog = [&](const std::string& line) { printer.line(line); };
    g_activeJob = &job;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    const auto slurm = wb::slurmJobFromEnvironment();
    if (slurm) std::signal(SIGUSR1, onTimeLimitNear);
    const std::int64_t stepsBefore = job.stepsDone();
    wb::RunSummary summary;
    try {
        summary = job.run(cb);
    } catch (...) {
        g_activeJob = nullptr;
        printer.finish();
        throw;
    }
    g_activeJob = nullptr;
    for (const int sig : {SIGINT, SIGTERM}) std::signal(sig, SIG_DFL);
    // A time-limit warning after the run has ended has nothing left to stop: in a Slurm job it must not end
    // the process with USR1's default action, a rank still writing its summary or queueing the job again.
    std::signal(SIGUSR1, slurm ? SIG_IGN : SIG_DFL);
    printer.finish();
    const bool stopped = job.status() == wb::RunStatus::Stopped;
    const bool requeued = stopped && slurm && g_timeLimitNear;
    if (requeued) requeueForTimeLimit(job, *slurm, stepsBefore, summary.steps);
    if (!printSummary) return stopped ? 130 : 0;
    // Read back from the run folder: what the app shows for this run, whoever trained it.
    const auto evaluation =
        job.config().task == wb::Task::Classifier ? wb::loadEvaluation(job.runDir()) : std::nullopt;
    if (jsonOut) {
        json out = {{"run_dir", job.runDir()},
                    {"status", wb::toString(job.status())},
                    {"summary", json::parse(summary.toJson())}};
        if (evaluation) out["evaluation"] = json::parse(evaluation->toJson());
        if (wb::hasBitsPerCharacter(job.config())) {
            out["summary"]["best_val_bpc"] =
                summary.bestValLoss > 0 ? json(wb::bitsFromNats(summary.bestValLoss)) : json();
            if (const auto baseline = wb::loadBaseline(job.runDir()))
                out["baseline"] = json::parse(baseline->toJson());
        }
        std::cout << out.dump(2) << "\n";
    } else {
        // A run that ended within its warm-up steps has no throughput window: no rate, not a 0.
        char speed[96] = "speed not measured (the run ended within its warm-up steps)";
        if (summary.samplesPerSecond > 0)
            std::snprintf(speed, sizeof speed, "%.0f samples/s (%.1f us/sample)", summary.samplesPerSecond,
                          summary.usPerSample);
        std::printf("%s: %s after %lld steps, %.1f s; %s; train loss %.4f", job.runDir().c_str(),
                    wb::toString(job.status()).c_str(), static_cast<long long>(summary.steps),
                    summary.trainSeconds, speed, summary.finalTrainLoss);
        if (summary.validated())
            std::printf("; best val loss %.4f", summary.bestValLoss);
        else
            std::printf("; best val loss none (never validated)");
        if (summary.bestValLoss > 0 && wb::hasBitsPerCharacter(job.config())) {
            const auto baseline = wb::loadBaseline(job.runDir());
            std::printf(" = %.3f bits per character", wb::bitsFromNats(summary.bestValLoss));
            if (baseline) std::printf(" (5-gram baseline %.3f)", baseline->bitsPerToken);
        }
        if (job.config().task == wb::Task::Classifier && summary.validated())
            std::printf("; best val accuracy %.3f", summary.bestValAccuracy);
        std::printf("\n");
        if (evaluation) printEvaluation(*evaluation);
    }
    return stopped ? 130 : 0;
}

std::optional<wb::DistributedSpec> torchrunRank(std::int64_t processesFlag) {
    auto spec = wb::distributedSpecFromEnvironment();
    if (spec && processesFlag > 0)
        throw wb::InputError(
            "--nproc starts its own processes; under torchrun (RANK and WORLD_SIZE are set) "
            "leave it out");
    return spec;
}
