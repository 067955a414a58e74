#pragma once
// Token-by-token generation on the CPU, without LibTorch's per-operation dispatch and over 16-bit copies of
// the weights. Generating one token reads every weight once (matrix-vector products): a poems-size model
// reads 26 MB per token in fp32, 13 MB in 16 bits. Products accumulate in fp32.
// - fp16 weights (any x86-64 with AVX2/F16C): 11 significant bits (relative error <= 2^-11). Converting
//   each weight to fp32 before its multiply-add costs more than reading it.
// - bf16 weights and bf16 inputs (CPUs with AVX512_BF16, unless LSTM_WORKBENCH_BF16_KERNELS=off): 8
//   significant bits (<= 2^-8), multiplied by vdpbf16ps without a conversion step; ~1.3x faster per token on
//   Zen 4 (docs/performance.md). The greedy output of a trained model matches fp32's in the tests either way.
#include <cstdint>
#include <memory>
#include <vector>

#include "model/SequenceModel.h"

namespace wb {

class HalfStepper {
public:
    // Null when the model can't use it: a classifier, a bidirectional LSTM, weights not on the CPU, or a
    // CPU without AVX2/FMA/F16C. The caller then steps through LibTorch.
    enum class Weights { Auto, Fp16, Bf16 };  // Auto: bf16 where the bf16 kernels run, else fp16
    static std::unique_ptr<HalfStepper> create(SequenceModelImpl& model, Weights weights = Weights::Auto);
    bool bf16() const { return m_bf16; }

    struct State {
        std::vector<float> h, c;  // [layers * hidden] each
    };
    State initialState() const;
    // Runs one token through every layer, updating the state.
    void feed(std::int64_t token, State& state) const;
    // The head's logits [V] (fp32) for the state's top layer.
    torch::Tensor logits(const State& state) const;

private:
    struct Layer {
        std::vector<std::uint16_t> wIh, wHh;  // [4H, in], [4H, H] row-major, fp16 or bf16
        std::vector<float> bias;              // b_ih + b_hh [4H]
        std::int64_t in = 0;
    };
    void gemv(const std::vector<std::uint16_t>& w, const float* x, float* y, std::int64_t rows,
              std::int64_t k) const;
    // Rows [r0, r1) of y += W x; x16 is x in bf16 when the weights are bf16 (unused otherwise).
    void gemvRows(const std::vector<std::uint16_t>& w, const float* x, const std::uint16_t* x16, float* y,
                  std::int64_t r0, std::int64_t r1, std::int64_t k) const;
    std::vector<std::uint16_t> copy(const torch::Tensor& t) const;

    bool m_bf16 = false;
    std::vector<Layer> m_layers;
    // The first layer's input gates of every token (embedding x W_ih0^T + biases), [V, 4H] fp32: a token
    // then reads one row instead of all of W_ih0. Built when it costs at most 64 MB.
    torch::Tensor m_inputGates;
    torch::Tensor m_embedding;  // [V, E] fp32 (one row is read per token)
    std::vector<std::uint16_t> m_head;
    std::vector<float> m_headBias;
    std::int64_t m_hidden = 0, m_vocab = 0;
};

}  // namespace wb
