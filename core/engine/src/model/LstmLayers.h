// An LSTM's layers and directions over a batch whose rows may be padded at the end, on the fused CPU kernels
// (FusedLstm.h), on cuDNN called directly (CudnnLstm.h) or on at::lstm: what FusedLstm and the torch backend
// share.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "model/FusedLstm.h"

namespace wb {

// Which kernels run each layer and direction, where they apply (else at::lstm): FusedCpu where
// fusedLstmSupports the tensors; Cudnn while training on a CUDA device (cudnnLstmApplies).
enum class LstmPath { Aten, FusedCpu, Cudnn };

// The layers of an LSTM with torch::nn::LSTM's weights in ATen's flat order (per layer, per direction: w_ih,
// w_hh, b_ih, b_hh), on the kernels asked for where they apply.
// lengths [B], when given for a bidirectional LSTM, say that each row is padded after its first lengths[b]
// steps (clamped to 1..T): the reverse direction then starts at each row's own last real step, as PyTorch's
// packed sequences and ONNX's sequence_lens do, so that no real step's output depends on the padding.
// (The states returned are those after all T steps, padding included.) Without lengths the reverse
// direction reads the whole padded row from its end, as torch::nn::LSTM does.
std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> runLstmLayers(
    const torch::Tensor& input, const torch::Tensor& h0, const torch::Tensor& c0,
    const std::vector<torch::Tensor>& weights, const FusedLstmOptions& options, bool training,
    const torch::Tensor& lengths, LstmPath path);

}  // namespace wb
