// The LSTM language model and classifier (see SequenceModel.h).
#include "model/SequenceModel.h"

#include "device/Autocast.h"
#include "model/Bf16Ops.h"
#include "model/CudnnLstm.h"
#include "model/EmbeddingRows.h"
#include "model/LstmLayers.h"
#include "model/ShardedDropout.h"
#include "workbench/engine/Allocator.h"

namespace wb {

namespace {
// Measured by `lstm-workbench-cli bench --backend torch|fused` (docs/benchmarks.md): on every preset and
// thread count the fused LSTM trained faster on the CPU.
constexpr bool kFusedFasterOnCpu = true;
}  // namespace

LstmBackend resolveLstmBackend(LstmBackend requested, const torch::Device& device) {
    if (requested != LstmBackend::Auto) return requested;
    return device.is_cpu() && kFusedFasterOnCpu ? LstmBackend::Fused : LstmBackend::Torch;
}

SequenceModelImpl::SequenceModelImpl(Task task, const ModelConfig& config, std::int64_t vocabSize,
                                     std::int64_t outputs, const torch::Device& device)
    : m_task(task),
      m_config(config),
      m_backend(resolveLstmBackend(config.backend, device)),
      m_outputs(outputs) {
    tuneAllocatorForTraining();  // training reuses its activations' pages (workbench/engine/Allocator.h)
    const bool bidirectional = task == Task::Classifier && config.bidirectional;
    const double between = config.layers > 1 ? config.dropout : 0.0;
    embedding = register_module("embedding", torch::nn::Embedding(vocabSize, config.embedding));
    if (m_backend == LstmBackend::Fused) {
        FusedLstmOptions o;
        o.inputSize = config.embedding;
        o.hiddenSize = config.hidden;
        o.layers = config.layers;
        o.bidirectional = bidirectional;
        o.batchFirst = true;
        o.dropout = between;
        fusedLstm = register_module("lstm", FusedLstm(o));
    } else {
        // torch::nn::LSTM's to(device) flattens its weights for cuDNN itself (RNNImplBase::to).
        lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(config.embedding, config.hidden)
                                                           .num_layers(config.layers)
                                                           .batch_first(true)
                                                           .bidirectional(bidirectional)
                                                           .dropout(between)));
    }
    dropout = register_module("dropout", torch::nn::Dropout(config.dropout));
    head = register_module("head", torch::nn::Linear(config.hidden * (bidirectional ? 2 : 1), outputs));
}

torch::Tensor SequenceModelImpl::forward(const torch::Tensor& inputs, const torch::Tensor& lengths) {
    if (m_task == Task::LanguageModel) return forwardStep(inputs, std::nullopt).first;
    return classifyEmbedded(embeddingRows(embedding->weight, inputs), lengths);
}

std::pair<torch::Tensor, LstmState> SequenceModelImpl::forwardStep(const torch::Tensor& inputs,
                                                                   const std::optional<LstmState>& state) {
    auto [hidden, next] = hiddenStep(inputs, state);
    return {logitsOf(hidden), next};
}

std::pair<torch::Tensor, LstmState> SequenceModelImpl::hiddenStep(const torch::Tensor& inputs,
                                                                  const std::optional<LstmState>& state) {
    auto out = runLstm(embeddingRows(embedding->weight, inputs), state);
    const auto& [h, c] = std::get<1>(out);
    return {std::get<0>(out), LstmState{h, c}};
}

torch::Tensor SequenceModelImpl::logitsOf(const torch::Tensor& hidden) {
    return applyHead(shardedDropout(hidden, m_config.dropout, is_training(), /*batchDim=*/0));
}

torch::Tensor SequenceModelImpl::classifyEmbedded(const torch::Tensor& embedded,
                                                  const torch::Tensor& lengths) {
    auto outputs = std::get<0>(runLstm(embedded, std::nullopt, lengths));
    return applyHead(shardedDropout(pool(outputs, lengths), m_config.dropout, is_training(), /*batchDim=*/0));
}

torch::Tensor SequenceModelImpl::applyHead(const torch::Tensor& x) {
    // One row (generation: one token) is a matrix-vector product; BLAS's gemm would first repack the
    // whole [V, H] weight matrix, which made a poems-size quatrain ~5x slower.
    if (x.numel() == x.size(-1) && x.device().is_cpu() && !torch::GradMode::is_enabled()) {
        auto shape = x.sizes().vec();
        shape.back() = head->weight.size(0);
        return torch::addmv(head->bias, head->weight, x.reshape({-1})).view(shape);
    }
    // CPU bf16 (device/Autocast.h): for a poems-size model the head is a third of a step's products.
    if (cpuBf16Active() && x.device().is_cpu() && x.scalar_type() == torch::kFloat32)
        return linearBf16(x, head->weight, head->bias);
    return head->forward(x);
}

std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> SequenceModelImpl::runLstm(
    const torch::Tensor& x, const std::optional<LstmState>& state, const torch::Tensor& lengths) {
    if (fusedLstm) {
        if (state) return fusedLstm->forward(x, std::make_tuple(state->h, state->c), lengths);
        return fusedLstm->forward(x, std::nullopt, lengths);
    }
    const auto& o = lstm->options;
    // Training on a GPU where LSTM_WORKBENCH_CUDNN_RNN asks for it: layer by layer on cuDNN's RNN API,
    // each on the algorithm timed fastest for its shape (model/CudnnLstm.h; at::lstm asks for the standard
    // one). A bidirectional classifier's lengths: torch::nn::LSTM has none without packing the batch (which a
    // CUDA graph cannot capture), so its weights run layer by layer, direction by direction on at::lstm.
    const bool cudnn = is_training() && cudnnLstmApplies(x);
    if (cudnn || (o.bidirectional() && lengths.defined())) {
        FusedLstmOptions f;
        f.inputSize = o.input_size();
        f.hiddenSize = o.hidden_size();
        f.layers = o.num_layers();
        f.bidirectional = o.bidirectional();
        f.batchFirst = o.batch_first();
        f.dropout = o.dropout();
        const auto rows = x.size(o.batch_first() ? 0 : 1), states = f.layers * (f.bidirectional ? 2 : 1);
        const auto h0 = state ? state->h : torch::zeros({states, rows, o.hidden_size()}, x.options());
        const auto c0 = state ? state->c : torch::zeros({states, rows, o.hidden_size()}, x.options());
        return runLstmLayers(x, h0, c0, lstm->all_weights(), f, is_training(), lengths,
                             cudnn ? LstmPath::Cudnn : LstmPath::Aten);
    }
    if (state) return lstm->forward(x, std::make_tuple(state->h, state->c));
    return lstm->forward(x);
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
