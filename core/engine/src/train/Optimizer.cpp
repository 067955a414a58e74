// Optimizers with saveable state (see Optimizer.h).
#include "train/Optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "EnvSwitch.h"
#include "TorchCompat.h"
#include "train/AdamKernel.h"

namespace wb {

namespace {
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;
constexpr double kRmsAlpha = 0.99, kRmsEps = 1e-8;

// LSTM_WORKBENCH_FUSED_ADAM=off: the tensor-by-tensor update and clipping on a GPU too.
bool fusedUpdatesAllowed() {
    static const bool allowed = !switchedOff("LSTM_WORKBENCH_FUSED_ADAM");
    return allowed;
}
}  // namespace

Optimizer::Optimizer(OptimizerKind kind, NamedTensors parameters, double learningRate)
    : m_kind(kind), m_lr(learningRate) {
    torch::NoGradGuard noGrad;
    for (auto& [name, p] : parameters) {
        Slot s{name, p, {}, {}};
        if (kind == OptimizerKind::Adam) s.first = torch::zeros_like(p);
        if (kind != OptimizerKind::Sgd) s.second = torch::zeros_like(p);
        m_slots.push_back(std::move(s));
    }
    const bool onGpu = !m_slots.empty() && std::all_of(m_slots.begin(), m_slots.end(), [&](const Slot& s) {
        return s.param.device() == m_slots.front().param.device() && s.param.device().is_cuda();
    });
    useFusedAdam(onGpu && fusedUpdatesAllowed());
    m_foreachClip = onGpu && fusedUpdatesAllowed() && fusedAdamAvailable();
}

bool Optimizer::fusedAdamAvailable() {
#ifdef WORKBENCH_FUSED_OPTIMIZER
    return true;
#else
    return false;
#endif
}

void Optimizer::useFusedAdam(bool on) {
    m_fusedAdam = on && m_kind == OptimizerKind::Adam && fusedAdamAvailable() && !m_slots.empty();
    if (!m_fusedAdam) return;
    const auto options = torch::TensorOptions(torch::kFloat32).device(m_slots.front().param.device());
    m_fusedStep = torch::zeros({}, options);
    m_fusedLr = torch::zeros({}, options);
}

void Optimizer::zeroGrad() {
    for (auto& s : m_slots) {
        auto& g = s.param.mutable_grad();
        if (g.defined()) g.zero_();
    }
}

void Optimizer::clipGradNorm(double maxNorm) {
    if (maxNorm <= 0) return;
    torch::NoGradGuard noGrad;
#ifdef WORKBENCH_FUSED_OPTIMIZER
    if (m_foreachClip) {  // a few kernels for all, not four per parameter
        std::vector<torch::Tensor> grads;
        for (auto& s : m_slots)
            if (s.param.grad().defined() && s.param.grad().scalar_type() == torch::kFloat32)
                grads.push_back(s.param.mutable_grad());
        if (grads.size() == m_slots.size()) {
            const auto total = torch::stack(at::_foreach_norm(grads, 2)).norm(2);
            at::_foreach_mul_(grads, (maxNorm / (total + 1e-6)).clamp_max(1.0));
            return;
        }
    }
#endif
    std::vector<torch::Tensor> norms;
    for (auto& s : m_slots)
        if (s.param.grad().defined()) norms.push_back(s.param.grad().norm(2).to(torch::kFloat32));
    if (norms.empty()) return;
    auto total = torch::stack(norms).norm(2);
    // Multiplying by min(1, max/norm) keeps everything on the device: no .item(), no stall.
    auto coef = (maxNorm / (total + 1e-6)).clamp_max(1.0);
    for (auto& s : m_slots)
        if (s.param.grad().defined()) s.param.mutable_grad().mul_(coef.to(s.param.grad().dtype()));
}

void Optimizer::step() {
    torch::NoGradGuard noGrad;
    ++m_steps;
    if (m_fusedAdam && fusedAdamStep()) return;
    if (usesDeviceScalars())
        deviceScalarStep();
    else
        hostScalarStep();
}

// A CPU float parameter whose gradient and moments are contiguous like it: Adam's one-pass kernel
// (train/AdamKernel.h) applies. Anything else (a GPU, another dtype, a strided view) takes the tensor ops.
bool Optimizer::onePassAdamApplies(const Slot& s, const torch::Tensor& g) {
    // LSTM_WORKBENCH_ONE_PASS_ADAM=off keeps the tensor operations, for a side-by-side measurement.
    static const bool enabled = !switchedOff("LSTM_WORKBENCH_ONE_PASS_ADAM");
    if (!enabled) return false;
    const auto fits = [&](const torch::Tensor& t) {
        return t.device().is_cpu() && t.scalar_type() == torch::kFloat32 && t.is_contiguous() &&
               t.numel() == s.param.numel();
    };
    return fits(s.param) && fits(g) && fits(s.first) && fits(s.second);
}

bool Optimizer::onePassAdam(Slot& s, const torch::Tensor& g, double bias1, double bias2) {
    if (!onePassAdamApplies(s, g)) return false;
    const bool decays = m_weightDecay > 0 && s.param.dim() >= 2;
    adamkernel::Scalars scalars;
    scalars.beta1 = static_cast<float>(kBeta1);
    scalars.beta2 = static_cast<float>(kBeta2);
    scalars.oneMinusBeta1 = static_cast<float>(1 - kBeta1);
    scalars.oneMinusBeta2 = static_cast<float>(1 - kBeta2);
    scalars.stepSize = static_cast<float>(m_lr / bias1);
    scalars.bias2Sqrt = static_cast<float>(std::sqrt(bias2));
    scalars.eps = static_cast<float>(kAdamEps);
    scalars.decay = decays ? static_cast<float>(1 - m_lr * m_weightDecay) : 1.0f;
    adamkernel::step(s.param.data_ptr<float>(), g.data_ptr<float>(), s.first.data_ptr<float>(),
                     s.second.data_ptr<float>(), s.param.numel(), scalars);
    return true;
}

// Adam over every parameter in one fused kernel per group: the matrices, which decay, and the rest. The
// step count and learning rate come from the device scalars when a CUDA graph replays the step, from the
// host otherwise. False (nothing done) when a parameter's tensors do not fit the kernel: the caller takes the
// tensor-by-tensor update.
bool Optimizer::fusedAdamStep() {
#ifdef WORKBENCH_FUSED_OPTIMIZER
    struct Group {
        std::vector<torch::Tensor> params, grads, firsts, seconds, steps;
    } decaying, plain;
    for (auto& s : m_slots) {
        const auto& g = s.param.grad();
        if (!g.defined()) continue;
        for (const torch::Tensor* t : std::initializer_list<const torch::Tensor*>{&g, &s.first, &s.second})
            if (t->scalar_type() != s.param.scalar_type() || !t->is_contiguous() ||
                !s.param.is_contiguous() || t->sizes() != s.param.sizes())
                return false;
        auto& group = m_weightDecay > 0 && s.param.dim() >= 2 ? decaying : plain;
        group.params.push_back(s.param);
        group.grads.push_back(g);
        group.firsts.push_back(s.first);
        group.seconds.push_back(s.second);
        group.steps.push_back(m_fusedStep);  // read, never written, by the kernel
    }
    if (usesDeviceScalars()) {
        m_deviceStep.add_(1);
        m_fusedStep.copy_(m_deviceStep);
        m_fusedLr.copy_(m_deviceLr);
    } else {
        m_fusedStep.fill_(static_cast<double>(m_steps));
        m_fusedLr.fill_(m_lr);
    }
    for (auto* group : {&decaying, &plain}) {
        if (group->params.empty()) continue;
        at::_fused_adamw_(group->params, group->grads, group->firsts, group->seconds, {}, group->steps,
                          m_fusedLr, kBeta1, kBeta2, group == &decaying ? m_weightDecay : 0.0, kAdamEps,
                          false, false);
    }
    return true;
#else
    return false;
#endif
}

void Optimizer::hostScalarStep() {
    for (auto& s : m_slots) {
        if (!s.param.grad().defined()) continue;
        const auto& g = s.param.grad();
        const bool decays = m_weightDecay > 0 && s.param.dim() >= 2;
        // Adam's one pass applies the decay itself.
        if (decays && !(m_kind == OptimizerKind::Adam && onePassAdamApplies(s, g)))
            s.param.mul_(1 - m_lr * m_weightDecay);
        switch (m_kind) {
            case OptimizerKind::Sgd:
                s.param.add_(g, -m_lr);
                break;
            case OptimizerKind::RmsProp:
                s.second.mul_(kRmsAlpha).addcmul_(g, g, 1 - kRmsAlpha);
                s.param.addcdiv_(g, s.second.sqrt().add_(kRmsEps), -m_lr);
                break;
            case OptimizerKind::Adam: {
                const double t = static_cast<double>(m_steps);
                const double bias1 = 1 - std::pow(kBeta1, t), bias2 = 1 - std::pow(kBeta2, t);
                if (onePassAdam(s, g, bias1, bias2)) break;
                s.first.mul_(kBeta1).add_(g, 1 - kBeta1);
                s.second.mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
                auto denom = (s.second.sqrt() / std::sqrt(bias2)).add_(kAdamEps);
                s.param.addcdiv_(s.first, denom, -m_lr / bias1);
                break;
            }
        }
    }
}

// The same updates as hostScalarStep, with the step count and learning rate read on the device (0-dim
// float64 tensors: an operand of that kind takes the parameters' dtype, and the bias corrections keep
// double precision until then).
void Optimizer::deviceScalarStep() {
    m_deviceStep.add_(1);
    const auto bias1 = 1 - torch::pow(kBeta1, m_deviceStep);
    const auto bias2Sqrt = (1 - torch::pow(kBeta2, m_deviceStep)).sqrt();
    const auto decay = 1 - m_deviceLr * m_weightDecay;
    const auto adamStepSize = m_deviceLr / bias1;
    for (auto& s : m_slots) {
        if (!s.param.grad().defined()) continue;
        const auto& g = s.param.grad();
        if (m_weightDecay > 0 && s.param.dim() >= 2) s.param.mul_(decay);
        switch (m_kind) {
            case OptimizerKind::Sgd:
                s.param.sub_(g * m_deviceLr);
                break;
            case OptimizerKind::RmsProp:
                s.second.mul_(kRmsAlpha).addcmul_(g, g, 1 - kRmsAlpha);
                s.param.sub_((g / s.second.sqrt().add_(kRmsEps)).mul_(m_deviceLr));
                break;
            case OptimizerKind::Adam:
                s.first.mul_(kBeta1).add_(g, 1 - kBeta1);
                s.second.mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
                s.param.sub_((s.first / (s.second.sqrt() / bias2Sqrt).add_(kAdamEps)).mul_(adamStepSize));
                break;
        }
    }
}

void Optimizer::useDeviceScalars(const torch::Device& device) {
    const auto options = torch::TensorOptions(torch::kFloat64).device(device);
    m_deviceStep = torch::zeros({}, options);
    m_deviceLr = torch::zeros({}, options);
    loadDeviceScalars();
}

void Optimizer::loadDeviceScalars() {
    torch::NoGradGuard noGrad;
    m_deviceStep.fill_(static_cast<double>(m_steps));
    m_deviceLr.fill_(m_lr);
}

NamedTensors Optimizer::state() const {
    NamedTensors out;
    for (const auto& s : m_slots) {
        if (s.first.defined()) out.emplace_back(s.name + ".exp_avg", s.first);
        if (s.second.defined())
            out.emplace_back(s.name + (m_kind == OptimizerKind::Adam ? ".exp_avg_sq" : ".square_avg"),
                             s.second);
    }
    return out;
}

void Optimizer::loadState(const safetensors::File& file, std::int64_t steps, const std::string& sourceName) {
    loadInto(file, state(), sourceName);
    m_steps = steps;
}

}  // namespace wb
