// Debian's libtorch-dev ships c10d's reducer.hpp but not the distributed-autograd header it includes. The
// Reducer names that header's context type only through a shared_ptr member and a callback typedef, so these
// two declarations are all it needs; nothing here is ever instantiated. Only the distributed sources see this
// folder (core/CMakeLists.txt), and only when the LibTorch in use lacks the real header.
#pragma once

#include <functional>
#include <memory>

#include <ATen/core/Tensor.h>

namespace torch {
namespace distributed {
namespace autograd {

class DistAutogradContext {
public:
    using GradCallback = std::function<bool(at::Tensor&)>;
};
using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
