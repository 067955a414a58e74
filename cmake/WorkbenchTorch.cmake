# Finds LibTorch and makes the one target the project links it through, workbench_torch. Any LibTorch this
# project builds against works: Debian's (1.13, 2.6, CPU or CUDA) and PyTorch's own, from its pip wheel or
# its libtorch archive (-DCMAKE_PREFIX_PATH=<the wheel's torch/share/cmake>, README "Building against
# PyTorch's LibTorch"). Sets:
#   WORKBENCH_TORCH_VERSION  the version LibTorch's CMake package reports (2.15.0, 1.13.1, ...)
#   WORKBENCH_TORCH_CUDA     ON where CUDA devices are compiled in (a CUDA build of LibTorch and its toolkit)
#   WORKBENCH_TORCH_CPU_HALF ON where LibTorch is a CUDA build linked without its CUDA half (no toolkit)
#   WORKBENCH_TORCH_GLOG     ON where LibTorch's c10 logs through glog (Debian 12's); glog is then required
#   TORCH_INCLUDE_DIRS       LibTorch's include folders

# PyTorch's wheels are CUDA builds, and LibTorch's CMake package stops when it finds no CUDA toolkit (nvcc)
# to go with one ("Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries"), although
# the CPU half of the library (libtorch_cpu, libc10) needs none of it. Without a toolkit, a target named
# torch::cudart made beforehand skips the package's CUDA search (public/cuda.cmake returns at once when the
# target exists, its include guard); the build then links the CPU half only and has no CUDA devices.
find_program(WORKBENCH_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH ${CUDAToolkit_ROOT} /usr/local/cuda
             PATH_SUFFIXES bin)
if(NOT WORKBENCH_NVCC AND NOT TARGET torch::cudart)
  add_library(torch::cudart INTERFACE IMPORTED)
  set(workbench_toolkit_missing ON)
endif()
find_package(Torch REQUIRED)
set(WORKBENCH_TORCH_VERSION ${Torch_VERSION})

add_library(workbench_torch INTERFACE)
set(WORKBENCH_TORCH_CPU_HALF OFF)
if(TARGET torch_cuda AND workbench_toolkit_missing)
  set(WORKBENCH_TORCH_CPU_HALF ON)
  # torch_cpu_library links libtorch_cpu whole (its operators register themselves when it loads); at run
  # time libtorch_cpu still needs the CUDA runtime and CUPTI libraries it was linked with (the nvidia-*
  # wheels; scripts/pytorch-libtorch.sh fetches them), not cuDNN, cuBLAS or NCCL.
  target_link_libraries(workbench_torch INTERFACE torch_cpu_library c10)
  get_target_property(torch_features torch INTERFACE_COMPILE_FEATURES)
  if(torch_features)
    target_compile_features(workbench_torch INTERFACE ${torch_features})  # PyTorch 2.15's: C++20
  endif()
  target_include_directories(workbench_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
  set(WORKBENCH_TORCH_CUDA OFF)
  message(STATUS "LibTorch ${Torch_VERSION} is a CUDA build, but no CUDA toolkit (nvcc) was found: building "
                 "for its CPU half only, without CUDA devices (set CUDA_HOME to the toolkit for them)")
else()
  # TorchConfig.cmake finds libc10 and libc10_cuda with find_library, which looks in the system's folders
  # before LibTorch's own: with Debian's libtorch-dev installed beside PyTorch's, TORCH_LIBRARIES would mix
  # the two. The imported targets name the right files.
  set(torch_libraries "")
  foreach(item IN LISTS TORCH_LIBRARIES)
    if(TARGET c10 AND item STREQUAL "${c10_LIBRARY}")
      set(item c10)
    elseif(TARGET c10_cuda AND item STREQUAL "${C10_CUDA_LIBRARY}")
      set(item c10_cuda)
    endif()
    list(APPEND torch_libraries ${item})
  endforeach()
  target_link_libraries(workbench_torch INTERFACE ${torch_libraries})
  if(TARGET torch_cuda)
    set(WORKBENCH_TORCH_CUDA ON)
  else()
    set(WORKBENCH_TORCH_CUDA OFF)
  endif()
endif()

# glog only where c10 was built with it: then c10d's logging goes through glog, which the scale-out quiets
# (DistributedContext.cpp). PyTorch's own builds and Debian 13's log through c10's own logger.
find_file(WORKBENCH_C10_MACROS c10/macros/cmake_macros.h PATHS ${TORCH_INCLUDE_DIRS} NO_DEFAULT_PATH REQUIRED)
file(STRINGS ${WORKBENCH_C10_MACROS} c10_glog REGEX "^#define C10_USE_GLOG")
if(c10_glog)
  set(WORKBENCH_TORCH_GLOG ON)
  find_package(glog REQUIRED)
  target_link_libraries(workbench_torch INTERFACE glog::glog)
else()
  set(WORKBENCH_TORCH_GLOG OFF)
endif()
# PyTorch's libtorch_cpu.so (and 2.11's libtorch.so) export a copy of libstdc++'s std::filesystem, and a
# program's calls bind to the first library in its NEEDED list that defines them: libtorch's, linked before
# libstdc++. On the GPU machine that copy's remove_all(path, error_code&) called through a null pointer and
# every test that removed a folder crashed (the project now removes folders with wb::removeAll, which does
# not call it: workbench/domain/RemoveAll.h). libstdc++ named first in each program's NEEDED list makes its own
# definitions the ones found (LD_DEBUG=bindings shows which library each symbol binds to). A link option of
# every target made from here on, not a usage requirement of workbench_torch: on the GPU machine (its CMake,
# LibTorch's CUDA targets) the requirement did not reach the front of the test programs' link lines, and
# their NEEDED lists began with libtorch.so.
add_link_options("LINKER:--push-state,--no-as-needed,-lstdc++,--pop-state")

message(STATUS "LibTorch ${Torch_VERSION} in ${TORCH_INSTALL_PREFIX}: CUDA devices ${WORKBENCH_TORCH_CUDA}, "
               "glog ${WORKBENCH_TORCH_GLOG}")
