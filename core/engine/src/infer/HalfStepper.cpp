#include "infer/HalfStepper.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "device/Autocast.h"
#include "model/Bf16Kernels.h"
#include "model/LstmKernels.h"

namespace wb {

namespace {
std::vector<std::uint16_t> bf16Of(const float* x, std::int64_t n) {
    std::vector<std::uint16_t> out(static_cast<std::size_t>(n));
    bf16kernels::toBf16(x, out.data(), n);
    return out;
}
std::vector<float> floatCopy(const torch::Tensor& t) {
    const auto f = t.detach().to(torch::kFloat32).contiguous();
    return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
}
}  // namespace

std::vector<std::uint16_t> HalfStepper::copy(const torch::Tensor& t) const {
    const auto f = t.detach().to(torch::kFloat32).contiguous();
    if (m_bf16) return bf16Of(f.data_ptr<float>(), f.numel());
    std::vector<std::uint16_t> out(static_cast<std::size_t>(f.numel()));
    lstmkernels::toHalf(f.data_ptr<float>(), out.data(), f.numel());
    return out;
}

std::unique_ptr<HalfStepper> HalfStepper::create(SequenceModelImpl& model, Weights weights) {
    if (model.task() != Task::LanguageModel) return nullptr;
    const bool bf16 = weights == Weights::Bf16 || (weights == Weights::Auto && cpuBf16KernelsUsable());
    if (bf16 ? !bf16kernels::available() : !lstmkernels::halfKernelsAvailable()) return nullptr;
    std::map<std::string, torch::Tensor> p;
    for (const auto& item : model.named_parameters()) p[item.key()] = item.value();
    if (!p.count("embedding.weight") || !p.count("head.weight") || !p.at("head.weight").device().is_cpu())
        return nullptr;
    if (p.count("lstm.weight_ih_l0_reverse")) return nullptr;  // bidirectional
    auto stepper = std::unique_ptr<HalfStepper>(new HalfStepper());
    stepper->m_bf16 = bf16;
    torch::NoGradGuard noGrad;
    stepper->m_embedding = p.at("embedding.weight").detach().to(torch::kFloat32).contiguous();
    stepper->m_head = stepper->copy(p.at("head.weight"));
    stepper->m_headBias = floatCopy(p.at("head.bias"));
    stepper->m_vocab = p.at("head.weight").size(0);
    stepper->m_hidden = p.at("head.weight").size(1);
    for (int l = 0;; ++l) {
        const auto suffix = "_l" + std::to_string(l);
        if (!p.count("lstm.weight_ih" + suffix)) break;
        Layer layer;
        const auto& wIh = p.at("lstm.weight_ih" + suffix);
        layer.in = wIh.size(1);
        layer.wIh = stepper->copy(wIh);
        layer.wHh = stepper->copy(p.at("lstm.weight_hh" + suffix));
        layer.bias = floatCopy(p.at("lstm.bias_ih" + suffix) + p.at("lstm.bias_hh" + suffix));
        if (wIh.size(0) != 4 * stepper->m_hidden) return nullptr;
        stepper->m_layers.push_back(std::move(layer));
    }
    if (stepper->m_layers.empty()) return nullptr;
    const auto vocab = stepper->m_embedding.size(0), gates = 4 * stepper->m_hidden;
    if (vocab * gates * static_cast<std::int64_t>(sizeof(float)) <= (64LL << 20)) {
        stepper->m_inputGates =
            torch::addmm(p.at("lstm.bias_ih_l0") + p.at("lstm.bias_hh_l0"), stepper->m_embedding,
                         p.at("lstm.weight_ih_l0").detach().to(torch::kFloat32).t())
                .contiguous();
    }
    return stepper;
}

HalfStepper::State HalfStepper::initialState() const {
    const auto n = static_cast<std::size_t>(m_hidden) * m_layers.size();
    return State{std::vector<float>(n, 0.0f), std::vector<float>(n, 0.0f)};
}

void HalfStepper::gemvRows(const std::vector<std::uint16_t>& w, const float* x, const std::uint16_t* x16,
                           float* y, std::int64_t r0, std::int64_t r1, std::int64_t k) const {
    if (m_bf16)
        bf16kernels::gemvRows(w.data(), x16, y, r0, r1, k);
    else
        lstmkernels::gemvHalfRows(w.data(), x, y, r0, r1, k);
}

void HalfStepper::gemv(const std::vector<std::uint16_t>& w, const float* x, float* y, std::int64_t rows,
                       std::int64_t k) const {
    const auto x16 = m_bf16 ? bf16Of(x, k) : std::vector<std::uint16_t>();
    // Rows split across LibTorch's threads; a chunk below ~64 KB of weights is not worth a thread.
    const std::int64_t grain = std::max<std::int64_t>(16, 32768 / std::max<std::int64_t>(k, 1));
    at::parallel_for(0, rows, grain,
                     [&](std::int64_t r0, std::int64_t r1) { gemvRows(w, x, x16.data(), y, r0, r1, k); });
}

void HalfStepper::feed(std::int64_t token, State& state) const {
    TORCH_CHECK(token >= 0 && token < m_embedding.size(0), "token out of range");
    const auto h = m_hidden;
    std::vector<float> gates(static_cast<std::size_t>(4 * h)), cNext(static_cast<std::size_t>(h)),
        hNext(static_cast<std::size_t>(h)), tanhC(static_cast<std::size_t>(h));
    const float* x = m_embedding.data_ptr<float>() + token * m_embedding.size(1);
    for (std::size_t l = 0; l < m_layers.size(); ++l) {
        const auto& layer = m_layers[l];
        float* hl = state.h.data() + l * static_cast<std::size_t>(h);
        float* cl = state.c.data() + l * static_cast<std::size_t>(h);
        const bool tabled = l == 0 && m_inputGates.defined();
        if (tabled) {
            const float* row = m_inputGates.data_ptr<float>() + token * 4 * h;
            std::copy(row, row + 4 * h, gates.begin());
        } else {
            std::copy(layer.bias.begin(), layer.bias.end(), gates.begin());
        }
        // Both products in one parallel region: each thread owns a block of gate rows.
        const auto x16 = m_bf16 && !tabled ? bf16Of(x, layer.in) : std::vector<std::uint16_t>();
        const auto h16 = m_bf16 ? bf16Of(hl, h) : std::vector<std::uint16_t>();
        const std::int64_t grain = std::max<std::int64_t>(16, 32768 / (layer.in + h));
        at::parallel_for(0, 4 * h, grain, [&](std::int64_t r0, std::int64_t r1) {
            if (!tabled) gemvRows(layer.wIh, x, x16.data(), gates.data(), r0, r1, layer.in);
            gemvRows(layer.wHh, hl, h16.data(), gates.data(), r0, r1, h);
        });
        lstmkernels::forwardRows(gates.data(), cl, cNext.data(), hNext.data(), tanhC.data(), 0, 1, h);
        std::copy(cNext.begin(), cNext.end(), cl);
        std::copy(hNext.begin(), hNext.end(), hl);
        x = hl;  // the next layer's input (eval mode: no dropout between layers)
    }
}

torch::Tensor HalfStepper::logits(const State& state) const {
    auto out = torch::empty({m_vocab}, torch::kFloat32);
    float* y = out.data_ptr<float>();
    std::copy(m_headBias.begin(), m_headBias.end(), y);
    gemv(m_head, state.h.data() + (m_layers.size() - 1) * static_cast<std::size_t>(m_hidden), y, m_vocab,
         m_hidden);
    return out;
}

}  // namespace wb
