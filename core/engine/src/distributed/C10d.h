// The c10d headers the scale-out uses, in one place: ProcessGroupGloo's where the build found Gloo's headers
// (WORKBENCH_WITH_GLOO and USE_C10D_GLOO, core/engine/CMakeLists.txt), and ProcessGroupNCCL's where
// LibTorch's CUDA build has NCCL (it defines USE_C10D_NCCL).
#pragma once

#include "TorchCompat.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#ifdef WORKBENCH_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#if defined(USE_C10D_NCCL) && defined(WORKBENCH_C10D_BACKENDS)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define WORKBENCH_WITH_NCCL 1
#endif
