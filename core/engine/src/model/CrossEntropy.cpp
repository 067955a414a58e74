// The fused softmax cross-entropy (see CrossEntropy.h).
#include "model/CrossEntropy.h"

#include <ATen/Parallel.h>

#include <cstdlib>
#include <string>

#include "EnvSwitch.h"
#include "model/SoftmaxKernels.h"

namespace wb {

namespace {

class CrossEntropyFunction : public torch::autograd::Function<CrossEntropyFunction> {
public:
    static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                  const torch::Tensor& logits, const torch::Tensor& targets) {
        const auto x = logits.contiguous();
        const auto t = targets.contiguous();
        const auto n = x.size(0), classes = x.size(1);
        auto grad = torch::empty_like(x);
        auto rowLoss = torch::empty({n}, x.options().dtype(torch::kFloat64));
        auto argmax = torch::empty({n}, t.options());
        const float* xp = x.data_ptr<float>();
        const std::int64_t* tp = t.data_ptr<std::int64_t>();
        float* gp = grad.data_ptr<float>();
        double* lp = rowLoss.data_ptr<double>();
        std::int64_t* ap = argmax.data_ptr<std::int64_t>();
        const float scale = 1.0f / static_cast<float>(n);
        // A row of C classes is a few microseconds: chunks of rows worth ~64k logits.
        const std::int64_t grain = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, classes));
        at::parallel_for(0, n, grain, [&](std::int64_t r0, std::int64_t r1) {
            softmaxkernels::rows(xp, tp, classes, r0, r1, scale, gp, lp, ap);
        });
        // The mean in double, then fp32 like ATen's loss.
        auto loss = rowLoss.mean().to(torch::kFloat32);
        ctx->saved_data["grad"] = grad;
        ctx->mark_non_differentiable({argmax});
        return {loss, argmax};
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        auto grad = ctx->saved_data["grad"].toTensor();
        ctx->saved_data.erase("grad");  // one backward: the buffer becomes the logits' gradient
        const auto& upstream = grads[0];
        if (upstream.defined()) grad.mul_(upstream.to(grad.scalar_type()));
        return {grad, torch::Tensor()};
    }
};

}  // namespace

CrossEntropyResult crossEntropyWithArgmax(const torch::Tensor& logits, const torch::Tensor& targets) {
    // LSTM_WORKBENCH_FUSED_LOSS=off keeps ATen's, for a side-by-side measurement.
    static const bool enabled = !switchedOff("LSTM_WORKBENCH_FUSED_LOSS");
    const bool fused = enabled && logits.dim() == 2 && logits.device().is_cpu() &&
                       logits.scalar_type() == torch::kFloat32 && targets.dim() == 1 &&
                       targets.scalar_type() == torch::kInt64 && targets.size(0) == logits.size(0) &&
                       logits.size(1) > 0 && logits.size(0) > 0;
    if (!fused)
        return {torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), targets), logits.argmax(1)};
    // Targets out of range are ATen's error, not a read past the row.
    const auto [low, high] = torch::aminmax(targets);
    TORCH_CHECK(low.item<std::int64_t>() >= 0 && high.item<std::int64_t>() < logits.size(1),
                "Target out of bounds for cross-entropy over ", logits.size(1), " classes");
    auto out = CrossEntropyFunction::apply(logits, targets);
    return {out[0], out[1]};
}

}  // namespace wb
