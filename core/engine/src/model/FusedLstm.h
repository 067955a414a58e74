// A CPU LSTM that is a drop-in for torch::nn::LSTM (same parameters, names, initialisation order, gate order
// i, f, g, o, dropout between layers, (output, (h_n, c_n))) but runs each layer as: one matrix product for
// the input projections of all timesteps, then per step one recurrent product and one fused gate kernel;
// its backward is hand-written (one autograd node per layer and direction, weight gradients as one large
// product each). Not float32-on-CPU inputs fall back to at::lstm with the same weights (cuDNN on CUDA).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <torch/torch.h>

namespace wb {

struct FusedLstmOptions {
    std::int64_t inputSize = 0;
    std::int64_t hiddenSize = 0;
    std::int64_t layers = 1;
    bool bidirectional = false;
    bool batchFirst = false;  // as torch::nn::LSTMOptions: [T, B, E] unless set
    double dropout = 0.0;     // on every layer's output but the last, in training mode
};

class FusedLstmImpl : public torch::nn::Module {
public:
    explicit FusedLstmImpl(const FusedLstmOptions& options);

    // torch::nn::LSTM's initialisation: every parameter uniform in ±1/sqrt(hidden), in registration order.
    void reset_parameters();

    // input [B, T, E] (batch first) or [T, B, E]; hx = (h0, c0), each [layers * directions, B, H]; lengths
    // [B] (optional): rows padded at the end (see runLstmLayers).
    std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> forward(
        const torch::Tensor& input,
        const std::optional<std::tuple<torch::Tensor, torch::Tensor>>& hx = std::nullopt,
        const torch::Tensor& lengths = {});

    const FusedLstmOptions& options() const { return m_options; }
    // ATen's flat order: per layer, per direction: w_ih, w_hh, b_ih, b_hh.
    const std::vector<torch::Tensor>& flatWeights() const { return m_weights; }

private:
    FusedLstmOptions m_options;
    std::vector<torch::Tensor> m_weights;
};
TORCH_MODULE(FusedLstm);

// Whether the fused kernels handle this input (float32 on the CPU); otherwise FusedLstm uses at::lstm.
bool fusedLstmSupports(const torch::Tensor& input);

// One layer, one direction, time-major: x [T, B, I], h0 and c0 [B, H]. Returns {output [T, B, H], h_n, c_n}.
// Differentiable through the hand-written backward when grad mode is on and anything requires grad.
std::vector<torch::Tensor> fusedLstmLayer(const torch::Tensor& x, const torch::Tensor& h0,
                                          const torch::Tensor& c0, const torch::Tensor& wIh,
                                          const torch::Tensor& wHh, const torch::Tensor& bIh,
                                          const torch::Tensor& bHh);

}  // namespace wb
