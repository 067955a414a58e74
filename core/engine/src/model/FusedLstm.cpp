// The fused CPU LSTM (see FusedLstm.h). Layout inside: time-major, contiguous. Per layer and direction the
// forward keeps the activated gates [T, B, 4H], the cells [T+1, B, H] (c0 first) and tanh(c) [T, B, H];
// the backward walks time in reverse with one gate-gradient kernel per step and computes dW_ih and dW_hh
// together (one product over all steps after the walk, or, in fp32 with AVX-512 and 4H <= 512, sums of a few
// steps at a time during it: GradSink below) and the biases from the gate gradients: where a per-step
// autograd graph loses most of its time on small shapes.
//
// Two ways to run the steps:
// - packed (H <= 512 with the AVX-512 kernel and, on a core with 1 MiB of L2, the AVX2 one; 256 otherwise;
//   more than one sequence): each thread takes a share of the batch for all steps and runs, per step, one
//   kernel for the gates (bias + x_t W_ih^T + h_{t-1} W_hh^T, both weights packed once per call) and the gate
//   activations; backward: the gate gradients, dG_t W_hh and dx_t = dG_t W_ih, and the bias gradient summed
//   while dG_t is in cache. No BLAS call and no barrier per step. In a CPU bf16 scope (device/Autocast.h)
//   every product of the layer runs on the bf16 kernels (model/Bf16Kernels.h), for any H: the weights packed
//   as bf16 panels are half the bytes; and each step's gate gradients go straight into the packed bf16
//   operand of the weight gradients' product, so that the gate gradients of all steps are never stored in
//   fp32. With AVX512_BF16 the gate kernels themselves write bf16 (lstmkernels::forwardRowsBf16,
//   backwardPairsBf16): the activated gates kept for the backward folded into bf16 (half the bytes of fp32,
//   and their derivatives kept where plain bf16 loses them), and each step's gate gradients, with no fp32
//   copy written and converted afterwards.
// - BLAS (larger H, where BLAS's blocking wins, or one sequence): the input projections of all steps in
//   one product, then per step one BLAS product and a parallel gate kernel; dX in one product.
#include "model/FusedLstm.h"

#include "EnvSwitch.h"
#include "device/Autocast.h"
#include "model/Bf16Kernels.h"
#include "model/Bf16Ops.h"
#include "model/LstmKernels.h"
#include "model/LstmLayers.h"
#include "model/PackedWeight.h"

#include <ATen/Parallel.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <vector>

namespace wb {

namespace {

using torch::Tensor;

// Rows per parallel chunk: below ~16k gate elements a step's kernel takes a few microseconds, less than
// waking the second thread costs.
std::int64_t grainRows(std::int64_t h) {
    return std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, h));
}

constexpr std::int64_t kRecurrenceGrainRows = 4;
// Rows of the weight gradients' product per parallel chunk: the bf16 kernel's 12 rows.
constexpr std::int64_t kWeightGradRows = 12;

bool packedRecurrence(std::int64_t batch, std::int64_t h, bool bf16) {
    return batch > 1 && (bf16 || h <= packedMaxHidden());
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

// The packed way (see the top of this file): per step and row, gates = (b_ih + b_hh) + x_t W_ih^T + h_{t-1}
// W_hh^T, one kernel call with both weights packed once; each thread runs every step of its own rows. The
// activated gates are kept for the backward: in a CPU bf16 scope with the AVX512_BF16 gate kernels (an even
// batch, whose row pairs the backward's kernel takes), folded into bf16 (lstmkernels::forwardRowsBf16: the
// derivatives of saturated gates, which plain bf16 loses, come back better than from fp32; the test
// Bf16Training.SaturatedGatesGetTheirGradientsAsInFp32); otherwise in fp32, where the step's product writes
// them. Where the input projections of all steps come first (inputsFirst), that fp32 buffer holds them, and
// the gates stay fp32 in bf16 too. Without a backward (inference) a step's gates live in a scratch of this
// thread's rows, in cache.
void packedForward(LayerActivations& a, const Tensor& x, const Tensor& h0, const Tensor& wIh,
                   const Tensor& wHh, const Tensor& bIh, const Tensor& bHh, bool keep, bool bf16) {
    const auto t = x.size(0), b = x.size(1), in = x.size(2), h = wHh.size(1);
    const std::int64_t stepState = b * h;
    const bool projected = inputsFirst(in, h, bf16, /*fp32Gates=*/keep);
    // LSTM_WORKBENCH_FOLDED_GATES=off keeps them in fp32 under bf16 too (for a side-by-side measurement).
    static const bool foldedOff = switchedOff("LSTM_WORKBENCH_FOLDED_GATES");
    const bool folded =
        keep && bf16 && !projected && b % 2 == 0 && !foldedOff && lstmkernels::bf16GateKernelsAvailable();
    const bool fp32Gates = keep && !folded;
    if (keep)
        a.gates = torch::empty({t, b, 4 * h}, x.options().dtype(folded ? torch::kBFloat16 : torch::kFloat32));
    const auto xc = x.contiguous(), wIhC = wIh.contiguous(), wHhC = wHh.contiguous();
    const auto bias = (bIh + bHh).contiguous();
    // In fp32 the input projections of all steps go through LibTorch's product: W_ih is not packed then.
    std::optional<PackedWeight> packedIh;
    if (!projected || bf16) packedIh.emplace(wIhC.t(), bf16);
    const PackedWeight packedHh(wHhC.t(), bf16);
    const PackedWeight* weights[2] = {packedIh ? &*packedIh : nullptr, &packedHh};
    if (projected) {
        auto gates2d = a.gates.view({t * b, 4 * h});
        projectInputs(xc.view({t * b, in}), wIhC, weights[0], bias, gates2d);
    }
    const float* xPtr = xc.data_ptr<float>();
    const float* h0Ptr = h0.data_ptr<float>();
    const float* biasPtr = bias.data_ptr<float>();
    float* cellsPtr = a.cells.data_ptr<float>();
    float* outPtr = a.out.data_ptr<float>();
    float* tanhPtr = a.tanhC.data_ptr<float>();
    at::parallel_for(0, b, kRecurrenceGrainRows, [&](std::int64_t b0, std::int64_t b1) {
        const std::int64_t rows = b1 - b0;
        std::vector<float> scratch(fp32Gates ? 0 : static_cast<std::size_t>(rows * 4 * h));
        for (std::int64_t s = 0; s < t; ++s) {
            // This block's rows of the step, from row 0.
            const float* as[2] = {xPtr + (s * b + b0) * in,
                                  (s == 0 ? h0Ptr : outPtr + (s - 1) * stepState) + b0 * h};
            const std::int64_t lda[2] = {in, h};
            float* gp = fp32Gates ? a.gates.data_ptr<float>() + (s * b + b0) * 4 * h : scratch.data();
            if (projected)  // gp holds bias + x_t W_ih^T already
                packedProduct(weights + 1, as + 1, lda + 1, 1, nullptr, gp, 4 * h, 0, rows,
                              /*accumulate=*/true);
            else
                packedProduct(weights, as, lda, 2, biasPtr, gp, 4 * h, 0, rows);
            const std::int64_t state = s * stepState + b0 * h;
            float* tc = tanhPtr + (keep ? state : b0 * h);
            if (folded) {
                auto* saved =
                    reinterpret_cast<std::uint16_t*>(a.gates.data_ptr<at::BFloat16>()) + (s * b + b0) * 4 * h;
                lstmkernels::forwardRowsBf16(gp, cellsPtr + state, cellsPtr + state + stepState,
                                             outPtr + state, tc, saved, rows, h);
                continue;
            }
            lstmkernels::forwardRows(gp, cellsPtr + state, cellsPtr + state + stepState, outPtr + state, tc,
                                     0, rows, h);
        }
    });
}

// The BLAS way: the input projections of every timestep, with both biases, in one product, then per step one
// product and a parallel gate kernel. A single row (generation: one token) is a matrix-vector product: BLAS's
// gemm would repack the whole weight matrix for it.
void blasForward(LayerActivations& a, const Tensor& x, const Tensor& h0, const Tensor& wIh, const Tensor& wHh,
                 const Tensor& bIh, const Tensor& bHh, bool keep) {
    const auto t = x.size(0), b = x.size(1), in = x.size(2), h = wHh.size(1);
    const std::int64_t stepGates = b * 4 * h, stepState = b * h;
    const bool oneRow = t * b == 1;
    a.gates = oneRow ? torch::addmv(bIh + bHh, wIh, x.reshape({in})).view({t, b, 4 * h})
                     : torch::addmm(bIh + bHh, x.reshape({t * b, in}), wIh.t()).view({t, b, 4 * h});
    float* gatesPtr = a.gates.data_ptr<float>();
    float* cellsPtr = a.cells.data_ptr<float>();
    float* outPtr = a.out.data_ptr<float>();
    float* tanhPtr = a.tanhC.data_ptr<float>();
    const auto wHhT = wHh.t();
    for (std::int64_t s = 0; s < t; ++s) {
        auto g = a.gates[s];
        const auto& hPrev = s == 0 ? h0 : a.out[s - 1];
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

LayerActivations layerForward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& wIh,
                              const Tensor& wHh, const Tensor& bIh, const Tensor& bHh, bool keep, bool bf16) {
    torch::NoGradGuard noGrad;
    const NoCpuAutocast fp32;
    const auto t = x.size(0), b = x.size(1), h = wHh.size(1);
    TORCH_CHECK(t > 0 && b > 0, "FusedLstm needs at least one step and one sequence");
    LayerActivations a;
    a.out = torch::empty({t, b, h}, x.options());
    a.cells = torch::empty({t + 1, b, h}, x.options());
    a.cells[0].copy_(c0);
    a.tanhC = torch::empty(keep ? std::vector<std::int64_t>{t, b, h} : std::vector<std::int64_t>{b, h},
                           x.options());
    const auto h0c = h0.contiguous();
    if (packedRecurrence(b, h, bf16))
        packedForward(a, x, h0c, wIh, wHh, bIh, bHh, keep, bf16);
    else
        blasForward(a, x, h0c, wIh, wHh, bIh, bHh, keep);
    a.hN = a.out[t - 1].clone();
    a.cN = a.cells[t].clone();
    return a;
}

// Both weight gradients in one product over all steps: dG^T [x_t, h_{t-1}] -> [4H, in + H], where h_{t-1}
// is h0 for the first step; dG is [T * B, 4H].
Tensor weightGrads(const Tensor& dG, const Tensor& x, const Tensor& h0, const Tensor& out, bool bf16) {
    const auto t = x.size(0), b = x.size(1), in = x.size(2), h = out.size(2);
    const auto hPrev =
        t > 1 ? torch::cat({h0.reshape({1, b, h}), out.narrow(0, 0, t - 1)}, 0) : h0.reshape({1, b, h});
    const auto inputs = torch::cat({x, hPrev}, 2).view({t * b, in + h});
    return bf16 ? mmBf16(dG.t(), inputs) : torch::mm(dG.t(), inputs);
}

// The same from bf16 gate gradients packed by the backward's steps (GradSink below): computed transposed,
// [x_t, h_{t-1}]^T dG, with x's rows and h's (h0, then out's steps) stacked in one product, so that the
// inputs of all steps are never copied into one matrix and each block of dG is read from memory once.
Tensor weightGradsFromPacked(const Tensor& x, const Tensor& h0, const Tensor& out, const std::uint16_t* dG) {
    const auto t = x.size(0), b = x.size(1), in = x.size(2), h = out.size(2);
    TORCH_CHECK(x.is_contiguous() && h0.is_contiguous() && out.is_contiguous(),
                "FusedLstm's weight gradients need contiguous inputs");
    const Tensor dWt = torch::empty({in + h, 4 * h}, x.options());
    const ColumnPart parts[2] = {{x.data_ptr<float>(), nullptr, 0, in, in},
                                 {out.data_ptr<float>(), h0.data_ptr<float>(), b, h, h}};
    float* c = dWt.data_ptr<float>();
    const std::int64_t m = in + h, blocks = (m + kWeightGradRows - 1) / kWeightGradRows;
    at::parallel_for(0, blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
        const std::int64_t m0 = b0 * kWeightGradRows, m1 = std::min(m, b1 * kWeightGradRows);
        bf16kernels::gemmColumnParts(parts, 2, dG, t * b, 4 * h, c, 4 * h, m0, m1);
    });
    return dWt.t().contiguous();
}

// The packed backward's two per-step products, dG_t W_hh (the recurrent gradient) and dG_t W_ih (dx_t), from
// dG_t's rows already in bf16 (lstmkernels::backwardPairsBf16).
void stepProductsFromBf16(const PackedWeight& hh, const PackedWeight& ih, const std::uint16_t* dg,
                          std::int64_t rows, float* rec, float* dx) {
    const bf16kernels::Operand toH{nullptr, hh.k, hh.halves.data(), hh.k, dg};
    bf16kernels::gemmPackedRows(&toH, 1, nullptr, rec, hh.n, 0, rows, hh.n, /*accumulate=*/false);
    const bf16kernels::Operand toX{nullptr, ih.k, ih.halves.data(), ih.k, dg};
    bf16kernels::gemmPackedRows(&toX, 1, nullptr, dx, ih.n, 0, rows, ih.n, /*accumulate=*/false);
}

// What a layer's backward reads and updates (LstmLayerFunction::backward sets it up).
struct LayerBackward {
    Tensor x, h0, wIh, wHh, out;
    const float* act = nullptr;                // the activated gates in fp32, or
    const std::uint16_t* actHalves = nullptr;  // folded into bf16 (lstmkernels::forwardRowsBf16)
    const float* cells = nullptr;
    const float* tanhC = nullptr;
    const float* dOut = nullptr;  // step s, row b at s * dOutStep + b * dOutRow
    std::int64_t dOutStep = 0, dOutRow = 0;
    Tensor dhRec, dc;  // from the step after the last on entry; for h0 and c0 on return
    std::int64_t t = 0, b = 0, in = 0, h = 0;
    bool bf16 = false;
};

struct LayerGrads {
    Tensor dx, db, dW;
};

// Where the packed backward's steps put their gate gradients for the weight gradients' product. Packed
// (transposed product, ColumnPart) or summed during the walk: the gate gradients of all steps (26 MB a step
// on imdb) never exist as one fp32 matrix that LibTorch's product would copy and pack again.
enum class GradSink {
    Kept,        // every step's fp32 rows kept in [T, B, 4H]; one product afterwards (weightGrads)
    StepFp32,    // a few steps' rows at a time into the block's weight-gradient sums (addColumnPartsProduct)
    PackedBf16,  // converted into the bf16 operand's row pairs (bf16kernels::packRows); bf16, even batch
    FusedBf16,   // as PackedBf16, but written as bf16 by the gate kernel itself (backwardPairsBf16)
};

GradSink gradSinkFor(const LayerBackward& l) {
    // Gates kept folded into bf16 (packedForward) come with the AVX512_BF16 gate kernels and an even batch.
    if (l.actHalves) return GradSink::FusedBf16;
    if (l.bf16 && l.b % 2 == 0) return GradSink::PackedBf16;
    // fp32 with AVX-512: the sums during the walk where a block's sums ([in + H, 4H]) stay in L2 beside the
    // packed weights (4H <= 512: docs/benchmarks.md, "The weight gradients during the walk"; they replaced
    // session 24's packing of every step's gate gradients for one product after the walk). With poems' 4H =
    // 2048, and on AVX2 (whose kernel of this shape was slower than OpenBLAS on charrnn), LibTorch's product
    // after the walk.
    static const bool stepSums = !switchedOff("LSTM_WORKBENCH_STEP_WEIGHT_GRADS");
    if (!l.bf16 && 4 * l.h <= 512 && stepSums && lstmkernels::packedIsa() == lstmkernels::PackedIsa::Avx512)
        return GradSink::StepFp32;
    return GradSink::Kept;
}

// Memory for the packed gate gradients, 64-byte aligned: the packing functions then write them around the
// cache (they are read back only by the weight gradients' product after the whole walk).
struct AlignedDelete {
    void operator()(void* p) const { ::operator delete[](p, std::align_val_t(64)); }
};
using AlignedBytes = std::unique_ptr<void, AlignedDelete>;
AlignedBytes alignedBytes(std::int64_t bytes) {
    return AlignedBytes(::operator new[](static_cast<std::size_t>(bytes), std::align_val_t(64)));
}

// One block of rows [b0, b1) through every step of the packed backward, last step first: the gate gradients,
// the bias gradient summed into `sum` while each row is in cache, the recurrent gradient dG_t W_hh (for the
// step before; for t = 0 the gradient of h0) and dx_t = dG_t W_ih, and the gate gradients to their sink.
void packedBackwardRows(const LayerBackward& l, GradSink sink, const PackedWeight& hh, const PackedWeight& ih,
                        float* dx, float* sum, float* kept, void* packed, float* wSums, std::int64_t b0,
                        std::int64_t b1) {
    const std::int64_t t = l.t, b = l.b, h = l.h, in = l.in, rows = b1 - b0, width = 4 * h;
    const std::int64_t stepGates = b * width, stepState = b * h;
    float* rec = l.dhRec.data_ptr<float>() + b0 * h;
    float* dc = l.dc.data_ptr<float>() + b0 * h;
    const auto values = static_cast<std::size_t>(rows * width);
    const bool fused = sink == GradSink::FusedBf16;
    // StepFp32: the gate gradients of the last few steps, added to the weight-gradient sums together, about
    // 128 rows of them (one thread's 64 or 32 rows a step on imdb and charrnn): C's loads and stores per
    // multiply-add fall with the rows per pass, and 128 rows of gate gradients (256 KB at 4H = 512) stay in
    // L2.
    constexpr int kMaxStepsPerSum = 16;
    const int stepsPerSum =
        sink == GradSink::StepFp32
            ? static_cast<int>(std::clamp<std::int64_t>((127 + rows) / rows, 1, kMaxStepsPerSum))
            : 1;
    std::vector<float> stepGrads(!fused && sink != GradSink::Kept ? values * stepsPerSum : 0);
    ColumnPart pendingParts[2 * kMaxStepsPerSum];
    int pending = 0;  // steps whose gate gradients wait in stepGrads
    std::vector<std::uint16_t> dgRows(fused ? values : 0);
    std::vector<std::uint32_t> dgPairs(fused ? values / 2 : 0);
    const PackedWeight* toH[1] = {&hh};
    const PackedWeight* toX[1] = {&ih};
    const float* xs = l.x.data_ptr<float>() + b0 * in;
    const float* outs = l.out.data_ptr<float>() + b0 * h;
    const float* h0 = l.h0.data_ptr<float>() + b0 * h;
    for (std::int64_t s = t - 1; s >= 0; --s) {
        // This block's rows of the step, from row 0.
        const std::int64_t gate = s * stepGates + b0 * width, state = s * stepState + b0 * h;
        const std::int64_t firstRow = s * b + b0, stepBack = s > 0 ? stepState : 0;
        const float* dout = l.dOut + s * l.dOutStep + b0 * l.dOutRow;
        if (fused) {
            lstmkernels::backwardPairsBf16(l.actHalves + gate, l.cells + state, l.tanhC + state, dout,
                                           l.dOutRow, rec, dc, dgRows.data(), dgPairs.data(), sum, rows, h,
                                           stepBack);
            stepProductsFromBf16(hh, ih, dgRows.data(), rows, rec, dx + firstRow * in);
            bf16kernels::packPairRows(dgPairs.data(), width, firstRow, rows, t * b, width,
                                      static_cast<std::uint16_t*>(packed));
            continue;
        }
        float* dg = sink == GradSink::Kept ? kept + gate : stepGrads.data() + pending * values;
        lstmkernels::backwardRows(l.act + gate, l.cells + state, l.tanhC + state, dout, l.dOutRow, rec, dc,
                                  dg, 0, rows, h, stepBack);
        lstmkernels::addRows(dg, 0, rows, width, sum);
        const float* as[1] = {dg};
        const std::int64_t lda[1] = {width};
        packedProduct(toH, as, lda, 1, nullptr, rec, h, 0, rows);
        packedProduct(toX, as, lda, 1, nullptr, dx + firstRow * in, in, 0, rows);
        if (sink == GradSink::StepFp32) {
            // These steps' share of dW^T = [x_t, h_{t-1}]^T dG_t, their rows' inputs read in place.
            pendingParts[2 * pending] = {xs + s * b * in, nullptr, 0, in, in};
            pendingParts[2 * pending + 1] = {s > 0 ? outs + (s - 1) * stepState : h0, nullptr, 0, h, h};
            if (++pending == stepsPerSum || s == 0) {
                lstmkernels::addColumnPartsProduct(pendingParts, 2, pending, rows, stepGrads.data(), width,
                                                   width, wSums, width);
                pending = 0;
            }
        } else if (sink == GradSink::PackedBf16) {
            bf16kernels::packRows(dg, width, firstRow, rows, t * b, width,
                                  static_cast<std::uint16_t*>(packed));
        }
    }
}

// The sum of the blocks' partial sums (each [rows, cols] or empty), in the order of the blocks.
Tensor sumInOrder(std::vector<std::vector<float>>& partials, std::int64_t rows, std::int64_t cols) {
    Tensor total;
    for (auto& p : partials) {
        if (p.empty()) continue;
        const Tensor part = torch::from_blob(p.data(), {rows, cols}, torch::kFloat32);
        if (total.defined())
            total.add_(part);
        else
            total = part.clone();
    }
    return total;
}

// The packed way's backward (see the top of this file): both weights packed once; each thread walks back
// through every step of its own rows.
LayerGrads packedBackward(const LayerBackward& l) {
    const std::int64_t t = l.t, b = l.b, h = l.h, in = l.in, width = 4 * h;
    const auto options = l.x.options();
    LayerGrads g;
    g.dx = torch::empty({t, b, in}, options);
    const PackedWeight packedHh(l.wHh.contiguous(), l.bf16), packedIh(l.wIh.contiguous(), l.bf16);
    const GradSink sink = gradSinkFor(l);
    const bool bf16Packed = sink == GradSink::PackedBf16 || sink == GradSink::FusedBf16;
    Tensor kept = sink == GradSink::Kept ? torch::empty({t, b, width}, options) : Tensor();
    AlignedBytes packed;
    if (bf16Packed) packed = alignedBytes(bf16kernels::packedSize(t * b, width) * 2);
    // The bias gradient: each block of rows sums into a partial sum of its own, kept in the row of the
    // partial sums where the block starts (parallel_for's blocks are not multiples of the grain), and the
    // rows are added in order, so that the result does not depend on which thread finished first.
    Tensor partial = torch::zeros({b, width}, options);
    float* partialPtr = partial.data_ptr<float>();
    float* dxPtr = g.dx.data_ptr<float>();
    float* keptPtr = kept.defined() ? kept.data_ptr<float>() : nullptr;
    // Blocks of whole row pairs for the bf16 operand, so that no pair is split between two threads.
    const std::int64_t unit = bf16Packed ? 2 : 1;
    // The weight gradients summed step by step: each block of rows into sums of its own (dW^T, [in + H, 4H]),
    // found by the block's first row as the bias's partial sums are, and added in that order afterwards.
    std::vector<std::vector<float>> stepSums(sink == GradSink::StepFp32 ? b : 0);
    TORCH_CHECK(
        sink != GradSink::StepFp32 || (l.x.is_contiguous() && l.h0.is_contiguous() && l.out.is_contiguous()),
        "FusedLstm's weight gradients need contiguous inputs");
    at::parallel_for(0, b / unit, kRecurrenceGrainRows / unit, [&](std::int64_t u0, std::int64_t u1) {
        float* wSums = nullptr;
        if (sink == GradSink::StepFp32) {
            stepSums[u0].assign(static_cast<std::size_t>((in + h) * width), 0.0f);
            wSums = stepSums[u0].data();
        }
        packedBackwardRows(l, sink, packedHh, packedIh, dxPtr, partialPtr + u0 * unit * width, keptPtr,
                           packed.get(), wSums, u0 * unit, u1 * unit);
    });
    g.db = partial.sum(0);
    if (sink == GradSink::StepFp32)
        g.dW = sumInOrder(stepSums, in + h, width).t().contiguous();
    else if (bf16Packed)
        g.dW = weightGradsFromPacked(l.x, l.h0, l.out, static_cast<const std::uint16_t*>(packed.get()));
    else
        g.dW = weightGrads(kept.view({t * b, width}), l.x, l.h0, l.out, l.bf16);
    return g;
}

// The BLAS way's backward: per step a parallel gate-gradient kernel and one product for the recurrent
// gradient; dx and the weight gradients in one product each over all steps.
LayerGrads blasBackward(const LayerBackward& l) {
    const std::int64_t t = l.t, b = l.b, h = l.h, in = l.in, stepGates = b * 4 * h, stepState = b * h;
    Tensor dGates = torch::empty({t, b, 4 * h}, l.x.options());
    float* dGatesPtr = dGates.data_ptr<float>();
    float* rec = l.dhRec.data_ptr<float>();
    float* dc = l.dc.data_ptr<float>();
    for (std::int64_t s = t - 1; s >= 0; --s) {
        const float* act = l.act + s * stepGates;
        const float* cp = l.cells + s * stepState;
        const float* tc = l.tanhC + s * stepState;
        const float* dout = l.dOut + s * l.dOutStep;
        float* dg = dGatesPtr + s * stepGates;
        at::parallel_for(0, b, grainRows(h), [&](std::int64_t b0, std::int64_t b1) {
            lstmkernels::backwardRows(act, cp, tc, dout, l.dOutRow, rec, dc, dg, b0, b1, h);
        });
        // The recurrent gradient for the previous step (for s == 0: the gradient of h0).
        Tensor dhRec = l.dhRec;  // the same storage: mm_out writes what rec points at
        torch::mm_out(dhRec, dGates[s], l.wHh);
    }
    const auto dFlat = dGates.view({t * b, 4 * h});
    LayerGrads g;
    g.dx = torch::mm(dFlat, l.wIh).view({t, b, in});
    g.dW = weightGrads(dFlat, l.x, l.h0, l.out, l.bf16);
    g.db = dFlat.sum(0);
    return g;
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
        LayerBackward l;
        l.x = saved[0], l.h0 = saved[1], l.wIh = saved[2], l.wHh = saved[3], l.out = saved[4];
        const Tensor &cells = saved[5], &gates = saved[6], &tanhC = saved[7];
        l.t = l.x.size(0), l.b = l.x.size(1), l.in = l.x.size(2), l.h = l.wHh.size(1);
        l.bf16 = ctx->saved_data["bf16"].toBool();
        const auto options = l.x.options();
        // Undefined when only (h_n, c_n) were used: zeros keep the kernel free of branches.
        // The output's gradient is read where autograd left it, step s and row b at s * dOutStep + b *
        // dOutRow: a classifier's (zeros but at each sequence's last step, in the batch-first order the model
        // returned) is not copied into time order, and an unused output reads one row of zeros.
        Tensor dOut;
        if (!grads[0].defined()) {
            dOut = torch::zeros({l.h}, options);
        } else {
            dOut = grads[0].stride(2) == 1 && grads[0].stride(0) > 0 && grads[0].stride(1) > 0
                       ? grads[0]
                       : grads[0].contiguous();
            l.dOutStep = dOut.stride(0);
            l.dOutRow = dOut.stride(1);
        }
        l.dOut = dOut.data_ptr<float>();
        l.dhRec = grads[1].defined() ? grads[1].contiguous().clone() : torch::zeros({l.b, l.h}, options);
        l.dc = grads[2].defined() ? grads[2].contiguous().clone() : torch::zeros({l.b, l.h}, options);
        // Activated gates as the forward kept them: fp32, or folded into bf16 (packedForward).
        if (gates.scalar_type() == torch::kBFloat16)
            l.actHalves = reinterpret_cast<const std::uint16_t*>(gates.data_ptr<at::BFloat16>());
        else
            l.act = gates.data_ptr<float>();
        l.cells = cells.data_ptr<float>();
        l.tanhC = tanhC.data_ptr<float>();
        const LayerGrads g = packedRecurrence(l.b, l.h, l.bf16) ? packedBackward(l) : blasBackward(l);
        const auto dWih = g.dW.narrow(1, 0, l.in), dWhh = g.dW.narrow(1, l.in, l.h);
        return {g.dx, l.dhRec, l.dc, dWih, dWhh, g.db, g.db.clone()};
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
    const torch::Tensor& input, const std::optional<std::tuple<torch::Tensor, torch::Tensor>>& hx,
    const torch::Tensor& lengths) {
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
    return runLstmLayers(input, h0, c0, weights, m_options, is_training(), lengths, LstmPath::FusedCpu);
}

}  // namespace wb
