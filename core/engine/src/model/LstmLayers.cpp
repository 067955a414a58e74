// The layers and directions of an LSTM over rows padded at the end (see LstmLayers.h).
#include "model/LstmLayers.h"

#include "model/CudnnLstm.h"
#include "model/ShardedDropout.h"

namespace wb {

using torch::Tensor;

namespace {

// The time-major index [T * B] that reverses each row's first len[b] steps and leaves its padding after
// them in place: an involution, so the same index undoes it. Built from tensors only (no host loop), so a
// CUDA graph can capture it with the batch's lengths.
Tensor rowReversal(const Tensor& lengths, std::int64_t steps, std::int64_t batch,
                   const torch::Device& device) {
    const auto len = lengths.to(device, torch::kInt64).clamp(1, steps).view({1, batch});
    const auto t =
        torch::arange(steps, torch::TensorOptions().dtype(torch::kInt64).device(device)).view({steps, 1});
    const auto source = torch::where(t < len, len - 1 - t, t);  // [T, B]: the step each position reads
    const auto column = torch::arange(batch, source.options()).view({1, batch});
    return (source * batch + column).view({-1});
}

Tensor reverseRows(const Tensor& x, const Tensor& reversal) {  // x [T, B, F], time-major
    return x.reshape({-1, x.size(2)}).index_select(0, reversal).view(x.sizes());
}

}  // namespace

std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> runLstmLayers(
    const torch::Tensor& input, const torch::Tensor& h0, const torch::Tensor& c0,
    const std::vector<torch::Tensor>& weights, const FusedLstmOptions& options, bool training,
    const torch::Tensor& lengths, LstmPath path) {
    TORCH_CHECK(input.dim() == 3, "an LSTM expects a 3-d input (batched)");
    const std::int64_t dirs = options.bidirectional ? 2 : 1;
    const bool fused = path == LstmPath::FusedCpu && fusedLstmSupports(input) && fusedLstmSupports(h0) &&
                       weights[0].scalar_type() == torch::kFloat32 && weights[0].device().is_cpu();
    const bool cudnn = path == LstmPath::Cudnn && training && cudnnLstmApplies(input);
    // Without lengths the reverse direction reads the whole padded row from its end, as torch::nn::LSTM
    // does, and ATen's own multi-layer LSTM (cuDNN on a GPU) does exactly that in one call.
    if (!fused && !cudnn && !(dirs == 2 && lengths.defined())) {
        auto r = at::lstm(input, {h0, c0}, weights, /*has_biases=*/true, options.layers, options.dropout,
                          training, options.bidirectional, options.batchFirst);
        return {std::get<0>(r), {std::get<1>(r), std::get<2>(r)}};
    }
    Tensor layerInput = options.batchFirst ? input.transpose(0, 1).contiguous() : input.contiguous();
    const auto steps = layerInput.size(0), batch = layerInput.size(1);
    const Tensor reversal =
        dirs == 2 && lengths.defined() ? rowReversal(lengths, steps, batch, layerInput.device()) : Tensor();
    std::vector<Tensor> hN, cN;
    for (std::int64_t layer = 0; layer < options.layers; ++layer) {
        std::vector<Tensor> outputs;
        for (std::int64_t d = 0; d < dirs; ++d) {
            const std::int64_t k = layer * dirs + d;
            // The reverse direction is the forward recurrence on the time-reversed sequence: each row's own
            // real steps reversed when lengths are given (its padding then comes last, after every real
            // step, and changes no real step's output), the whole padded row otherwise.
            const Tensor x = d == 0               ? layerInput
                             : reversal.defined() ? reverseRows(layerInput, reversal)
                                                  : layerInput.flip({0});
            std::vector<Tensor> r;
            if (fused) {
                r = fusedLstmLayer(x, h0[k], c0[k], weights[4 * k], weights[4 * k + 1], weights[4 * k + 2],
                                   weights[4 * k + 3]);
            } else if (cudnn) {  // one layer, one direction, on the algorithm timed fastest for its shape
                r = cudnnLstmLayer(x, h0[k], c0[k], weights[4 * k], weights[4 * k + 1], weights[4 * k + 2],
                                   weights[4 * k + 3]);
            } else {  // one layer, one direction of ATen's LSTM (cuDNN on a GPU), same weights
                auto a =
                    at::lstm(x, {h0.narrow(0, k, 1), c0.narrow(0, k, 1)},
                             {weights[4 * k], weights[4 * k + 1], weights[4 * k + 2], weights[4 * k + 3]},
                             /*has_biases=*/true, 1, 0.0, training, false, /*batch_first=*/false);
                r = {std::get<0>(a), std::get<1>(a).squeeze(0), std::get<2>(a).squeeze(0)};
            }
            outputs.push_back(d == 0               ? r[0]
                              : reversal.defined() ? reverseRows(r[0], reversal)
                                                   : r[0].flip({0}));
            hN.push_back(r[1]);
            cN.push_back(r[2]);
        }
        layerInput = dirs == 2 ? torch::cat(outputs, 2) : outputs[0];
        // Exactly ATen's between-layer dropout (same call on the same time-major contiguous tensor), so that
        // with one seed both backends draw the same mask; a data-parallel shard draws the global batch's.
        if (layer < options.layers - 1)
            layerInput = shardedDropout(layerInput, options.dropout, training, /*batchDim=*/1);
    }
    auto output = options.batchFirst ? layerInput.transpose(0, 1) : layerInput;
    return {output, {torch::stack(hN), torch::stack(cN)}};
}

}  // namespace wb
