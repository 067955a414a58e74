// What moved between the LibTorch versions this project builds against (Debian 12: 1.13; Debian 13: 2.6;
// PyTorch's wheels: 2.15), in one place. Each macro says which versions need what; code tests the macro,
// never a version number of its own.
#pragma once

#include <torch/version.h>

#define WORKBENCH_TORCH_AT_LEAST(major, minor) \
    (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// 2.0 split c10d's ProcessGroup (what the Reducer and the comm helpers take) from its per-device Backends
// (ProcessGroupGloo, ProcessGroupNCCL): a group is made, then each backend registered on it. In 1.13
// ProcessGroupGloo is itself the group.
#if WORKBENCH_TORCH_AT_LEAST(2, 0)
#define WORKBENCH_C10D_BACKENDS 1
#endif

// c10d's TCPStore is not used: it cannot be told to listen on one address before 2.x's masterListenFd
// (1.13's binds every interface) and admits any process that connects (a stranger could take a rank, write
// keys or stall its one server thread with half a request). The job's store is our own, behind the job secret
// (distributed/RendezvousServer.h), a c10d::Store to Gloo. What moved in Store: 2.x made clone() pure virtual
// (2.15 has it, 1.13 does not); GatedStore declares clone() without `override`, so that it overrides where
// the base has it and is a plain member where not, which needs no version test at all.

// 2.3 made c10::Allocator::allocate non-const and added the pure virtual copy_data (a custom allocator, as
// the out-of-memory test installs, overrides both).
#if WORKBENCH_TORCH_AT_LEAST(2, 3)
#define WORKBENCH_ALLOCATOR_COPY_DATA 1
#endif

// c10d's Reducer constructor: 2.8 dropped its third argument (the per-bucket size limits) and took
// skip_all_reduce_unused_params and use_python_reducer after first_bucket_bytes_cap; 2.11 took the per-bucket
// caps back, as a std::vector<int64_t> after those two (so 2.15).
#if WORKBENCH_TORCH_AT_LEAST(2, 8)
#define WORKBENCH_REDUCER_SKIP_UNUSED_ARGS 1
#endif
#if WORKBENCH_TORCH_AT_LEAST(2, 11)
#define WORKBENCH_REDUCER_BUCKET_CAP_LIST 1
#endif

// 2.4 replaced the per-device autocast functions (set_enabled for CUDA, set_cpu_enabled, ...) by ones that
// take the device type, and deprecated the old names.
#if WORKBENCH_TORCH_AT_LEAST(2, 4)
#define WORKBENCH_AUTOCAST_DEVICE_API 1
#endif

// The fused optimizer kernels (_fused_adamw_ with the learning rate as a device tensor, on CUDA and the CPU)
// and the foreach ops the clipping uses (_foreach_norm, _foreach_mul_ by a tensor): 2.x; 2.6, Debian 13's, is
// the oldest with all of them that the project builds against. 1.13 takes the tensor-by-tensor updates.
#if WORKBENCH_TORCH_AT_LEAST(2, 6)
#define WORKBENCH_FUSED_OPTIMIZER 1
#endif
