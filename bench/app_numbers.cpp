// The app's own numbers for docs/benchmarks.md, as medians: loading the full Tang corpus, and generating a
// 56-character poem (form regulated7: 8 lines of 7 characters, the reference's poem) and a 28-character
// quatrain (quatrain7) from a poems-preset-sized model, through the default 16-bit CPU path (bf16 weights
// on CPUs with AVX512_BF16, fp16 elsewhere: "generation_weights") and through LibTorch in fp32
// (GenerateOptions::fullPrecision). The model is trained for one step on tang-quatrains-7 (its speed does
// not depend on what it learned); the training run's thread count does not stay with the process, so
// generation runs at the threads the environment (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS) gives.
// Usage: workbench_bench [--repeats N] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/engine/Inference.h"
#include "workbench/engine/Training.h"

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
    config.device.spec.threads = 1;
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
        std::string sample, weights;
        {
            const auto dir = makePoemsModel(wb::LstmBackend::Fused, (tmp / "fused").string());
            auto model = wb::TrainedModel::load(dir);
            weights = model->generationPrecision();
            auto measure = [&](const std::string& key, wb::PoemForm form, bool fullPrecision) {
                wb::GenerateOptions g;
                g.form = form;
                g.temperature = 0.8;
                g.rngSeed = 7;
                g.fullPrecision = fullPrecision;
                model->generate(g);  // warm-up
                generation.emplace_back(key,
                                        medianMs(repeats, [&] { sample = model->generate(g).at(0).text; }));
            };
            measure("regulated7_generate_ms_fp32", wb::PoemForm::Regulated7, true);
            measure("quatrain7_generate_ms", wb::PoemForm::Quatrain7, false);
            measure("regulated7_generate_ms", wb::PoemForm::Regulated7, false);
        }
        std::filesystem::remove_all(tmp);

        if (json) {
            std::printf("{\"tang_poems_documents\": %zu, \"tang_poems_load_ms\": %.1f", documents, loadMs);
            for (const auto& [key, ms] : generation) std::printf(", \"%s\": %.2f", key.c_str(), ms);
            std::printf(", \"generation_weights\": \"%s\", \"repeats\": %d}\n", weights.c_str(), repeats);
        } else {
            std::printf("load tang-poems (%zu poems): median %.1f ms\n", documents, loadMs);
            for (const auto& [key, ms] : generation)
                std::printf("%s (poems-size model, CPU): median %.2f ms\n", key.c_str(), ms);
            std::printf("generation weights: %s\nsample (regulated7):\n%s\n", weights.c_str(),
                        sample.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "workbench_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
