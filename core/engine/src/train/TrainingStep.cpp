// Shared training pieces (see TrainingStep.h).
#include "train/TrainingStep.h"

#include "device/Autocast.h"
#include "model/CrossEntropy.h"

namespace wb {

LossOutput computeLoss(SequenceModel& model, const Batch& batch) {
    LossOutput out;
    auto logits = model->forward(batch.inputs, batch.lengths);
    if (model->task() == Task::LanguageModel) {
        auto flat = logits.reshape({-1, logits.size(-1)});
        auto targets = batch.targets.reshape({-1});
        auto ce = crossEntropyWithArgmax(flat.to(torch::kFloat32), targets);
        out.loss = ce.loss;
        out.correct = (ce.argmax == targets).sum();
        out.count = targets.numel();
    } else {
        auto ce = crossEntropyWithArgmax(logits.to(torch::kFloat32), batch.targets);
        out.loss = ce.loss;
        out.predicted = ce.argmax;
        out.correct = (out.predicted == batch.targets).sum();
        out.count = batch.targets.numel();
    }
    return out;
}

TrainingSetup makeTrainingSetup(const ExperimentConfig& config, std::int64_t vocabSize, std::int64_t outputs,
                                const torch::Device& device) {
    TrainingSetup s;
    s.device = device;
    torch::manual_seed(config.train.seed);  // the same initial weights on every device
    s.model = SequenceModel(config.task, config.model, vocabSize, outputs, device);
    s.model->to(device);
    s.model->train();
    s.optimizer = std::make_unique<Optimizer>(config.train.optimizer, namedParameters(s.model),
                                              config.train.learningRate);
    s.optimizer->setWeightDecay(config.train.weightDecay);
    if (device.is_cuda() && config.device.cudaGraph == CudaGraphMode::Auto &&
        config.device.spec.processes <= 1 && CudaGraphStep::unavailableReason(device).empty())
        s.graph = std::make_unique<CudaGraphStep>(device, *s.optimizer);
    return s;
}

namespace {
torch::Tensor eagerStep(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                        GradientSync* sync, double lossWeight) {
    setup.optimizer->zeroGrad();
    if (sync) sync->beforeForward();
    torch::Tensor loss;
    if (batch.size() == 0) {
        loss = torch::zeros({}, torch::TensorOptions(torch::kFloat32).device(setup.device));
        for (const auto& p : setup.model->parameters()) loss = loss + p.sum() * 0;
    } else {
        AutocastScope autocast(setup.device, config.device.precision);
        loss = computeLoss(setup.model, batch).loss;
    }
    if (lossWeight != 1.0) loss = loss * lossWeight;
    if (sync) sync->beforeBackward();
    loss.backward();
    setup.optimizer->clipGradNorm(config.train.gradClip);
    setup.optimizer->step();
    return loss.detach();
}

// TF32 for CUDA fp32 matrix products, as the config says. LibTorch's setting is the process's: set before
// each CUDA step, so runs on two GPUs in one app with different settings each get their own.
void applyTf32(const TrainingSetup& setup, const ExperimentConfig& config) {
    if (setup.device.is_cuda())
        at::globalContext().setFloat32MatmulPrecision(config.device.tf32 ? "high" : "highest");
}
}  // namespace

torch::Tensor trainStep(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                        GradientSync* sync, double lossWeight) {
    applyTf32(setup, config);
    const bool oneProcess = !sync || sync->worldSize() == 1;
    if (setup.graph && oneProcess && lossWeight == 1.0)
        return setup.graph->run(batch,
                                [&](const Batch& b) { return eagerStep(setup, b, config, nullptr, 1.0); });
    return eagerStep(setup, batch, config, sync, lossWeight);
}

std::string describeCudaGraph(const TrainingSetup& setup, const ExperimentConfig& config) {
    if (!setup.device.is_cuda()) return {};
    if (setup.graph) return setup.graph->describe();
    if (config.device.cudaGraph == CudaGraphMode::Off) return "op by op: cuda_graph off";
    if (const auto why = CudaGraphStep::unavailableReason(setup.device); !why.empty())
        return "op by op: " + why;
    return "op by op: a run over several processes";
}

bool isOutOfMemory(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
    const std::string what = e.what();
    return what.find("out of memory") != std::string::npos ||
           what.find("DefaultCPUAllocator") != std::string::npos;
}

NamedTensors namedParameters(const SequenceModel& model) {
    NamedTensors out;
    for (const auto& item : model->named_parameters()) out.emplace_back(item.key(), item.value());
    return out;
}

}  // namespace wb
