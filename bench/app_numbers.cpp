// The app's own numbers for docs/benchmarks.md, as medians: loading the full Tang corpus, and generating a
// 56-character quatrain (form quatrain7) from a poems-preset-sized model with each LSTM backend. The model
// is trained for one step on tang-quatrains-7 (its speed does not depend on what it learned).
// Usage: workbench_bench [--repeats N] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "workbench/Config.h"
#include "workbench/Corpus.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Inference.h"
#include "workbench/Training.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class F>
double medianMs(int repeats, F&& f) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return median(ms);
}

// A run folder holding a poems-preset-sized model (emb 512, hidden 512, 2 layers, 4379 characters).
std::string makePoemsModel(wb::LstmBackend backend, const std::string& dir) {
    auto config = wb::presetConfig("poems");
    config.model.backend = backend;
    config.train.maxSteps = 1;
    config.train.batchSize = 4;
    config.data.valFraction = 0.01;
    config.device.threads = 1;
    std::filesystem::remove_all(dir);
    wb::TrainingJob job(config, dir);
    job.run();
    return dir;
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 20;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        if (!std::strcmp(argv[i], "--json")) json = true;
    }
    try {
        const auto corpusPath = wb::resolveCorpusPath("tang-poems");
        std::size_t documents = 0;
        const double loadMs = medianMs(std::max(3, repeats / 4), [&] {
            documents = wb::loadCorpus(corpusPath, wb::CorpusFormat::Poems).documents.size();
        });

        const auto tmp = std::filesystem::temp_directory_path() / "workbench-bench-app-numbers";
        std::vector<std::pair<std::string, double>> generation;
        std::string sample;
        for (auto backend : {wb::LstmBackend::Torch, wb::LstmBackend::Fused}) {
            const std::string name = backend == wb::LstmBackend::Fused ? "fused" : "torch";
            const auto dir = makePoemsModel(backend, (tmp / name).string());
            auto model = wb::TrainedModel::load(dir);
            wb::GenerateOptions g;
            g.form = wb::PoemForm::Quatrain7;
            g.temperature = 0.8;
            g.rngSeed = 7;
            model->generate(g);  // warm-up
            const double ms = medianMs(repeats, [&] { sample = model->generate(g).at(0); });
            generation.emplace_back(name, ms);
        }
        std::filesystem::remove_all(tmp);

        if (json) {
            std::printf("{\"tang_poems_documents\": %zu, \"tang_poems_load_ms\": %.1f", documents, loadMs);
            for (const auto& [name, ms] : generation)
                std::printf(", \"quatrain7_generate_ms_%s\": %.2f", name.c_str(), ms);
            std::printf(", \"repeats\": %d}\n", repeats);
        } else {
            std::printf("load tang-poems (%zu poems): median %.1f ms\n", documents, loadMs);
            for (const auto& [name, ms] : generation)
                std::printf("generate quatrain7 (poems-size model, %s LSTM, CPU): median %.2f ms\n",
                            name.c_str(), ms);
            std::printf("sample: %s\n", sample.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "workbench_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
