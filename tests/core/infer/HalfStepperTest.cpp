// The 16-bit generation path against the model it copies: the same tokens fed through HalfStepper and
// through SequenceModel::forwardStep (fp32, LibTorch) give the same logits to within the rounding of the
// weights (fp16: 2^-11; bf16, weights and inputs: 2^-8), for both LSTM backends, one and several layers.
#include <gtest/gtest.h>

#include "device/Autocast.h"
#include "infer/HalfStepper.h"
#include "model/Bf16Kernels.h"
#include "model/LstmKernels.h"
#include "model/SequenceModel.h"

using namespace wb;

namespace {
void expectSameLogits(LstmBackend backend, std::int64_t layers, HalfStepper::Weights weights,
                      double tolerance) {
    torch::manual_seed(3);
    ModelConfig mc;
    mc.embedding = 24;
    mc.hidden = 40;  // rows of 40: one whole block of 32 and a tail for the bf16 kernel
    mc.layers = layers;
    mc.dropout = 0.3;  // eval mode: must not apply
    mc.backend = backend;
    SequenceModel model(Task::LanguageModel, mc, 50, 50);
    model->eval();
    torch::NoGradGuard noGrad;
    const auto stepper = HalfStepper::create(*model, weights);
    ASSERT_NE(stepper, nullptr);
    EXPECT_EQ(stepper->bf16(), weights == HalfStepper::Weights::Bf16);
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
        EXPECT_LT(diff, tolerance * std::max(scale, 1.0))
            << "token " << token << ", " << layers << " layer(s)";
        if (weights == HalfStepper::Weights::Bf16) EXPECT_GT(diff, 1e-5);  // bf16 really ran
    }
}
}  // namespace

TEST(HalfStepper, MatchesTheFp32ModelWithinHalfPrecision) {
    if (!lstmkernels::halfKernelsAvailable()) GTEST_SKIP() << "this CPU has no F16C/AVX2";
    for (auto backend : {LstmBackend::Fused, LstmBackend::Torch})
        for (std::int64_t layers : {1, 3})
            expectSameLogits(backend, layers, HalfStepper::Weights::Fp16, 2e-3);
}

TEST(HalfStepper, MatchesTheFp32ModelWithinBf16Precision) {
    if (!bf16kernels::available()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
    // 8 significant bits in weights and inputs: measured differences up to 7e-4 here (fp16: 2e-3 allowed).
    for (auto backend : {LstmBackend::Fused, LstmBackend::Torch})
        for (std::int64_t layers : {1, 3})
            expectSameLogits(backend, layers, HalfStepper::Weights::Bf16, 5e-3);
}

TEST(HalfStepper, ChoosesBf16WhereTheKernelsRunAndFp16WhenForcedOff) {
    ModelConfig mc;
    mc.embedding = 8;
    mc.hidden = 8;
    mc.layers = 1;
    SequenceModel model(Task::LanguageModel, mc, 20, 20);
    const auto automatic = HalfStepper::create(*model);
    ASSERT_NE(automatic, nullptr);
    EXPECT_EQ(automatic->bf16(), bf16kernels::available());
    forceCpuBf16Fallback(true);
    const auto fallback = HalfStepper::create(*model);
    forceCpuBf16Fallback(false);
    ASSERT_NE(fallback, nullptr);
    EXPECT_FALSE(fallback->bf16());
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
