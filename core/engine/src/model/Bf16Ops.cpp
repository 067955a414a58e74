// bf16 products on LibTorch tensors (see Bf16Ops.h).
#include "model/Bf16Ops.h"

#include "model/Bf16Kernels.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace wb {

namespace {

constexpr std::int64_t kRowBlock = 12;  // the kernel's rows per call: chunks of rows are multiples of it

// A view whose rows or columns are contiguous (what the kernels read without a gather), else a copy.
torch::Tensor withUnitStride(const torch::Tensor& t) {
    return t.stride(0) == 1 || t.stride(1) == 1 ? t : t.contiguous();
}

void checkOperand(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.dim() == 2 && t.device().is_cpu() && t.scalar_type() == torch::kFloat32,
                "bf16 products take 2-d fp32 CPU tensors (", name, ")");
}

}  // namespace

std::vector<std::uint16_t> packBf16(const torch::Tensor& b) {
    checkOperand(b, "b");
    const auto bv = withUnitStride(b);
    const auto k = bv.size(0), n = bv.size(1);
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(bf16kernels::packedSize(k, n)));
    const float* data = bv.data_ptr<float>();
    at::parallel_for(0, bf16kernels::panelCount(n), 1, [&](std::int64_t p0, std::int64_t p1) {
        bf16kernels::packPanels(data, bv.stride(0), bv.stride(1), k, n, p0, p1, packed.data());
    });
    return packed;
}

namespace {

// bias + a b (bias: [n] or undefined), the bias added by the kernel as it starts each row's sums rather than
// in a pass of its own over the result (the head's logits: 20 MB a thread on poems).
torch::Tensor productBf16(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& bias) {
    checkOperand(a, "a");
    checkOperand(b, "b");
    TORCH_CHECK(a.size(1) == b.size(0), "bf16 product of [", a.size(0), ", ", a.size(1), "] and [", b.size(0),
                ", ", b.size(1), "]");
    auto out = torch::empty({a.size(0), b.size(1)}, a.options());
    if (out.numel() == 0) return out;
    const auto biasC = bias.defined() ? bias.to(torch::kFloat32).contiguous() : torch::Tensor();
    TORCH_CHECK(!biasC.defined() || biasC.numel() == b.size(1), "bf16 product's bias needs ", b.size(1),
                " values");
    if (a.size(1) == 0) return biasC.defined() ? out.copy_(biasC.expand_as(out)) : out.zero_();
    const auto packed = packBf16(b);
    const auto av = withUnitStride(a);
    const auto m = a.size(0), k = a.size(1), n = b.size(1);
    const float* aData = av.data_ptr<float>();
    const float* biasData = biasC.defined() ? biasC.data_ptr<float>() : nullptr;
    float* cData = out.data_ptr<float>();
    const std::int64_t blocks = (m + kRowBlock - 1) / kRowBlock;
    at::parallel_for(0, blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
        bf16kernels::gemmRows(aData, av.stride(0), av.stride(1), packed.data(), k, n, biasData, cData, n,
                              b0 * kRowBlock, std::min(m, b1 * kRowBlock), /*accumulate=*/false);
    });
    return out;
}

}  // namespace

torch::Tensor mmBf16(const torch::Tensor& a, const torch::Tensor& b) { return productBf16(a, b, {}); }

namespace {

class LinearBf16Function : public torch::autograd::Function<LinearBf16Function> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 const torch::Tensor& weight, const torch::Tensor& bias) {
        const auto in = weight.size(1), outs = weight.size(0);
        const auto x2 = x.reshape({-1, in});
        auto y = productBf16(x2, weight.t(), bias);
        ctx->save_for_backward({x, weight});
        auto shape = x.sizes().vec();
        shape.back() = outs;
        return y.view(shape);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto &x = saved[0], &weight = saved[1];
        const auto in = weight.size(1), outs = weight.size(0);
        const auto dy = grads[0].reshape({-1, outs}).contiguous();
        torch::Tensor dx, dw, db;
        if (ctx->needs_input_grad(0)) dx = mmBf16(dy, weight).view(x.sizes());
        if (ctx->needs_input_grad(1)) dw = mmBf16(dy.t(), x.reshape({-1, in}));
        if (ctx->needs_input_grad(2)) db = dy.sum(0);
        return {dx, dw, db};
    }
};

}  // namespace

torch::Tensor linearBf16(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    return LinearBf16Function::apply(x, weight, bias);
}

}  // namespace wb
