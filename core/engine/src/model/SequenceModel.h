// The two model shapes of the workbench, as one torch module:
//   language model: Embedding -> LSTM x L -> Dropout -> Linear (every step)
//   classifier:     Embedding -> (Bi)LSTM x L -> last/mean/max pooling -> Dropout -> Linear
// Parameter names follow PyTorch's (embedding.weight, lstm.weight_ih_l0, head.bias, ...), so the weights
// load in Python too. ModelSummary.cpp computes the same shapes and counts without tensors.
// The LSTM is torch::nn::LSTM or the fused CPU LSTM (FusedLstm.h), per ModelConfig::backend; both register
// as "lstm" with the same parameter names, so checkpoints do not depend on the backend.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include <torch/torch.h>

#include "model/FusedLstm.h"
#include "workbench/domain/Config.h"

namespace wb {

// What Auto means on a device: the fused LSTM on the CPU, where it measured faster (docs/benchmarks.md),
// torch::nn::LSTM (cuDNN) elsewhere.
LstmBackend resolveLstmBackend(LstmBackend requested, const torch::Device& device);

struct LstmState {
    torch::Tensor h, c;  // [layers * directions, B, H]
};

class SequenceModelImpl : public torch::nn::Module {
public:
    // device: where the model will run, only to resolve LstmBackend::Auto (the model is built on the CPU).
    SequenceModelImpl(Task task, const ModelConfig& config, std::int64_t vocabSize, std::int64_t outputs,
                      const torch::Device& device = torch::kCPU);

    // LM: inputs [B, T] -> logits [B, T, V]. Classifier: inputs [B, T], lengths [B] -> logits [B, C]; a row
    // padded after its length gives the same logits as the row alone (a bidirectional LSTM's reverse
    // direction starts at each row's last real step). Without lengths every row is taken as all real.
    torch::Tensor forward(const torch::Tensor& inputs, const torch::Tensor& lengths = {});
    // LM with a carried state, for generation: inputs [B, T] -> logits [B, T, V] and the new state.
    std::pair<torch::Tensor, LstmState> forwardStep(const torch::Tensor& inputs,
                                                    const std::optional<LstmState>& state);
    // The same in two halves, so that generation computes the logits only where it samples: the top
    // layer's outputs [B, T, H] and the new state, then the head.
    std::pair<torch::Tensor, LstmState> hiddenStep(const torch::Tensor& inputs,
                                                   const std::optional<LstmState>& state);
    torch::Tensor logitsOf(const torch::Tensor& hidden);
    // Classifier from embeddings [B, T, E] (for attributions).
    torch::Tensor classifyEmbedded(const torch::Tensor& embedded, const torch::Tensor& lengths);

    Task task() const { return m_task; }
    std::int64_t outputs() const { return m_outputs; }
    LstmBackend backend() const { return m_backend; }  // Torch or Fused, never Auto

    torch::nn::Embedding embedding{nullptr};
    torch::nn::LSTM lstm{nullptr};  // set when backend() == Torch
    FusedLstm fusedLstm{nullptr};   // set when backend() == Fused (registered as "lstm" too)
    torch::nn::Dropout dropout{nullptr};
    torch::nn::Linear head{nullptr};

private:
    // lengths (a classifier's, optional): rows padded at the end, which then change no real step's output.
    std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> runLstm(
        const torch::Tensor& x, const std::optional<LstmState>& state, const torch::Tensor& lengths = {});
    torch::Tensor applyHead(const torch::Tensor& x);
    torch::Tensor pool(const torch::Tensor& outputs, const torch::Tensor& lengths) const;

    Task m_task;
    ModelConfig m_config;
    LstmBackend m_backend;
    std::int64_t m_outputs;
};
TORCH_MODULE(SequenceModel);

std::int64_t countParameters(const torch::nn::Module& module);

}  // namespace wb
