// The data-parallel GradientSync on c10d: rank 0's state broadcast at the start, gradients bucketed and
// all-reduced by c10d::Reducer while the backward pass runs (as PyTorch's DistributedDataParallel does).
#pragma once

#include <memory>
#include <vector>

#include "distributed/DistributedContext.h"
#include "train/GradientSync.h"
#include "workbench/domain/Config.h"

namespace wb {

// parameters: the model's, in registration order (the same on every rank); compression: what the gradients
// travel as. The context must outlive it.
std::unique_ptr<GradientSync> makeReducerSync(DistributedContext& context,
                                              const std::vector<torch::Tensor>& parameters,
                                              GradCompression compression);

}  // namespace wb
