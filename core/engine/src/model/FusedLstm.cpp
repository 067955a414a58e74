// The fused CPU LSTM (see FusedLstm.h). Layout inside: time-major, contiguous. Per layer and direction the
// forward keeps the activated gates [T, B, 4H], the cells [T+1, B, H] (c0 first) and tanh(c) [T, B, H];
// the backward walks time in reverse with one gate-gradient kernel per step, then computes dW_ih and dW_hh
// together ([4H, in + H], one product over all steps) and the biases from the stacked gate gradients:
// where a per-step autograd graph loses most of its time on small shapes.
//
// Two ways to run the steps:
// - packed (H <= 256, 512 with AVX-512; more than one sequence): each thread takes a share of the batch
//   for all steps and runs, per step, one kernel for the gates (bias + x_t W_ih^T + h_{t-1} W_hh^T, both
//   weights packed once per call) and the gate activations; backward: the gate gradients, dG_t W_hh and dx_t
//   = dG_t W_ih. No BLAS call and no barrier per step. In a CPU bf16 scope (device/Autocast.h) every product
//   of the layer runs on the bf16 kernels (model/Bf16Kernels.h), for any H: the weights packed as bf16 panels
//   are half the bytes, and the weight gradients are one bf16 product.
// - BLAS (larger H, where BLAS's blocking wins, or one sequence): the input projections of all steps in
//   one product, then per step one BLAS product and a parallel gate kernel; dX in one product.
#include "model/FusedLstm.h"

#include "device/Autocast.h"
#include "model/Bf16Kernels.h"
#include "model/Bf16Ops.h"
#include "model/LstmKernels.h"
#include "model/ShardedDropout.h"

#include <ATen/Parallel.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace wb {

namespace {

using torch::Tensor;

// Rows per parallel chunk: below ~16k gate elements a step's kernel takes a few microseconds, less than
// waking the second thread costs.
std::int64_t grainRows(std::int64_t h) {
    return std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, h));
}

// The packed recurrence (lstmkernels::gemmPackedRows) up to a hidden size where the simple kernel keeps up
// with BLAS; one sequence (generation) keeps its matrix-vector products. Measured side by side against the
// BLAS way (bench, this 2-core machine): with the AVX2 kernel, while W_hh^T fits a core's L2 (H <= 256:
// imdb 0.79x the time at 1 and 2 threads, charrnn 0.82x and 0.85x); with the AVX-512 kernel also at poems'
// H = 512 (0.89x at 1 thread, 0.84x at 2: no BLAS call and no barrier per step). Larger H is not measured.
std::int64_t packedMaxHidden() {
    static const std::int64_t limit = lstmkernels::packedIsa() == lstmkernels::PackedIsa::Avx512 ? 512 : 256;
    return limit;
}
constexpr std::int64_t kRecurrenceGrainRows = 4;

bool packedRecurrence(std::int64_t batch, std::int64_t h, bool bf16) {
    return batch > 1 && (bf16 || h <= packedMaxHidden());
}

// A weight as the right-hand side B [k, n] (a view: W^T for the forward, W for the backward) of the packed
// per-step products, packed once per layer call: fp32 panels, or bf16 ones in a CPU bf16 scope.
struct PackedWeight {
    PackedWeight(const Tensor& b, bool bf16) : k(b.size(0)), n(b.size(1)), bf16(bf16) {
        if (bf16) {
            halves = packBf16(b);
            return;
        }
        floats.resize(static_cast<std::size_t>(lstmkernels::packedPanelsSize(k, n)));
        lstmkernels::packPanels(b.data_ptr<float>(), b.stride(0), b.stride(1), k, n, floats.data());
    }
    std::int64_t k, n;
    bool bf16;
    std::vector<float> floats;
    std::vector<std::uint16_t> halves;
};

// Rows [r0, r1) of C (leading dimension n of the weights) = bias + sum over the terms of A_i B_i, where A_i
// is row-major with leading dimension lda[i] and B_i is weights[i] (all fp32 or all bf16).
void packedProduct(const PackedWeight* const* weights, const float* const* a, const std::int64_t* lda,
                   int count, const float* bias, float* c, std::int64_t ldc, std::int64_t r0,
                   std::int64_t r1) {
    const std::int64_t n = weights[0]->n;
    if (weights[0]->bf16) {
        bf16kernels::Operand ops[2];
        for (int i = 0; i < count; ++i) ops[i] = {a[i], lda[i], weights[i]->halves.data(), weights[i]->k};
        bf16kernels::gemmPackedRows(ops, count, bias, c, ldc, r0, r1, n, /*accumulate=*/false);
    } else {
        lstmkernels::PackedOperand ops[2];
        for (int i = 0; i < count; ++i) ops[i] = {a[i], lda[i], weights[i]->floats.data(), weights[i]->k};
        lstmkernels::gemmPackedRows(ops, count, bias, c, ldc, r0, r1, n, /*accumulate=*/false);
    }
}

// The fused LSTM computes in fp32 (its kernels read float data). Under CPU bf16 autocast, ATen's addmm and
// mm would return bf16 here, so autocast is off inside; the layer's inputs and outputs stay fp32 either way.
struct NoCpuAutocast {
    c10::impl::ExcludeDispatchKeyGuard guard{c10::DispatchKey::AutocastCPU};
};

struct LayerActivations {
    Tensor out;    // [T, B, H]
    Tensor cells;  // [T+1, B, H], c0 first
    Tensor gates;  // [T, B, 4H] activated
    Tensor tanhC;  // [T, B, H] (or [B, H] scratch when not kept)
    Tensor hN, cN;
};

LayerActivations layerForward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& wIh,
                              const Tensor& wHh, const Tensor& bIh, const Tensor& bHh, bool keep, bool bf16) {
    torch::NoGradGuard noGrad;
    const NoCpuAutocast fp32;
    const auto t = x.size(0), b = x.size(1), in = x.size(2), h = wHh.size(1);
    TORCH_CHECK(t > 0 && b > 0, "FusedLstm needs at least one step and one sequence");
    LayerActivations a;
    a.out = torch::empty({t, b, h}, x.options());
    a.cells = torch::empty({t + 1, b, h}, x.options());
    a.cells[0].copy_(c0);
    a.tanhC = torch::empty(keep ? std::vector<std::int64_t>{t, b, h} : std::vector<std::int64_t>{b, h},
                           x.options());
    const auto h0c = h0.contiguous();
    float* cellsPtr = a.cells.data_ptr<float>();
    float* outPtr = a.out.data_ptr<float>();
    float* tanhPtr = a.tanhC.data_ptr<float>();
    const std::int64_t stepGates = b * 4 * h, stepState = b * h;
    if (packedRecurrence(b, h, bf16)) {
        // Per step and row: gates = (b_ih + b_hh) + x_t W_ih^T + h_{t-1} W_hh^T, one kernel call with both
        // weights packed once; each thread runs every step of its own rows.
        a.gates = torch::empty({t, b, 4 * h}, x.options());
        float* gatesPtr = a.gates.data_ptr<float>();
        const auto xc = x.contiguous(), wIhC = wIh.contiguous(), wHhC = wHh.contiguous();
        const auto bias = (bIh + bHh).contiguous();
        const PackedWeight packedIh(wIhC.t(), bf16), packedHh(wHhC.t(), bf16);
        const PackedWeight* weights[2] = {&packedIh, &packedHh};
        const float* xPtr = xc.data_ptr<float>();
        const float* h0Ptr = h0c.data_ptr<float>();
        const float* biasPtr = bias.data_ptr<float>();
        at::parallel_for(0, b, kRecurrenceGrainRows, [&](std::int64_t b0, std::int64_t b1) {
            for (std::int64_t s = 0; s < t; ++s) {
                const float* as[2] = {xPtr + s * b * in, s == 0 ? h0Ptr : outPtr + (s - 1) * stepState};
                const std::int64_t lda[2] = {in, h};
                float* gp = gatesPtr + s * stepGates;
                packedProduct(weights, as, lda, 2, biasPtr, gp, 4 * h, b0, b1);
                lstmkernels::forwardRows(gp, cellsPtr + s * stepState, cellsPtr + (s + 1) * stepState,
                                         outPtr + s * stepState, tanhPtr + (keep ? s * stepState : 0), b0, b1,
                                         h);
            }
        });
    } else {
        // The input projections of every timestep, with both biases, in one product. A single row
        // (generation: one token) is a matrix-vector product: BLAS's gemm would repack the whole weight
        // matrix for it.
        const bool oneRow = t * b == 1;
        a.gates = oneRow ? torch::addmv(bIh + bHh, wIh, x.reshape({in})).view({t, b, 4 * h})
                         : torch::addmm(bIh + bHh, x.reshape({t * b, in}), wIh.t()).view({t, b, 4 * h});
        float* gatesPtr = a.gates.data_ptr<float>();
        const auto wHhT = wHh.t();
        for (std::int64_t s = 0; s < t; ++s) {
            auto g = a.gates[s];
            const auto& hPrev = s == 0 ? h0c : a.out[s - 1];
            if (b == 1) {
                g.view({4 * h}).addmv_(wHh, hPrev.reshape({h}));
            } else {
                g.addmm_(hPrev, wHhT);
            }
            float* gp = gatesPtr + s * stepGates;
            const float* cp = cellsPtr + s * stepState;
            float* cn = cellsPtr + (s + 1) * stepState;
            float* hn = outPtr + s * stepState;
            float* tc = tanhPtr + (keep ? s * stepState : 0);
            at::parallel_for(0, b, grainRows(h), [&](std::int64_t b0, std::int64_t b1) {
                lstmkernels::forwardRows(gp, cp, cn, hn, tc, b0, b1, h);
            });
        }
    }
    a.hN = a.out[t - 1].clone();
    a.cN = a.cells[t].clone();
    return a;
}

class LstmLayerFunction : public torch::autograd::Function<LstmLayerFunction> {
public:
    static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const Tensor& x,
                                                  const Tensor& h0, const Tensor& c0, const Tensor& wIh,
                                                  const Tensor& wHh, const Tensor& bIh, const Tensor& bHh) {
        const bool bf16 = cpuBf16Active();
        auto a = layerForward(x, h0, c0, wIh, wHh, bIh, bHh, /*keep=*/true, bf16);
        ctx->save_for_backward({x, h0, wIh, wHh, a.out, a.cells, a.gates, a.tanhC});
        // The backward runs where autograd's engine runs it, outside this thread's scope: it keeps the
        // forward's precision.
        ctx->saved_data["bf16"] = bf16;
        return {a.out, a.hN, a.cN};
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        torch::NoGradGuard noGrad;
        const NoCpuAutocast fp32;
        const auto saved = ctx->get_saved_variables();
        const Tensor &x = saved[0], &h0 = saved[1], &wIh = saved[2], &wHh = saved[3], &out = saved[4],
                     &cells = saved[5], &gates = saved[6], &tanhC = saved[7];
        const auto t = x.size(0), b = x.size(1), in = x.size(2), h = wHh.size(1);
        const bool bf16 = ctx->saved_data["bf16"].toBool();
        // Undefined when only (h_n, c_n) were used: zeros keep the kernel free of branches.
        const Tensor dOut = grads[0].defined() ? grads[0].contiguous() : torch::zeros({t, b, h}, x.options());
        Tensor dhRec = grads[1].defined() ? grads[1].contiguous().clone() : torch::zeros({b, h}, x.options());
        Tensor dc = grads[2].defined() ? grads[2].contiguous().clone() : torch::zeros({b, h}, x.options());
        Tensor dGates = torch::empty({t, b, 4 * h}, x.options());
        const float* actPtr = gates.data_ptr<float>();
        const float* cellsPtr = cells.data_ptr<float>();
        const float* tanhPtr = tanhC.data_ptr<float>();
        const float* dOutPtr = dOut.data_ptr<float>();
        float* dGatesPtr = dGates.data_ptr<float>();
        const std::int64_t stepGates = b * 4 * h, stepState = b * h;
        Tensor dx, db;
        if (packedRecurrence(b, h, bf16)) {
            // Per step and row, after the gate gradients: the recurrent gradient dG_t W_hh (for the step
            // before; for t = 0 the gradient of h0) and the input gradient dG_t W_ih, while dG_t is in cache.
            // Both weights packed once; each thread walks back through every step of its own rows.
            dx = torch::empty({t, b, in}, x.options());
            float* dxPtr = dx.data_ptr<float>();
            const PackedWeight packedHh(wHh.contiguous(), bf16), packedIh(wIh.contiguous(), bf16);
            const PackedWeight* toH[1] = {&packedHh};
            const PackedWeight* toX[1] = {&packedIh};
            float* rec = dhRec.data_ptr<float>();
            float* dcPtr = dc.data_ptr<float>();
            // The bias gradient (the gate gradients summed over steps and rows) is summed here too, while
            // each row of dG is in cache, instead of in a pass that reads all of dG back from memory: each
            // block of rows into a partial sum of its own, kept in the row of the partial sums where the
            // block starts (parallel_for's blocks are not multiples of the grain), and the rows added in
            // order, so that the result does not depend on which thread finished first.
            Tensor partial = torch::zeros({b, 4 * h}, x.options());
            float* partialPtr = partial.data_ptr<float>();
            at::parallel_for(0, b, kRecurrenceGrainRows, [&](std::int64_t b0, std::int64_t b1) {
                float* sum = partialPtr + b0 * 4 * h;
                for (std::int64_t s = t - 1; s >= 0; --s) {
                    float* dg = dGatesPtr + s * stepGates;
                    lstmkernels::backwardRows(actPtr + s * stepGates, cellsPtr + s * stepState,
                                              tanhPtr + s * stepState, dOutPtr + s * stepState, rec, dcPtr,
                                              dg, b0, b1, h);
                    lstmkernels::addRows(dg, b0, b1, 4 * h, sum);
                    const float* as[1] = {dg};
                    const std::int64_t lda[1] = {4 * h};
                    packedProduct(toH, as, lda, 1, nullptr, rec, h, b0, b1);
                    packedProduct(toX, as, lda, 1, nullptr, dxPtr + s * b * in, in, b0, b1);
                }
            });
            db = partial.sum(0);
        } else {
            for (std::int64_t s = t - 1; s >= 0; --s) {
                const float* rec = dhRec.data_ptr<float>();
                float* dcPtr = dc.data_ptr<float>();
                const float* act = actPtr + s * stepGates;
                const float* cp = cellsPtr + s * stepState;
                const float* tc = tanhPtr + s * stepState;
                const float* dout = dOutPtr + s * stepState;
                float* dg = dGatesPtr + s * stepGates;
                at::parallel_for(0, b, grainRows(h), [&](std::int64_t b0, std::int64_t b1) {
                    lstmkernels::backwardRows(act, cp, tc, dout, rec, dcPtr, dg, b0, b1, h);
                });
                // The recurrent gradient for the previous step (for s == 0: the gradient of h0).
                torch::mm_out(dhRec, dGates[s], wHh);
            }
            dx = torch::mm(dGates.view({t * b, 4 * h}), wIh).view({t, b, in});
        }
        // Both weight gradients in one product over all steps: dG^T [x_t, h_{t-1}] -> [4H, in + H].
        const auto dFlat = dGates.view({t * b, 4 * h});
        const auto hPrev =
            t > 1 ? torch::cat({h0.reshape({1, b, h}), out.narrow(0, 0, t - 1)}, 0) : h0.reshape({1, b, h});
        const auto inputs = torch::cat({x, hPrev}, 2).view({t * b, in + h});
        const auto dW = bf16 ? mmBf16(dFlat.t(), inputs) : torch::mm(dFlat.t(), inputs);
        const auto dWih = dW.narrow(1, 0, in), dWhh = dW.narrow(1, in, h);
        if (!db.defined()) db = dFlat.sum(0);
        return {dx, dhRec, dc, dWih, dWhh, db, db.clone()};
    }
};

}  // namespace

bool fusedLstmSupports(const torch::Tensor& input) {
    return input.device().is_cpu() && input.scalar_type() == torch::kFloat32 && input.dim() == 3;
}

std::vector<torch::Tensor> fusedLstmLayer(const torch::Tensor& x, const torch::Tensor& h0,
                                          const torch::Tensor& c0, const torch::Tensor& wIh,
                                          const torch::Tensor& wHh, const torch::Tensor& bIh,
                                          const torch::Tensor& bHh) {
    const auto xc = x.contiguous();
    const bool needsGrad =
        torch::GradMode::is_enabled() &&
        (xc.requires_grad() || h0.requires_grad() || c0.requires_grad() || wIh.requires_grad() ||
         wHh.requires_grad() || bIh.requires_grad() || bHh.requires_grad());
    if (needsGrad) return LstmLayerFunction::apply(xc, h0.contiguous(), c0.contiguous(), wIh, wHh, bIh, bHh);
    // Inference: no autograd node and no tanh(c) history.
    auto a = layerForward(xc, h0, c0, wIh.contiguous(), wHh.contiguous(), bIh, bHh, /*keep=*/false,
                          cpuBf16Active());
    return {a.out, a.hN, a.cN};
}

FusedLstmImpl::FusedLstmImpl(const FusedLstmOptions& options) : m_options(options) {
    TORCH_CHECK(options.inputSize > 0 && options.hiddenSize > 0 && options.layers > 0,
                "FusedLstm needs positive sizes and layers");
    const std::int64_t dirs = options.bidirectional ? 2 : 1, h = options.hiddenSize;
    // Registration order is torch::nn::LSTM's, so that reset_parameters draws the same numbers.
    for (std::int64_t layer = 0; layer < options.layers; ++layer) {
        const std::int64_t in = layer == 0 ? options.inputSize : h * dirs;
        for (std::int64_t d = 0; d < dirs; ++d) {
            const std::string suffix = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
            m_weights.push_back(register_parameter("weight_ih" + suffix, torch::empty({4 * h, in})));
            m_weights.push_back(register_parameter("weight_hh" + suffix, torch::empty({4 * h, h})));
            m_weights.push_back(register_parameter("bias_ih" + suffix, torch::empty({4 * h})));
            m_weights.push_back(register_parameter("bias_hh" + suffix, torch::empty({4 * h})));
        }
    }
    reset_parameters();
}

void FusedLstmImpl::reset_parameters() {
    torch::NoGradGuard noGrad;
    const double stdv = 1.0 / std::sqrt(static_cast<double>(m_options.hiddenSize));
    for (auto& p : parameters()) p.uniform_(-stdv, stdv);
}

std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> FusedLstmImpl::forward(
    const torch::Tensor& input, const std::optional<std::tuple<torch::Tensor, torch::Tensor>>& hx) {
    TORCH_CHECK(input.dim() == 3, "FusedLstm expects a 3-d input (batched)");
    const std::int64_t dirs = m_options.bidirectional ? 2 : 1, layers = m_options.layers,
                       h = m_options.hiddenSize;
    // Parameters live in the module's parameter table; after ->to(device) those are new tensors.
    std::vector<Tensor> weights;
    weights.reserve(m_weights.size());
    for (const auto& p : parameters()) weights.push_back(p);
    const auto batch = input.size(m_options.batchFirst ? 0 : 1);
    Tensor h0, c0;
    if (hx) {
        h0 = std::get<0>(*hx);
        c0 = std::get<1>(*hx);
    } else {
        h0 = torch::zeros({layers * dirs, batch, h}, input.options());
        c0 = torch::zeros({layers * dirs, batch, h}, input.options());
    }
    if (!fusedLstmSupports(input) || !fusedLstmSupports(h0) || weights[0].scalar_type() != torch::kFloat32 ||
        !weights[0].device().is_cpu()) {
        auto r = at::lstm(input, {h0, c0}, weights, /*has_biases=*/true, layers, m_options.dropout,
                          is_training(), m_options.bidirectional, m_options.batchFirst);
        return {std::get<0>(r), {std::get<1>(r), std::get<2>(r)}};
    }
    Tensor layerInput = m_options.batchFirst ? input.transpose(0, 1).contiguous() : input.contiguous();
    std::vector<Tensor> hN, cN;
    for (std::int64_t layer = 0; layer < layers; ++layer) {
        std::vector<Tensor> outputs;
        for (std::int64_t d = 0; d < dirs; ++d) {
            const std::int64_t k = layer * dirs + d;
            // The reverse direction is the forward recurrence on the time-reversed sequence.
            const Tensor x = d == 1 ? layerInput.flip({0}) : layerInput;
            auto r = fusedLstmLayer(x, h0[k], c0[k], weights[4 * k], weights[4 * k + 1], weights[4 * k + 2],
                                    weights[4 * k + 3]);
            outputs.push_back(d == 1 ? r[0].flip({0}) : r[0]);
            hN.push_back(r[1]);
            cN.push_back(r[2]);
        }
        layerInput = dirs == 2 ? torch::cat(outputs, 2) : outputs[0];
        // Exactly ATen's between-layer dropout (same call on the same time-major contiguous tensor), so that
        // with one seed both backends draw the same mask; a data-parallel shard draws the global batch's.
        if (layer < layers - 1)
            layerInput = shardedDropout(layerInput, m_options.dropout, is_training(), /*batchDim=*/1);
    }
    auto output = m_options.batchFirst ? layerInput.transpose(0, 1) : layerInput;
    return {output, {torch::stack(hN), torch::stack(cN)}};
}

}  // namespace wb
