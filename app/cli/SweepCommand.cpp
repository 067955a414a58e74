// `lstm-workbench-cli sweep`: plans a grid of runs (workbench/domain/Sweep.h), or resumes a sweep folder, and
// runs its cells on this machine (workbench/engine/SweepRun.h); `--plan` prints the cells and their estimated
// times (workbench/engine/SweepEstimate.h) instead. The sweep's signals: SIGINT/SIGTERM stop now (the running
// cell is redone on resume), SIGUSR1 pauses after the running cell, SIGUSR2 withdraws a pause.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/Sweep.h"
#include "workbench/engine/SweepEstimate.h"
#include "workbench/engine/SweepRun.h"
#ifdef WORKBENCH_HAVE_CHARTS
#include "workbench/graphics/HeadlessExport.h"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int printPlan(const wb::Sweep& sweep, bool jsonOut) {
    const auto launcher = wb::makeLocalLauncher(wb::thisProgram());
    const auto estimate = wb::estimateSweep(sweep, *launcher);
    if (jsonOut) {
        json cells = json::array();
        for (std::size_t i = 0; i < sweep.cells.size(); ++i)
            cells.push_back(
                {{"cell", sweep.describe(sweep.cells[i])}, {"estimated_seconds", estimate.seconds[i]}});
        std::cout << json{{"runs", sweep.cells.size()},
                          {"estimated_seconds", estimate.total},
                          {"calibration_us_per_sample", estimate.calibrationUsPerSample},
                          {"cells", cells}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("%zu runs (", sweep.cells.size());
    for (std::size_t i = 0; i < sweep.axes.size(); ++i)
        std::printf("%s%s: %zu", i ? " x " : "", sweep.axes[i].field.c_str(), sweep.axes[i].values.size());
    std::printf("%s)\n",
                sweep.repeats > 1 ? (" x " + std::to_string(sweep.repeats) + " repeats").c_str() : "");
    for (std::size_t i = 0; i < sweep.cells.size(); ++i)
        std::printf("  %3zu  %-50s ~%s\n", i + 1, sweep.describe(sweep.cells[i]).c_str(),
                    wb::humanSeconds(estimate.seconds[i]).c_str());
    std::printf(
        "estimated %s in all (a 5-step calibration of each kind of cell -- device, threads, batch size -- "
        "scaled by each cell's FLOPs, samples and validations; the first: %.0f us/sample); nothing was "
        "trained or created\n",
        wb::humanSeconds(estimate.total).c_str(), estimate.calibrationUsPerSample);
    if (sweep.hasLinkAxis())
        std::printf("the link is not in the estimate: the calibration runs on this host, over loopback\n");
    return 0;
}

// The sweep to run: the folder's to resume, or a new plan (its folder not made yet).
wb::Sweep planOrLoad(const SweepOptions& o, const wb::ExperimentConfig& base) {
    if (o.out.empty()) {
        if (!o.grid.empty()) throw wb::InputError("a sweep folder resumes as planned: leave out --grid");
        if (!wb::isSweepFolder(o.target))
            throw wb::InputError(
                o.target, 0, "not a sweep folder (no sweep.json): give a corpus and --out to start a sweep");
        return wb::loadSweep(o.target);
    }
    std::vector<wb::SweepAxis> axes;
    for (const auto& g : o.grid) axes.push_back(wb::parseSweepAxis(g));
    auto config = base;
    config.data.corpus = wb::absoluteCorpus(o.target);
    return wb::Sweep::plan(config, axes, o.repeats, o.targetLoss);
}

}  // namespace

int runSweep(const SweepOptions& o, const wb::ExperimentConfig& base) {
    wb::SweepControl control;
    wb::SweepSignals signals(control);  // a pause is heard while the sweep plans or reads its corpus
    wb::Sweep sweep = planOrLoad(o, base);
    const std::string dir = o.out.empty() ? o.target : o.out;
    if (!o.out.empty()) wb::requireFreeSweepFolder(dir);  // before any time is spent on a plan
    if (o.plan) return printPlan(sweep, o.json);
    const auto launcher =
        o.on == "slurm" ? wb::makeSlurmLauncher(wb::thisProgram(), {o.partition, o.account, o.timeLimit})
                        : wb::makeLocalLauncher(wb::thisProgram());
    launcher->check(sweep);
    if (!o.out.empty()) wb::createSweepFolder(dir, sweep);

    signals.listenForStops();
    const auto outcome = wb::runSweepCells(dir, sweep, *launcher, control, [&](const std::string& line) {
        if (!o.quiet) std::fprintf(stderr, "%s\n", line.c_str());
    });
#ifdef WORKBENCH_HAVE_CHARTS
    std::string why;
    if (!wbui::exportSweepFolderPlots(dir, &why))
        std::fprintf(stderr, "sweep: the plots were not written: %s\n", why.c_str());
#endif
    if (outcome.stopped || outcome.paused)
        std::fprintf(stderr, "sweep: %s; `lstm-workbench-cli sweep %s` finishes it\n",
                     outcome.paused ? "paused" : "stopped", dir.c_str());
    const auto results = (fs::path(dir) / wb::kSweepResults).string();
    if (o.json)
        std::cout << json{{"sweep_dir", dir},
                          {"runs", sweep.cells.size()},
                          {"done", outcome.done},
                          {"results", results}}
                         .dump(2)
                  << "\n";
    else
        std::printf("%s: %d of %zu runs done; results in %s\n", dir.c_str(), outcome.done, sweep.cells.size(),
                    results.c_str());
    if (outcome.stopped || outcome.paused) return 130;
    return outcome.failed ? 1 : 0;
}
