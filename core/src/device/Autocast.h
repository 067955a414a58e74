// Mixed precision as a scope: inside it, eligible ops (matrix products, LSTM cells) run in bf16/fp16 on the
// given device. Autocast state is thread-local in LibTorch, so each worker thread opens its own scope.
#pragma once

#include <torch/torch.h>

#include "workbench/Config.h"

namespace wb {

class AutocastScope {
public:
    AutocastScope(const torch::Device& device, Precision precision);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_active = false;
    bool m_cuda = false;
    bool m_previousEnabled = false;
    at::ScalarType m_previousType = at::kBFloat16;
};

}  // namespace wb
