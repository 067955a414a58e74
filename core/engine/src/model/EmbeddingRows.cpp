// The embedding lookup with its own CPU backward (see EmbeddingRows.h).
#include "model/EmbeddingRows.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>

namespace wb {

namespace {

// Rows of an embedding gradient are short (imdb: 32 floats): each thread takes whole 16-float column blocks.
constexpr std::int64_t kColumnBlock = 16;

class EmbeddingRowsFunction : public torch::autograd::Function<EmbeddingRowsFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& weight,
                                 const torch::Tensor& indices) {
        const auto flat = indices.reshape({-1});
        ctx->save_for_backward({flat});
        ctx->saved_data["rows"] = weight.size(0);
        auto shape = indices.sizes().vec();
        shape.push_back(weight.size(1));
        return weight.index_select(0, flat).view(shape);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto flat = ctx->get_saved_variables()[0].contiguous();
        const auto rows = ctx->saved_data["rows"].toInt();
        const auto width = grads[0].size(-1), count = flat.numel();
        const auto grad = grads[0].reshape({count, width}).contiguous();
        auto gradWeight = torch::zeros({rows, width}, grad.options());
        const std::int64_t* index = flat.data_ptr<std::int64_t>();
        const float* src = grad.data_ptr<float>();
        float* dst = gradWeight.data_ptr<float>();
        const std::int64_t blocks = (width + kColumnBlock - 1) / kColumnBlock;
        at::parallel_for(0, blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
            const std::int64_t c0 = b0 * kColumnBlock, c1 = std::min(width, b1 * kColumnBlock);
            for (std::int64_t i = 0; i < count; ++i) {
                float* out = dst + index[i] * width;
                const float* in = src + i * width;
                for (std::int64_t c = c0; c < c1; ++c) out[c] += in[c];
            }
        });
        return {gradWeight, torch::Tensor()};
    }
};

}  // namespace

torch::Tensor embeddingRows(const torch::Tensor& weight, const torch::Tensor& indices) {
    if (!weight.device().is_cpu() || weight.scalar_type() != torch::kFloat32 || weight.dim() != 2 ||
        indices.scalar_type() != torch::kLong)
        return torch::embedding(weight, indices);
    return EmbeddingRowsFunction::apply(weight, indices);
}

}  // namespace wb
