// One LSTM layer and direction on cuDNN's RNN API, called directly rather than through at::lstm, so that the
// algorithm is ours to choose. ATen's rule (get_algo in its cudnn/RNN.cpp): persist_static_small_h for hidden
// up to 192 forward and 128 backward; persist_static only for fp16, one layer, hidden and input multiples of
// 128, batch up to 128; else the standard algorithm. So a poems-size LSTM (two layers, hidden 512, bf16)
// always runs the standard one, where cuDNN's persistent kernels (weights held on chip) may be faster.
//
// Which algorithm: each shape (device, precision, input and hidden size, batch, steps) is timed once per
// process, forward and backward, on every algorithm cuDNN accepts for it, and the fastest kept, as PyTorch's
// cudnn.benchmark does for convolutions; what was timed is logged and cudnnLstmReport() says it.
//
// Not yet the default: it has been compiled against PyTorch's CUDA LibTorch (the CI's CUDA compile check) but
// has not run on a GPU, so a run takes it only when LSTM_WORKBENCH_CUDNN_RNN says so: "auto" (time every
// algorithm), or "standard", "persist_static", "persist_static_small_h" or "persist_dynamic" (that one, where
// cuDNN takes it; at::lstm where not). Unset or "aten": at::lstm, as before. scripts/gpu-bench.sh runs the
// tests and the benchmark both ways. cuDNN is reached through the library LibTorch loaded (dlopen), so no
// cuDNN headers or link step are needed.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

namespace wb {

// Whether cuDNN's RNN API was found (a CUDA build of LibTorch, cuDNN 8 or later loaded).
bool cudnnLstmAvailable();

// Whether the direct path serves this time-major input [T, B, in] now: a CUDA tensor, training with
// gradients, cuDNN found, and LSTM_WORKBENCH_CUDNN_RNN naming it. (A shape that cuDNN accepts on no
// algorithm is found out on its first call, which then falls back to at::lstm itself.)
bool cudnnLstmApplies(const torch::Tensor& input);

// One layer, one direction: x [T, B, in] time-major, h0 and c0 [B, H], PyTorch's weights (w_ih [4H, in],
// w_hh [4H, H], b_ih and b_hh [4H], gates i, f, g, o). Returns {y [T, B, H], h_T [B, H], c_T [B, H]},
// differentiable in every input. Under CUDA autocast it computes in autocast's type (bf16 or fp16) with fp32
// sums, as ATen's cuDNN LSTM does.
std::vector<torch::Tensor> cudnnLstmLayer(const torch::Tensor& x, const torch::Tensor& h0,
                                          const torch::Tensor& c0, const torch::Tensor& wIh,
                                          const torch::Tensor& wHh, const torch::Tensor& bIh,
                                          const torch::Tensor& bHh);

// What the direct path chose in this process, one line per shape ("bf16 B=32 T=73 512->512: persist_static
// (standard 1.21 ms, persist_static 0.64 ms, ...)"); empty where it never ran.
std::string cudnnLstmReport();

// Tests: the algorithms that shapes first seen from now on are timed on ("standard", "persist_static", ...;
// empty: as LSTM_WORKBENCH_CUDNN_RNN says). A shape seen before keeps its choice.
void cudnnLstmCandidatesForTests(const std::vector<std::string>& algorithms);

// The weight space's layout, as cudnnGetRNNWeightParams reports it: where each of PyTorch's four tensors
// (w_ih, w_hh, b_ih, b_hh, in that order) starts, in elements, given where each gate's matrix and bias
// starts (gateOffsets[k] for linear layer k = 0..7: 0-3 the input gates' matrices i, f, g, o, 4-7 the
// recurrent ones; biasOffsets likewise). A tensor's four gates must lie back to back for it to have one
// offset. Pure arithmetic, so that it is tested without a GPU.
struct CudnnWeightLayout {
    bool valid = false;               // every tensor's gates back to back
    std::vector<std::int64_t> start;  // per tensor, in elements
    bool tiles = false;               // the four tensors fill the space exactly, in some order
    std::vector<int> order;           // the tensors by start, when tiles
};
CudnnWeightLayout cudnnWeightLayout(const std::vector<std::int64_t>& gateOffsets,
                                    const std::vector<std::int64_t>& biasOffsets, std::int64_t inputSize,
                                    std::int64_t hiddenSize, std::int64_t spaceElements);

}  // namespace wb
