#pragma once
// Token-by-token generation on the CPU, without LibTorch's per-operation dispatch and over fp16 copies of
// the weights. Generating one token reads every weight once (matrix-vector products), so it is bound by
// memory, not arithmetic: a poems-size model reads 26 MB per token in fp32, 13 MB in fp16. Products
// accumulate in fp32; the weights round to 11 significant bits (relative error <= 2^-11), far below what
// changes a sampled token's probability visibly.
#include <cstdint>
#include <memory>
#include <vector>

#include "model/SequenceModel.h"

namespace wb {

class HalfStepper {
public:
    // Null when the model can't use it: a classifier, a bidirectional LSTM, weights not on the CPU, or a
    // CPU without AVX2/FMA/F16C. The caller then steps through LibTorch.
    static std::unique_ptr<HalfStepper> create(SequenceModelImpl& model);

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
        std::vector<std::uint16_t> wIh, wHh;  // [4H, in], [4H, H] row-major, fp16
        std::vector<float> bias;              // b_ih + b_hh [4H]
        std::int64_t in = 0;
    };
    void gemv(const std::vector<std::uint16_t>& w, const float* x, float* y, std::int64_t rows,
              std::int64_t k) const;

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
