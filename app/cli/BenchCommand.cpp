// `lstm-workbench-cli bench`: training steps of a reference model on synthetic data, timed against the
// machine's measured peak.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/Benchmark.h"
#include "workbench/DeviceSpec.h"
#include "workbench/Devices.h"

using nlohmann::json;

int runBench(const BenchCliOptions& o) {
    json results = json::array();
    // The bench's thread count reaches LibTorch only with another BLAS: said before any number.
    if (const auto caveat = wb::blasThreadsCaveat(); !caveat.empty())
        std::fprintf(stderr, "warning: %s\n", caveat.c_str());
    for (const auto& preset : o.presets) {
        wb::BenchOptions b;
        b.preset = preset;
        b.device = wb::DeviceSpec::parse(o.device);
        b.precision = o.precision;
        b.steps = o.steps;
        b.warmup = o.warmup;
        b.batchSize = o.batchSize;
        b.backend = o.backend;
        b.threadSplit = o.threadSplit;
        const auto r = wb::runBenchmark(b);
        if (o.json) {
            results.push_back(json::parse(r.toJson()));
            continue;
        }
        std::printf(
            "%-8s %-6s %2lld thr %-5s %s %-5s batch %lld x %lld: %8.1f us/sample  %10.0f tokens/s  %6.1f "
            "GFLOP/s "
            "of %6.1f measured peak (%4.1f%%)\n",
            r.preset.c_str(), r.device.c_str(), static_cast<long long>(r.threads), r.threadSplit.c_str(),
            r.precision.c_str(), r.backend.c_str(), static_cast<long long>(r.batchSize),
            static_cast<long long>(r.seqLen), r.usPerSample, r.tokensPerSecond, r.gflops, r.peakGflops,
            r.percentOfPeak);
        if (r.preset == "imdb")
            std::printf(
                "         reference 004 (Keras, imdb): TPU 680 us/sample, Colab GPU 12000 us/sample\n");
    }
    if (o.json) std::cout << (results.size() == 1 ? results[0] : results).dump(2) << "\n";
    return 0;
}
