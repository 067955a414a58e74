// CUDA graph steps (train/CudaGraphStep.h) and what they rest on. On any machine: the optimizer's device
// scalars (what a captured update reads) give the host scalars' updates for every optimizer, through
// changing learning rates, weight decay and a restored step count; a CPU setup has no graph and run.json
// says nothing of one. With a GPU (the CudaGraph tests skip by name without one): graph steps train the
// parameters op-by-op steps do, over two batch shapes, and say so.
#include <gtest/gtest.h>

#include "support/TinyExperiments.h"
#include "train/TrainingStep.h"

using namespace wb;

namespace {

Batch lmBatch(std::int64_t vocab, std::int64_t rows, std::int64_t seqLen, const torch::Device& device) {
    Batch b;
    b.inputs = torch::randint(4, vocab, {rows, seqLen}, torch::kInt64).to(device);
    b.targets = torch::randint(4, vocab, {rows, seqLen}, torch::kInt64).to(device);
    return b;
}

double maxDifference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, (a[i].cpu() - b[i].cpu()).abs().max().item<double>());
    return worst;
}

std::vector<torch::Tensor> stateOf(const TrainingSetup& s) {
    std::vector<torch::Tensor> out = s.model->parameters();
    for (const auto& [name, t] : s.optimizer->state()) out.push_back(t);
    return out;
}

double movement(const TrainingSetup& now, const TrainingSetup& before) {
    return maxDifference(now.model->parameters(), before.model->parameters());
}

}  // namespace

TEST(OptimizerDeviceScalars, UpdateAsTheHostScalarsDoForEveryOptimizer) {
    for (const auto kind : {OptimizerKind::Adam, OptimizerKind::Sgd, OptimizerKind::RmsProp}) {
        auto c = wbtest::tinyLanguageModel("unused");
        c.train.optimizer = kind;
        c.train.weightDecay = 0.01;
        c.train.gradClip = 0.5;
        auto host = makeTrainingSetup(c, 40, 40, torch::kCPU);
        auto device = makeTrainingSetup(c, 40, 40, torch::kCPU);
        const auto before = makeTrainingSetup(c, 40, 40, torch::kCPU);
        device.optimizer->useDeviceScalars(torch::kCPU);
        torch::manual_seed(5);
        for (int step = 0; step < 12; ++step) {
            const auto batch = lmBatch(40, 8, c.data.seqLen, torch::kCPU);
            const double lr = 0.01 * (1.0 + 0.25 * step);  // a schedule: each step its own rate
            host.optimizer->setLearningRate(lr);
            device.optimizer->setLearningRate(lr);
            device.optimizer->loadDeviceScalars();  // as a replay does
            trainStep(host, batch, c);
            trainStep(device, batch, c);
            if (step == 5) {  // a resume: the step count is restored, and the device reads it
                host.optimizer->setSteps(100);
                device.optimizer->setSteps(100);
            }
        }
        EXPECT_EQ(device.optimizer->steps(), host.optimizer->steps());
        const double moved = movement(host, before);
        EXPECT_GT(moved, 1e-3) << toString(kind) << ": the parameters should move";
        // Float rounding of the scalars held two ways (a tensor the step reads, a double) differs per step
        // and compounds with how far training moved the weights: RMSprop, dividing by a small running
        // square, moved 1.24 and differed by 1.1e-5 against PyTorch 2.15's LibTorch at one thread (Adam
        // 3e-7 of 0.49, SGD 1.5e-8 of 0.008). A scalar that is wrong changes an update by a share of a
        // whole step (the next test: a step count off by three, 1e-4 after one step).
        EXPECT_LT(maxDifference(stateOf(device), stateOf(host)), 1e-4 * moved) << toString(kind);
    }
}

TEST(OptimizerDeviceScalars, AStepCountLeftUnloadedChangesAdamsUpdate) {
    // The check above can fail: a device step count that is not reloaded after a restore updates otherwise.
    auto c = wbtest::tinyLanguageModel("unused");
    auto host = makeTrainingSetup(c, 40, 40, torch::kCPU);
    auto device = makeTrainingSetup(c, 40, 40, torch::kCPU);
    device.optimizer->useDeviceScalars(torch::kCPU);
    host.optimizer->setSteps(3);
    device.optimizer->setSteps(3);  // not loaded: the device still counts from 0
    torch::manual_seed(6);
    const auto batch = lmBatch(40, 8, c.data.seqLen, torch::kCPU);
    trainStep(host, batch, c);
    trainStep(device, batch, c);
    EXPECT_GT(maxDifference(stateOf(device), stateOf(host)), 1e-4);
}

TEST(CudaGraphStep, ACpuSetupHasNoGraphAndSaysNothingOfOne) {
    auto c = wbtest::tinyLanguageModel("unused");
    const auto setup = makeTrainingSetup(c, 40, 40, torch::kCPU);
    EXPECT_EQ(setup.graph, nullptr);
    EXPECT_EQ(describeCudaGraph(setup, c), "");
    EXPECT_EQ(CudaGraphStep::unavailableReason(torch::kCPU), "not a CUDA device");
}

#define SKIP_WITHOUT_GPU \
    if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device; this machine has none"

TEST(CudaGraph, StepsTrainAsOpByOpStepsOverTwoShapes) {
    SKIP_WITHOUT_GPU;
    const torch::Device gpu(torch::kCUDA, 0);
    for (const auto precision : {Precision::Fp32, Precision::Bf16}) {
        auto c = wbtest::tinyLanguageModel("unused");
        c.model.layers = 2;
        c.train.weightDecay = 0.01;
        c.device.precision = precision;
        auto eager = c;
        eager.device.cudaGraph = CudaGraphMode::Off;
        auto graphed = makeTrainingSetup(c, 40, 40, gpu);
        auto opByOp = makeTrainingSetup(eager, 40, 40, gpu);
        const auto before = makeTrainingSetup(eager, 40, 40, gpu);
        ASSERT_NE(graphed.graph, nullptr);
        ASSERT_EQ(opByOp.graph, nullptr);
        torch::manual_seed(7);
        for (int step = 0; step < 14; ++step) {
            // Full batches with a short one every fourth step: two shapes, each captured on its second turn.
            const auto batch = lmBatch(40, step % 4 == 3 ? 5 : 8, c.data.seqLen, gpu);
            const double lr = 0.01 / (1.0 + 0.1 * step);
            graphed.optimizer->setLearningRate(lr);
            opByOp.optimizer->setLearningRate(lr);
            const double a = trainStep(graphed, batch, c).item<double>();
            const double b = trainStep(opByOp, batch, eager).item<double>();
            EXPECT_NEAR(a, b, 1e-4 * std::max(1.0, std::abs(b))) << "step " << step;
        }
        // The graph reads the optimizer's scalars on the device, op by op on the host: float rounding apart,
        // the same updates (a step with the previous step's learning rate would be off by about 5e-4).
        const double tolerance = precision == Precision::Fp32 ? 1e-4 : 1e-3;
        EXPECT_GT(movement(opByOp, before), 1e-3);
        EXPECT_LT(maxDifference(stateOf(graphed), stateOf(opByOp)), tolerance) << toString(precision);
        EXPECT_EQ(graphed.optimizer->steps(), opByOp.optimizer->steps());
        EXPECT_EQ(graphed.graph->capturedShapes(), 2) << graphed.graph->describe();
        EXPECT_EQ(describeCudaGraph(graphed, c).rfind("graph (2 shapes captured, ", 0), 0u)
            << describeCudaGraph(graphed, c);
        EXPECT_EQ(describeCudaGraph(opByOp, eager), "op by op: cuda_graph off");
    }
}
