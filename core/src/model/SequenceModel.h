// The two model shapes of the workbench, as one torch module:
//   language model: Embedding -> LSTM x L -> Dropout -> Linear (every step)
//   classifier:     Embedding -> (Bi)LSTM x L -> last/mean/max pooling -> Dropout -> Linear
// Parameter names follow PyTorch's (embedding.weight, lstm.weight_ih_l0, head.bias, ...), so the weights
// load in Python too. ModelSummary.cpp computes the same shapes and counts without tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include <torch/torch.h>

#include "workbench/Config.h"

namespace wb {

struct LstmState {
    torch::Tensor h, c;  // [layers * directions, B, H]
};

class SequenceModelImpl : public torch::nn::Module {
public:
    SequenceModelImpl(Task task, const ModelConfig& config, std::int64_t vocabSize, std::int64_t outputs);

    // LM: inputs [B, T] -> logits [B, T, V]. Classifier: inputs [B, T], lengths [B] -> logits [B, C].
    torch::Tensor forward(const torch::Tensor& inputs, const torch::Tensor& lengths = {});
    // LM with a carried state, for generation: inputs [B, T] -> logits [B, T, V] and the new state.
    std::pair<torch::Tensor, LstmState> forwardStep(const torch::Tensor& inputs,
                                                    const std::optional<LstmState>& state);
    // Classifier from embeddings [B, T, E] (for attributions).
    torch::Tensor classifyEmbedded(const torch::Tensor& embedded, const torch::Tensor& lengths);

    Task task() const { return m_task; }
    std::int64_t outputs() const { return m_outputs; }

    torch::nn::Embedding embedding{nullptr};
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Dropout dropout{nullptr};
    torch::nn::Linear head{nullptr};

private:
    torch::Tensor pool(const torch::Tensor& outputs, const torch::Tensor& lengths) const;

    Task m_task;
    ModelConfig m_config;
    std::int64_t m_outputs;
};
TORCH_MODULE(SequenceModel);

std::int64_t countParameters(const torch::nn::Module& module);

}  // namespace wb
