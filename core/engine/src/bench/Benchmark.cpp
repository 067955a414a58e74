// The training-step benchmark (see Benchmark.h): synthetic tokens of a preset's shape, the same model and
// optimizer as real training, timed per step with the device synchronised, median after warm-up; plus the
// device's own matrix-product rate, measured in the same run, as the ceiling.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "device/Autocast.h"
#include "device/DeviceSetup.h"
#include "model/Bf16Ops.h"
#include "model/CudnnLstm.h"
#include "train/ThreadShards.h"
#include "train/TrainingStep.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/engine/Benchmark.h"
#include "workbench/engine/Devices.h"

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

std::string BenchResult::toJson() const {
    nlohmann::json j = {{"preset", preset},
                        {"device", device},
                        {"device_name", deviceName},
                        {"threads", threads},
                        {"backend", backend},
                        {"thread_split", threadSplit},
                        {"precision", precision},
                        {"batch_size", batchSize},
                        {"seq_len", seqLen},
                        {"steps", steps},
                        {"median_step_ms", medianStepMs},
                        {"us_per_sample", usPerSample},
                        {"samples_per_s", samplesPerSecond},
                        {"tokens_per_s", tokensPerSecond},
                        {"train_flops_per_sample", trainFlopsPerSample},
                        {"gflops", gflops},
                        {"peak_gflops", peakGflops},
                        {"percent_of_peak", percentOfPeak},
                        {"libtorch", libtorchVersion},
                        {"blas", blas},
                        {"cuda_graph", cudaGraph},
                        {"cudnn_lstm", cudnnLstm},
                        {"tf32", tf32},
                        {"step_ms", stepMs}};
    j["uneven_steps"] = unevenSteps >= 0 ? nlohmann::json(unevenSteps) : nlohmann::json(nullptr);
    if (!phases.empty()) {
        auto& p = j["phases_ms"] = nlohmann::json::object();
        for (const auto& phase : phases) p[phase.name] = phase.medianMs;
    }
    return j.dump();
}

double measureMatmulGflops(const DeviceSpec& spec, std::int64_t n, Precision precision) {
    const torch::Device device = torchDevice(spec);
    // The measurement's threads, and the caller's back afterwards (the app measures in its own process).
    const CpuThreadsScope threadsScope(device.is_cpu() ? spec.threads : 0);
    torch::NoGradGuard noGrad;
    AutocastScope scope(device, device.is_cpu() ? precision : Precision::Fp32);
    const bool bf16 = cpuBf16Active();
    auto a = torch::randn({n, n}, torch::TensorOptions().device(device));
    auto b = torch::randn({n, n}, torch::TensorOptions().device(device));
    auto c = torch::empty({n, n}, torch::TensorOptions().device(device));
    std::vector<double> rates;
    for (int i = 0; i < 12; ++i) {
        synchronize(device);
        const auto t0 = Clock::now();
        if (bf16)
            c = mmBf16(a, b);
        else
            torch::mm_out(c, a, b);
        synchronize(device);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (i >= 2) rates.push_back(2.0 * static_cast<double>(n * n * n) / s / 1e9);
    }
    return median(rates);
}

namespace {
// Tokens of the preset's shape (the same every run: seeded), every classifier sequence at its full length.
Batch syntheticBatch(const ExperimentConfig& config, std::int64_t vocab, std::int64_t classes,
                     const torch::Device& device) {
    const auto b = config.train.batchSize, t = config.data.seqLen;
    torch::manual_seed(1234);
    Batch batch;
    batch.inputs = torch::randint(Vocabulary::kNumSpecial, vocab, {b, t}, torch::kInt64).to(device);
    if (config.task == Task::LanguageModel) {
        batch.targets = torch::randint(Vocabulary::kNumSpecial, vocab, {b, t}, torch::kInt64).to(device);
    } else {
        batch.targets = torch::randint(0, classes, {b}, torch::kInt64).to(device);
        batch.lengths = torch::full({b}, t, torch::kInt64).to(device);
    }
    return batch;
}

// Where an op-by-op step's time goes: each phase of trainStep timed on its own, the device synchronised
// before each clock read (the step's total is a little more than the timed step's: every sync waits).
std::vector<BenchPhase> profilePhases(TrainingSetup& setup, const Batch& batch,
                                      const ExperimentConfig& config, std::int64_t steps) {
    const char* names[] = {"zero_grad", "forward_loss", "backward", "clip", "optimizer"};
    std::vector<std::vector<double>> ms(std::size(names));
    const auto device = setup.device;
    for (std::int64_t i = 0; i < steps; ++i) {
        std::size_t phase = 0;
        synchronize(device);
        auto t0 = Clock::now();
        const auto lap = [&] {
            synchronize(device);
            const auto t1 = Clock::now();
            ms[phase++].push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            t0 = t1;
        };
        setup.optimizer->zeroGrad();
        lap();
        torch::Tensor loss;
        {
            AutocastScope autocast(device, config.device.precision);
            loss = computeLoss(setup.model, batch).loss;
        }
        lap();
        loss.backward();
        lap();
        setup.optimizer->clipGradNorm(config.train.gradClip);
        lap();
        setup.optimizer->step();
        lap();
    }
    std::vector<BenchPhase> out;
    for (std::size_t k = 0; k < ms.size(); ++k) out.push_back({names[k], median(ms[k])});
    return out;
}
}  // namespace

namespace {
// How a CUDA run's steps ran, beside its numbers: as CUDA graphs or not, the cuDNN LSTM's algorithms, TF32.
void describeCudaSteps(BenchResult& r, const TrainingSetup& setup, const ExperimentConfig& config,
                       const torch::Device& device) {
    r.cudaGraph = describeCudaGraph(setup, config);
    r.cudnnLstm = cudnnLstmReport();
    r.tf32 = device.is_cuda() && config.device.tf32;
}
}  // namespace

BenchResult runBenchmark(const BenchOptions& o) {
    auto config = presetConfig(o.preset);
    config.device.spec = o.device;
    config.device.precision = precisionFromString(o.precision);
    settleDeviceSettings(config);  // the device checked, and auto as a run would choose it
    const DeviceSpec spec = config.device.spec;
    const std::int64_t threads = spec.threads;
    if (o.batchSize > 0) config.train.batchSize = o.batchSize;
    config.model.backend = lstmBackendFromString(o.backend);
    if (!o.threadSplit.empty()) config.device.threadSplit = threadSplitFromString(o.threadSplit);
    config.device.cudaGraph = cudaGraphModeFromString(o.cudaGraph);
    config.device.tf32 = o.tf32;
    if (o.steps < 1 || o.warmup < 0) throw InputError("bench needs at least one timed step");
    for (const auto& problem : config.validate())
        if (problem.find("corpus") == std::string::npos) throw InputError(problem);
    const torch::Device device = torchDevice(spec);
    // Restores LibTorch's and OpenBLAS's counts on return, including the OpenBLAS count of 1 set below.
    const CpuThreadsScope threadsScope(device.is_cpu() ? threads : 0);

    // Vocabulary and classes of the preset's shape (docs/performance.md): imdb 15000 words / 2 classes,
    // charrnn 65 characters, poems 4379 characters.
    const std::int64_t vocab = o.preset == "charrnn"       ? 65
                               : config.data.vocabSize > 0 ? config.data.vocabSize
                                                           : 15000;
    const std::int64_t classes = config.task == Task::Classifier ? 2 : 0;
    const std::int64_t outputs = config.task == Task::Classifier ? classes : vocab;
    const auto b = config.train.batchSize, t = config.data.seqLen;

    auto setup = makeTrainingSetup(config, vocab, outputs, device);
    const Batch batch = syntheticBatch(config, vocab, classes, device);

    BenchResult r;
    r.preset = o.preset;
    r.device = config.device.spec.id();
    r.deviceName = device.is_cpu() ? "CPU" : cudaDeviceName(device.index(), nullptr);
    r.precision = effectivePrecision(device, config.device.precision);
    r.backend = toString(setup.model->backend());  // Torch or Fused: the model resolved Auto
    r.threadSplit = device.is_cpu() && currentCpuThreads() >= 2 ? toString(config.device.threadSplit) : "ops";
    r.libtorchVersion = libtorchVersion();
    r.blas = blasLibrary();
    r.threads = device.is_cpu() ? currentCpuThreads() : 0;
    r.batchSize = b;
    r.seqLen = t;
    r.steps = o.steps;
    std::unique_ptr<ThreadShards> shards;
    if (device.is_cpu() && r.threads >= 2 && config.device.threadSplit == ThreadSplit::Batch) {
        shards = std::make_unique<ThreadShards>(static_cast<int>(r.threads));
        applyBlasThreads(1);
    }
    std::int64_t unevenBefore = 0;  // the warm-up's
    for (std::int64_t i = 0; i < o.warmup + o.steps; ++i) {
        if (shards && i == o.warmup) unevenBefore = shards->unevenSteps();
        synchronize(device);
        const auto t0 = Clock::now();
        if (shards)
            shards->step(setup, batch, config, 1234 + static_cast<std::uint64_t>(i));
        else
            trainStep(setup, batch, config);
        synchronize(device);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (i >= o.warmup) r.stepMs.push_back(ms);
    }
    if (shards) r.unevenSteps = shards->unevenSteps() - unevenBefore;
    describeCudaSteps(r, setup, config, device);
    if (o.profile && !shards) {
        setup.graph.reset();  // phases exist only op by op
        r.phases = profilePhases(setup, batch, config, o.steps);
    }
    r.medianStepMs = median(r.stepMs);
    r.usPerSample = r.medianStepMs * 1000.0 / static_cast<double>(b);
    r.samplesPerSecond = 1e6 / r.usPerSample;
    r.tokensPerSecond = r.samplesPerSecond * static_cast<double>(t);
    // The floor (docs/performance.md): 3 x [sum over layers 8 H (E_in + H) + 2 H V] per token for an LM.
    r.trainFlopsPerSample = summarizeModel(config, vocab, classes).trainFlopsPerSample;
    r.gflops = r.trainFlopsPerSample * r.samplesPerSecond / 1e9;
    r.peakGflops = measureMatmulGflops(spec, device.is_cpu() ? 1024 : 4096, config.device.precision);
    r.percentOfPeak = r.peakGflops > 0 ? 100.0 * r.gflops / r.peakGflops : 0;
    return r;
}

}  // namespace wb
