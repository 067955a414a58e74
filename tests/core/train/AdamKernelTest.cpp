// Adam's one-pass kernel (train/AdamKernel.h) against the same update written as the tensor operations the
// optimizer used before it (and still uses off the CPU): several steps, with and without weight decay,
// lengths that leave a vector tail, and gradients that span many magnitudes. Float rounding may differ in the
// last bits (the kernel may fuse a multiply-add), so the bound is relative, a few ulps.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "train/AdamKernel.h"
#include "train/Optimizer.h"

namespace {

constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

// Optimizer::hostScalarStep's tensor operations for Adam (and AdamW's decay first).
void tensorStep(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v, double lr,
                double decay, std::int64_t t) {
    const double bias1 = 1 - std::pow(kBeta1, double(t)), bias2 = 1 - std::pow(kBeta2, double(t));
    if (decay > 0) p.mul_(1 - lr * decay);
    m.mul_(kBeta1).add_(g, 1 - kBeta1);
    v.mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
    auto denom = (v.sqrt() / std::sqrt(bias2)).add_(kEps);
    p.addcdiv_(m, denom, -lr / bias1);
}

double worstRelative(const torch::Tensor& a, const torch::Tensor& b) {
    return ((a - b).abs() / (b.abs() + 1e-12)).max().item<double>();
}

}  // namespace

TEST(AdamKernel, OnePassMatchesTheTensorOperations) {
    torch::manual_seed(7);
    for (std::int64_t n : {1, 15, 17, 1000, 4099})
        for (double decay : {0.0, 0.01}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " decay=" + std::to_string(decay));
            auto p = torch::randn({n}), m = torch::zeros({n}), v = torch::zeros({n});
            auto p2 = p.clone(), m2 = m.clone(), v2 = v.clone();
            // m's terms' magnitude: where m cancels to near zero, its error is relative to them, not to m.
            auto mScale = torch::zeros({n});
            const double lr = 2e-3;
            for (std::int64_t t = 1; t <= 5; ++t) {
                // Gradients from 1e-6 to 1e3: the moments' ratio and the square root across scales.
                const auto g =
                    torch::randn({n}) * torch::pow(10.0, torch::randint(-6, 4, {n}).to(torch::kFloat));
                tensorStep(p, g, m, v, lr, decay, t);
                mScale = mScale * kBeta1 + g.abs() * (1 - kBeta1);
                const double bias1 = 1 - std::pow(kBeta1, double(t)), bias2 = 1 - std::pow(kBeta2, double(t));
                wb::adamkernel::Scalars s;
                s.beta1 = float(kBeta1), s.beta2 = float(kBeta2);
                s.oneMinusBeta1 = float(1 - kBeta1), s.oneMinusBeta2 = float(1 - kBeta2);
                s.stepSize = float(lr / bias1), s.bias2Sqrt = float(std::sqrt(bias2)), s.eps = float(kEps);
                s.decay = decay > 0 ? float(1 - lr * decay) : 1.0f;
                wb::adamkernel::step(p2.data_ptr<float>(), g.data_ptr<float>(), m2.data_ptr<float>(),
                                     v2.data_ptr<float>(), n, s);
            }
            EXPECT_LT(((m2 - m).abs() / mScale).max().item<double>(), 1e-5);
            EXPECT_LT(worstRelative(v2, v), 1e-5);  // a sum of squares: no cancellation
            // Each step moves a weight by about lr: the updates' rounding is relative to that.
            EXPECT_LT(((p2 - p).abs() / (p.abs() + lr)).max().item<double>(), 1e-5);
        }
}

// The optimizer takes the one pass on the CPU and the tensor operations elsewhere: a CPU run's Adam (with
// weight decay on the matrix, not on the bias) follows the tensor operations step by step.
TEST(AdamKernel, TheOptimizerFollowsTheTensorOperations) {
    torch::manual_seed(3);
    auto weight = torch::randn({8, 5}).requires_grad_(), bias = torch::randn({8}).requires_grad_();
    wb::Optimizer opt(wb::OptimizerKind::Adam, {{"weight", weight}, {"bias", bias}}, 1e-2);
    opt.setWeightDecay(0.1);
    auto w2 = weight.detach().clone(), b2 = bias.detach().clone();
    auto mw = torch::zeros_like(w2), vw = torch::zeros_like(w2), mb = torch::zeros_like(b2),
         vb = torch::zeros_like(b2);
    for (std::int64_t t = 1; t <= 4; ++t) {
        const auto x = torch::randn({3, 5});
        opt.zeroGrad();
        (torch::matmul(x, weight.t()) + bias).pow(2).sum().backward();
        const auto gw = weight.grad().clone(), gb = bias.grad().clone();
        opt.step();
        tensorStep(w2, gw, mw, vw, 1e-2, 0.1, t);
        tensorStep(b2, gb, mb, vb, 1e-2, 0.0, t);  // biases do not decay
        EXPECT_LT(worstRelative(weight.detach(), w2), 1e-5) << "step " << t;
        EXPECT_LT(worstRelative(bias.detach(), b2), 1e-5) << "step " << t;
    }
}

// The fused kernel (LibTorch's _fused_adamw_, the GPU's default; here asked for on the CPU) follows the same
// tensor operations, with the host's scalars and with the device scalars a CUDA graph replays with, through a
// learning rate that changes between steps.
TEST(AdamKernel, TheFusedKernelFollowsTheTensorOperations) {
    if (!wb::Optimizer::fusedAdamAvailable())
        GTEST_SKIP() << "this LibTorch has no fused Adam (2.6 and later)";
    for (const bool deviceScalars : {false, true}) {
        torch::manual_seed(4);
        auto weight = torch::randn({8, 5}).requires_grad_(), bias = torch::randn({8}).requires_grad_();
        wb::Optimizer opt(wb::OptimizerKind::Adam, {{"weight", weight}, {"bias", bias}}, 1e-2);
        opt.setWeightDecay(0.1);
        opt.useFusedAdam(true);
        ASSERT_TRUE(opt.usesFusedAdam());
        if (deviceScalars) opt.useDeviceScalars(torch::kCPU);
        auto w2 = weight.detach().clone(), b2 = bias.detach().clone();
        auto mw = torch::zeros_like(w2), vw = torch::zeros_like(w2), mb = torch::zeros_like(b2),
             vb = torch::zeros_like(b2);
        for (std::int64_t t = 1; t <= 5; ++t) {
            const double lr = 1e-2 / static_cast<double>(t);
            opt.setLearningRate(lr);
            if (deviceScalars) opt.loadDeviceScalars();
            const auto x = torch::randn({3, 5});
            opt.zeroGrad();
            (torch::matmul(x, weight.t()) + bias).pow(2).sum().backward();
            const auto gw = weight.grad().clone(), gb = bias.grad().clone();
            opt.step();
            tensorStep(w2, gw, mw, vw, lr, 0.1, t);
            tensorStep(b2, gb, mb, vb, lr, 0.0, t);
            EXPECT_LT(worstRelative(weight.detach(), w2), 1e-5)
                << "step " << t << ", device scalars " << deviceScalars;
            EXPECT_LT(worstRelative(bias.detach(), b2), 1e-5)
                << "step " << t << ", device scalars " << deviceScalars;
        }
        EXPECT_EQ(opt.steps(), 5);
    }
}

// The GPU's default: a CPU optimizer never takes it unless asked, and SGD never.
TEST(AdamKernel, TheFusedKernelIsTheGpusDefaultOnly) {
    auto weight = torch::randn({4, 3}).requires_grad_();
    wb::Optimizer adam(wb::OptimizerKind::Adam, {{"weight", weight}}, 1e-2);
    EXPECT_FALSE(adam.usesFusedAdam());
    wb::Optimizer sgd(wb::OptimizerKind::Sgd, {{"weight", weight}}, 1e-2);
    sgd.useFusedAdam(true);
    EXPECT_FALSE(sgd.usesFusedAdam());
}
