// The part of cuDNN's API the project calls itself (model/CudnnLstm.h: the RNN API, whose algorithm at::lstm
// does not let us choose), declared here and bound at run time from the cuDNN that LibTorch loaded: no cuDNN
// headers or link step are needed, and a build without CUDA compiles it too (api() is then null). The
// declarations follow cuDNN 8's and 9's ABI (opaque handles, enums passed as int); where cuDNN's header is at
// hand (the CI's CUDA compile check) CudnnApi.cpp checks the values against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wb::cudnn {

using Status = int;  // 0: success
using Handle = void*;
using RnnDesc = void*;
using DataDesc = void*;
using TensorDesc = void*;
using DropoutDesc = void*;
using Stream = void*;  // cudaStream_t

constexpr int kFloat = 0, kHalf = 2, kBf16 = 9;                   // cudnnDataType_t
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3;  // cudnnMathType_t
constexpr int kStandard = 0, kPersistStatic = 1, kPersistDynamic = 2,
              kPersistStaticSmallH = 3;    // cudnnRNNAlgo_t
constexpr int kLstm = 2;                   // cudnnRNNMode_t
constexpr int kDoubleBias = 2;             // cudnnRNNBiasMode_t
constexpr int kUnidirectional = 0;         // cudnnDirectionMode_t
constexpr int kLinearInput = 0;            // cudnnRNNInputMode_t
constexpr int kTraining = 1;               // cudnnForwardMode_t
constexpr int kSeqMajorPacked = 1;         // cudnnRNNDataLayout_t
constexpr int kWgradAdd = 0;               // cudnnWgradMode_t
constexpr unsigned kPaddedIoDisabled = 0;  // auxFlags

struct Api {
    Status (*create)(Handle*);
    Status (*setStream)(Handle, Stream);
    const char* (*errorString)(Status);
    Status (*createRnn)(RnnDesc*);
    Status (*destroyRnn)(RnnDesc);
    Status (*setRnn)(RnnDesc, int algo, int cell, int bias, int direction, int input, int dataType,
                     int mathPrec, int mathType, std::int32_t inputSize, std::int32_t hiddenSize,
                     std::int32_t projSize, std::int32_t layers, DropoutDesc, std::uint32_t auxFlags);
    Status (*createDropout)(DropoutDesc*);
    Status (*destroyDropout)(DropoutDesc);
    Status (*setDropout)(DropoutDesc, Handle, float dropout, void* states, size_t stateBytes,
                         unsigned long long seed);
    Status (*createData)(DataDesc*);
    Status (*destroyData)(DataDesc);
    Status (*setData)(DataDesc, int dataType, int layout, int maxSeq, int batch, int vectorSize,
                      const int* lengths, void* paddingFill);
    Status (*createTensor)(TensorDesc*);
    Status (*destroyTensor)(TensorDesc);
    Status (*setTensorNd)(TensorDesc, int dataType, int dims, const int* sizes, const int* strides);
    Status (*weightSpaceSize)(Handle, RnnDesc, size_t*);
    Status (*tempSpaceSizes)(Handle, RnnDesc, int forwardMode, DataDesc, size_t* work, size_t* reserve);
    Status (*weightParams)(Handle, RnnDesc, std::int32_t layer, size_t bytes, const void* space,
                           std::int32_t linear, TensorDesc, void** matrix, TensorDesc, void** bias);
    Status (*buildDynamic)(Handle, RnnDesc, int batch);
    Status (*forward)(Handle, RnnDesc, int forwardMode, const std::int32_t* lengths, DataDesc, const void* x,
                      DataDesc, void* y, TensorDesc, const void* hx, void* hy, TensorDesc, const void* cx,
                      void* cy, size_t weightBytes, const void* weights, size_t workBytes, void* work,
                      size_t reserveBytes, void* reserve);
    Status (*backwardData)(Handle, RnnDesc, const std::int32_t* lengths, DataDesc, const void* y,
                           const void* dy, DataDesc, void* dx, TensorDesc, const void* hx, const void* dhy,
                           void* dhx, TensorDesc, const void* cx, const void* dcy, void* dcx,
                           size_t weightBytes, const void* weights, size_t workBytes, void* work,
                           size_t reserveBytes, void* reserve);
    Status (*backwardWeights)(Handle, RnnDesc, int addGrad, const std::int32_t* lengths, DataDesc,
                              const void* x, TensorDesc, const void* hx, DataDesc, const void* y,
                              size_t weightBytes, void* dweights, size_t workBytes, void* work,
                              size_t reserveBytes, void* reserve);
};

// cuDNN as LibTorch loaded it, else the first libcudnn the loader finds; null where there is none with the
// v8 RNN API (cuDNN 8.0 and later).
const Api* api();
std::string message(Status s);
// Throws (c10::Error) with cuDNN's words where s is not success.
void check(Status s, const char* what);

}  // namespace wb::cudnn
