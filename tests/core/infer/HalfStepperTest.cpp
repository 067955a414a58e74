// The fp16 generation path against the model it copies: the same tokens fed through HalfStepper and through
// SequenceModel::forwardStep (fp32, LibTorch) give the same logits to within fp16's rounding of the weights,
// for both LSTM backends, one and several layers.
#include <gtest/gtest.h>

#include "infer/HalfStepper.h"
#include "model/LstmKernels.h"
#include "model/SequenceModel.h"

using namespace wb;

namespace {
void expectSameLogits(LstmBackend backend, std::int64_t layers) {
    torch::manual_seed(3);
    ModelConfig mc;
    mc.embedding = 24;
    mc.hidden = 40;
    mc.layers = layers;
    mc.dropout = 0.3;  // eval mode: must not apply
    mc.backend = backend;
    SequenceModel model(Task::LanguageModel, mc, 50, 50);
    model->eval();
    torch::NoGradGuard noGrad;
    const auto stepper = HalfStepper::create(*model);
    ASSERT_NE(stepper, nullptr);
    auto half = stepper->initialState();
    std::optional<LstmState> state;
    for (std::int64_t token : {1, 7, 7, 49, 0, 23, 12, 3, 3, 3, 40, 2}) {
        auto [logits, next] = model->forwardStep(torch::full({1, 1}, token, torch::kInt64), state);
        state = next;
        stepper->feed(token, half);
        const auto expected = logits.view({-1});
        const auto actual = stepper->logits(half);
        const double scale = expected.abs().max().item<double>();
        const double diff = (actual - expected).abs().max().item<double>();
        EXPECT_LT(diff, 2e-3 * std::max(scale, 1.0)) << "token " << token << ", " << layers << " layer(s)";
    }
}
}  // namespace

TEST(HalfStepper, MatchesTheFp32ModelWithinHalfPrecision) {
    if (!lstmkernels::halfKernelsAvailable()) GTEST_SKIP() << "this CPU has no F16C/AVX2";
    for (auto backend : {LstmBackend::Fused, LstmBackend::Torch})
        for (std::int64_t layers : {1, 3}) expectSameLogits(backend, layers);
}

TEST(HalfStepper, RefusesModelsItCannotRun) {
    ModelConfig mc;
    mc.embedding = 8;
    mc.hidden = 8;
    mc.layers = 1;
    mc.bidirectional = true;
    SequenceModel classifier(Task::Classifier, mc, 20, 2);
    EXPECT_EQ(HalfStepper::create(*classifier), nullptr);
}
