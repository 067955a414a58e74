// The c10d headers the scale-out uses, in one place: ProcessGroupGloo's header is empty unless
// USE_C10D_GLOO is defined (core/CMakeLists.txt defines it for the distributed sources).
#pragma once

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
