// The c10d headers the scale-out uses, in one place: ProcessGroupGloo's header is empty unless
// USE_C10D_GLOO is defined (core/CMakeLists.txt defines it for the distributed sources), and
// ProcessGroupNCCL's unless USE_C10D_NCCL is (LibTorch's CUDA build defines it where it has NCCL).
#pragma once

#include "TorchCompat.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#if defined(USE_C10D_NCCL) && defined(WORKBENCH_C10D_BACKENDS)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define WORKBENCH_WITH_NCCL 1
#endif
