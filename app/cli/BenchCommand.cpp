// `lstm-workbench-cli bench`: training steps of a reference model on synthetic data, timed against the
// machine's measured peak.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/engine/Benchmark.h"
#include "workbench/engine/Devices.h"

using nlohmann::json;

namespace {
std::int64_t parseBatch(const std::string& entry, const std::string& text) {
    std::size_t used = 0;
    long long value = 0;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || value < 1)
        throw wb::InputError("bench --preset " + entry +
                             ": expected PRESET or PRESET:BATCH with a batch size of "
                             "at least 1");
    return value;
}
}  // namespace

int runBench(const BenchCliOptions& o) {
    json results = json::array();
    // The bench's thread count reaches LibTorch only with another BLAS: said before any number.
    if (const auto caveat = wb::blasThreadsCaveat(); !caveat.empty())
        std::fprintf(stderr, "warning: %s\n", caveat.c_str());
    for (const auto& entry : o.presets) {
        wb::BenchOptions b;
        // "charrnn:1024": the preset at that batch size.
        const auto colon = entry.find(':');
        b.preset = entry.substr(0, colon);
        b.batchSize = o.batchSize;
        if (colon != std::string::npos) b.batchSize = parseBatch(entry, entry.substr(colon + 1));
        b.device = wb::DeviceSpec::parse(o.device);
        b.precision = o.precision;
        b.steps = o.steps;
        b.warmup = o.warmup;
        b.backend = o.backend;
        b.cudaGraph = o.cudaGraph;
        b.tf32 = o.tf32;
        b.profile = o.profile;
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
        for (const auto& phase : r.phases)
            std::printf("         %-13s %8.3f ms\n", phase.name.c_str(), phase.medianMs);
        if (r.unevenSteps > 0)
            std::printf("         uneven shares in %lld of %lld steps (a worker ran clearly slower)\n",
                        static_cast<long long>(r.unevenSteps), static_cast<long long>(r.steps));
        if (!r.cudaGraph.empty())
            std::printf("         CUDA steps: %s%s\n", r.cudaGraph.c_str(), r.tf32 ? ", TF32" : "");
        if (r.preset == "imdb")
            std::printf(
                "         reference 004 (Keras, imdb): TPU 680 us/sample, Colab GPU 12000 us/sample\n");
    }
    if (o.json) std::cout << (results.size() == 1 ? results[0] : results).dump(2) << "\n";
    return 0;
}
