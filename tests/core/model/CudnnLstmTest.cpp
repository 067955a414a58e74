// The LSTM layer on cuDNN's RNN API (model/CudnnLstm.h). On any machine: the weight space's layout is read
// right from the offsets cuDNN reports. With a GPU (these skip without one): on every algorithm cuDNN takes
// for the shape, a layer's outputs, last states and every gradient are at::lstm's, in fp32 and under bf16
// autocast, and the choice is reported.
#include <gtest/gtest.h>

#include "device/Autocast.h"
#include "model/CudnnLstm.h"

using namespace wb;

namespace {
// Offsets as cuDNN would report them for tensors laid out back to back in `order` (0 w_ih, 1 w_hh, 2 b_ih,
// 3 b_hh), with `gap` elements before the third one.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> cudnnOffsets(std::vector<int> order,
                                                                             std::int64_t in,
                                                                             std::int64_t hidden,
                                                                             std::int64_t gap) {
    const std::int64_t piece[4] = {hidden * in, hidden * hidden, hidden, hidden};
    std::vector<std::int64_t> gates(8), biases(8);
    std::int64_t at = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i == 2) at += gap;
        const int t = order[i];
        for (int g = 0; g < 4; ++g) (t < 2 ? gates : biases)[(t % 2) * 4 + g] = at + g * piece[t];
        at += 4 * piece[t];
    }
    return {gates, biases};
}
}  // namespace

TEST(CudnnLstm, WeightLayoutFindsEachTensorAndWhetherTheyFillTheSpace) {
    const std::int64_t in = 3, h = 5, total = 4 * h * in + 4 * h * h + 8 * h;
    auto [g, b] = cudnnOffsets({0, 1, 2, 3}, in, h, 0);
    auto layout = cudnnWeightLayout(g, b, in, h, total);
    ASSERT_TRUE(layout.valid);
    EXPECT_TRUE(layout.tiles);
    EXPECT_EQ(layout.order, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(layout.start,
              (std::vector<std::int64_t>{0, 4 * h * in, 4 * h * in + 4 * h * h, total - 4 * h}));

    std::tie(g, b) = cudnnOffsets({2, 3, 1, 0}, in, h, 0);  // biases first, then w_hh, then w_ih
    layout = cudnnWeightLayout(g, b, in, h, total);
    ASSERT_TRUE(layout.valid);
    EXPECT_TRUE(layout.tiles);
    EXPECT_EQ(layout.order, (std::vector<int>{2, 3, 1, 0}));
    EXPECT_EQ(layout.start[2], 0);
    EXPECT_EQ(layout.start[0], total - 4 * h * in);

    std::tie(g, b) =
        cudnnOffsets({0, 1, 2, 3}, in, h, 7);  // padding inside: each tensor found, copied into place
    layout = cudnnWeightLayout(g, b, in, h, total + 7);
    ASSERT_TRUE(layout.valid);
    EXPECT_FALSE(layout.tiles);
    EXPECT_EQ(layout.start[2], 4 * h * in + 4 * h * h + 7);
    EXPECT_FALSE(cudnnWeightLayout(g, b, in, h, total + 8).tiles);  // room left at the end

    std::tie(g, b) = cudnnOffsets({0, 1, 2, 3}, in, h, 0);
    std::swap(g[1], g[2]);  // the forget and cell gates' matrices out of order: no one offset for w_ih
    EXPECT_FALSE(cudnnWeightLayout(g, b, in, h, total).valid);
    EXPECT_FALSE(cudnnWeightLayout({0, 1}, b, in, h, total).valid);
}

namespace {
struct CudnnCheckResult {
    std::vector<torch::Tensor> values;  // y, h_T, c_T, then the gradients of x, h0, c0 and the four weights
};

CudnnCheckResult runCudnnOrAtenLayer(bool cudnn, const std::vector<torch::Tensor>& inputs, bool bf16) {
    std::vector<torch::Tensor> leaves;
    for (const auto& t : inputs) leaves.push_back(t.detach().clone().requires_grad_(true));
    std::vector<torch::Tensor> out;
    {
        const AutocastScope scope(leaves[0].device(), bf16 ? Precision::Bf16 : Precision::Fp32);
        if (cudnn) {
            out = cudnnLstmLayer(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], leaves[5], leaves[6]);
        } else {
            auto r = at::lstm(leaves[0], {leaves[1].unsqueeze(0), leaves[2].unsqueeze(0)},
                              {leaves[3], leaves[4], leaves[5], leaves[6]}, true, 1, 0.0, true, false, false);
            out = {std::get<0>(r), std::get<1>(r).squeeze(0), std::get<2>(r).squeeze(0)};
        }
    }
    // Every output reaches the loss, each with its own weights, so that each gradient path is checked.
    torch::Tensor loss;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto w = torch::arange(out[i].numel(), out[i].options().dtype(torch::kFloat))
                           .mul(0.37 + 0.11 * static_cast<double>(i))
                           .cos()
                           .view(out[i].sizes());
        const auto term = (out[i].to(torch::kFloat) * w).sum();
        loss = loss.defined() ? loss + term : term;
    }
    loss.backward();
    CudnnCheckResult r;
    for (const auto& t : out) r.values.push_back(t.detach().to(torch::kFloat).cpu());
    for (const auto& l : leaves) r.values.push_back(l.grad().to(torch::kFloat).cpu());
    return r;
}
}  // namespace

TEST(CudnnLstm, LayerGivesAtenLstmsOutputsAndGradientsOnEveryAlgorithmCudnnTakes) {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device; this machine has none";
    const torch::Device gpu(torch::kCUDA, 0);
    (void)torch::randn({1}, gpu);  // LibTorch's CUDA half, and with it cuDNN, loaded
    ASSERT_TRUE(cudnnLstmAvailable()) << "cuDNN's RNN API was not found";
    // Plain fp32 products on both sides (ATen's cuDNN LSTM takes TF32 by default).
    const bool tf32Before = at::globalContext().allowTF32CuDNN();
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setFloat32MatmulPrecision("highest");
    const char* names[] = {"standard", "persist_static", "persist_static_small_h", "persist_dynamic"};
    std::int64_t steps = 5;
    for (const char* name : names) {
        for (const bool bf16 : {false, true}) {
            // Each algorithm on shapes of its own (a shape keeps the choice made when it was first seen).
            ++steps;
            const std::int64_t batch = 16, in = 64, hidden = 128;
            cudnnLstmCandidatesForTests({name});
            torch::manual_seed(static_cast<std::uint64_t>(steps));
            const std::vector<torch::Tensor> inputs = {
                torch::randn({steps, batch, in}, gpu),         torch::randn({batch, hidden}, gpu) * 0.5,
                torch::randn({batch, hidden}, gpu) * 0.5,      torch::randn({4 * hidden, in}, gpu) * 0.1,
                torch::randn({4 * hidden, hidden}, gpu) * 0.1, torch::randn({4 * hidden}, gpu) * 0.1,
                torch::randn({4 * hidden}, gpu) * 0.1};
            const auto ours = runCudnnOrAtenLayer(true, inputs, bf16);
            const auto aten = runCudnnOrAtenLayer(false, inputs, bf16);
            const auto report = cudnnLstmReport();
            const std::string shape = " T=" + std::to_string(steps) + " ";
            const auto line = report.substr(report.find(shape) == std::string::npos ? 0 : report.find(shape));
            const bool taken = line.find(std::string(": ") + name) != std::string::npos;
            if (std::string(name) == "standard") EXPECT_TRUE(taken) << report;
            // bf16 rounds the inputs, weights and every product's operands alike on both sides, but the
            // algorithms sum in other orders: within bf16's resolution of the values' size.
            const double tolerance = bf16 ? 3e-2 : 2e-4;
            for (std::size_t i = 0; i < ours.values.size(); ++i) {
                const auto scale = aten.values[i].abs().max().item<double>() + 1.0;
                const auto worst = (ours.values[i] - aten.values[i]).abs().max().item<double>();
                EXPECT_LT(worst, tolerance * scale)
                    << name << (bf16 ? " bf16" : " fp32") << ", value " << i << " (" << (taken ? "" : "not ")
                    << "taken): " << line.substr(0, line.find('\n'));
            }
        }
    }
    cudnnLstmCandidatesForTests({});
    at::globalContext().setAllowTF32CuDNN(tf32Before);
    std::cout << cudnnLstmReport() << "\n";
}
