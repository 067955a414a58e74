// The LSTM language model and classifier (see SequenceModel.h).
#include "model/SequenceModel.h"

#include <limits>

namespace wb {

SequenceModelImpl::SequenceModelImpl(Task task, const ModelConfig& config, std::int64_t vocabSize,
                                     std::int64_t outputs)
    : m_task(task), m_config(config), m_outputs(outputs) {
    const bool bidirectional = task == Task::Classifier && config.bidirectional;
    embedding = register_module("embedding", torch::nn::Embedding(vocabSize, config.embedding));
    lstm = register_module(
        "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(config.embedding, config.hidden)
                                    .num_layers(config.layers)
                                    .batch_first(true)
                                    .bidirectional(bidirectional)
                                    .dropout(config.layers > 1 ? config.dropout : 0.0)));
    dropout = register_module("dropout", torch::nn::Dropout(config.dropout));
    head = register_module("head", torch::nn::Linear(config.hidden * (bidirectional ? 2 : 1), outputs));
}

torch::Tensor SequenceModelImpl::forward(const torch::Tensor& inputs, const torch::Tensor& lengths) {
    if (m_task == Task::LanguageModel) return forwardStep(inputs, std::nullopt).first;
    return classifyEmbedded(embedding->forward(inputs), lengths);
}

std::pair<torch::Tensor, LstmState> SequenceModelImpl::forwardStep(const torch::Tensor& inputs,
                                                                   const std::optional<LstmState>& state) {
    auto x = embedding->forward(inputs);
    std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> out;
    if (state) {
        out = lstm->forward(x, std::make_tuple(state->h, state->c));
    } else {
        out = lstm->forward(x);
    }
    auto logits = head->forward(dropout->forward(std::get<0>(out)));
    const auto& [h, c] = std::get<1>(out);
    return {logits, LstmState{h, c}};
}

torch::Tensor SequenceModelImpl::classifyEmbedded(const torch::Tensor& embedded, const torch::Tensor& lengths) {
    auto outputs = std::get<0>(lstm->forward(embedded));
    return head->forward(dropout->forward(pool(outputs, lengths)));
}

torch::Tensor SequenceModelImpl::pool(const torch::Tensor& outputs, const torch::Tensor& lengths) const {
    // outputs [B, T, D*H]; sequences are padded at the end, lengths give the real steps.
    const auto b = outputs.size(0), t = outputs.size(1), width = outputs.size(2);
    auto len = lengths.to(outputs.device()).clamp(1, t);
    if (m_config.pooling == Pooling::Last) {
        auto index = (len - 1).view({b, 1, 1}).expand({b, 1, width});
        auto last = outputs.gather(1, index).squeeze(1);
        if (width == m_config.hidden) return last;
        // The backward direction's summary of the whole sequence is at the first step.
        return torch::cat({last.narrow(1, 0, m_config.hidden),
                           outputs.select(1, 0).narrow(1, m_config.hidden, m_config.hidden)},
                          1);
    }
    auto mask = (torch::arange(t, len.options()).unsqueeze(0) < len.unsqueeze(1)).unsqueeze(2);  // [B, T, 1]
    if (m_config.pooling == Pooling::Mean)
        return (outputs * mask.to(outputs.dtype())).sum(1) / len.unsqueeze(1).to(outputs.dtype());
    return outputs.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity()).amax(1);
}

std::int64_t countParameters(const torch::nn::Module& module) {
    std::int64_t n = 0;
    for (const auto& p : module.parameters()) n += p.numel();
    return n;
}

}  // namespace wb
