// Helpers of the kernel and model tests, defined once: those tests share translation units in the unity
// build of core_tests (tests/CMakeLists.txt), where two copies in anonymous namespaces would collide.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace wbtest {

// rows x cols floats from N(0, 1), row-major, the same for the same seed.
inline std::vector<float> randomMatrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    std::vector<float> m(static_cast<std::size_t>(rows * cols));
    for (auto& x : m) x = normal(gen);
    return m;
}

// The largest absolute difference over the largest absolute expected value.
inline double relativeError(const torch::Tensor& actual, const torch::Tensor& expected) {
    const double scale = expected.abs().max().item<double>();
    return (actual - expected).abs().max().item<double>() / std::max(scale, 1e-12);
}

}  // namespace wbtest
