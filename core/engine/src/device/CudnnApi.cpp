// cuDNN's RNN API bound at run time (see CudnnApi.h).
#include "device/CudnnApi.h"

#include <dlfcn.h>

#include <c10/util/Exception.h>

namespace wb::cudnn {

namespace {
template <typename F>
bool bind(void* library, F& function, const char* name) {
    function = reinterpret_cast<F>(dlsym(library, name));
    return function != nullptr;
}

void* openLibrary() {
    const char* names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"};
    for (const char* name : names)  // the one LibTorch's CUDA half loaded, when it did
        if (void* library = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) return library;
    for (const char* name : names)
        if (void* library = dlopen(name, RTLD_NOW)) return library;
    return nullptr;
}
}  // namespace

const Api* api() {
    static const Api* bound = []() -> const Api* {
        void* library = openLibrary();
        if (!library) return nullptr;
        static Api a;
        const bool ok = bind(library, a.create, "cudnnCreate") &&
                        bind(library, a.setStream, "cudnnSetStream") &&
                        bind(library, a.errorString, "cudnnGetErrorString") &&
                        bind(library, a.createRnn, "cudnnCreateRNNDescriptor") &&
                        bind(library, a.destroyRnn, "cudnnDestroyRNNDescriptor") &&
                        bind(library, a.setRnn, "cudnnSetRNNDescriptor_v8") &&
                        bind(library, a.createDropout, "cudnnCreateDropoutDescriptor") &&
                        bind(library, a.destroyDropout, "cudnnDestroyDropoutDescriptor") &&
                        bind(library, a.setDropout, "cudnnSetDropoutDescriptor") &&
                        bind(library, a.createData, "cudnnCreateRNNDataDescriptor") &&
                        bind(library, a.destroyData, "cudnnDestroyRNNDataDescriptor") &&
                        bind(library, a.setData, "cudnnSetRNNDataDescriptor") &&
                        bind(library, a.createTensor, "cudnnCreateTensorDescriptor") &&
                        bind(library, a.destroyTensor, "cudnnDestroyTensorDescriptor") &&
                        bind(library, a.setTensorNd, "cudnnSetTensorNdDescriptor") &&
                        bind(library, a.weightSpaceSize, "cudnnGetRNNWeightSpaceSize") &&
                        bind(library, a.tempSpaceSizes, "cudnnGetRNNTempSpaceSizes") &&
                        bind(library, a.weightParams, "cudnnGetRNNWeightParams") &&
                        bind(library, a.buildDynamic, "cudnnBuildRNNDynamic") &&
                        bind(library, a.forward, "cudnnRNNForward") &&
                        bind(library, a.backwardData, "cudnnRNNBackwardData_v8") &&
                        bind(library, a.backwardWeights, "cudnnRNNBackwardWeights_v8");
        return ok ? &a : nullptr;
    }();
    return bound;
}

std::string message(Status s) {
    const char* text = api() ? api()->errorString(s) : nullptr;
    return text ? text : "status " + std::to_string(s);
}

void check(Status s, const char* what) { TORCH_CHECK(s == 0, "cuDNN's ", what, " failed: ", message(s)); }

}  // namespace wb::cudnn

// The values declared in CudnnApi.h, against cuDNN's own header where the build has it; and each function's
// type with cuDNN's enums where CudnnApi.h says int (an enum is passed as an int).
#if __has_include(<cudnn.h>)
#include <cudnn.h>

#include <type_traits>
namespace wb::cudnn {
static_assert(kFloat == CUDNN_DATA_FLOAT && kHalf == CUDNN_DATA_HALF && kBf16 == CUDNN_DATA_BFLOAT16);
static_assert(kDefaultMath == CUDNN_DEFAULT_MATH && kTensorOpMath == CUDNN_TENSOR_OP_MATH &&
              kFmaMath == CUDNN_FMA_MATH);
static_assert(kStandard == CUDNN_RNN_ALGO_STANDARD && kPersistStatic == CUDNN_RNN_ALGO_PERSIST_STATIC &&
              kPersistDynamic == CUDNN_RNN_ALGO_PERSIST_DYNAMIC &&
              kPersistStaticSmallH == CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H);
static_assert(kLstm == CUDNN_LSTM && kDoubleBias == CUDNN_RNN_DOUBLE_BIAS &&
              kUnidirectional == CUDNN_UNIDIRECTIONAL && kLinearInput == CUDNN_LINEAR_INPUT &&
              kTraining == CUDNN_FWD_MODE_TRAINING &&
              kSeqMajorPacked == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED &&
              kWgradAdd == CUDNN_WGRAD_MODE_ADD && kPaddedIoDisabled == CUDNN_RNN_PADDED_IO_DISABLED);
static_assert(sizeof(cudnnDataType_t) == sizeof(int) && sizeof(cudnnRNNAlgo_t) == sizeof(int));
// Each declaration in CudnnApi.h with its enums as int must name cuDNN's own function's parameters one for
// one: the header's function, converted to the pointer type, is called with the same arguments.
static_assert(
    std::is_same_v<decltype(cudnnRNNForward(nullptr, nullptr, CUDNN_FWD_MODE_TRAINING, nullptr, nullptr,
                                            nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                            nullptr, nullptr, 0, nullptr, 0, nullptr, 0, nullptr)),
                   cudnnStatus_t>);
static_assert(std::is_same_v<decltype(cudnnRNNBackwardData_v8(nullptr, nullptr, nullptr, nullptr, nullptr,
                                                              nullptr, nullptr, nullptr, nullptr, nullptr,
                                                              nullptr, nullptr, nullptr, nullptr, nullptr,
                                                              nullptr, 0, nullptr, 0, nullptr, 0, nullptr)),
                             cudnnStatus_t>);
static_assert(std::is_same_v<decltype(cudnnRNNBackwardWeights_v8(
                                 nullptr, nullptr, CUDNN_WGRAD_MODE_ADD, nullptr, nullptr, nullptr, nullptr,
                                 nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, 0, nullptr)),
                             cudnnStatus_t>);
static_assert(std::is_same_v<decltype(cudnnSetRNNDescriptor_v8(
                                 nullptr, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                 CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                 CUDNN_DEFAULT_MATH, 0, 0, 0, 0, nullptr, 0u)),
                             cudnnStatus_t>);
static_assert(std::is_same_v<decltype(cudnnGetRNNWeightParams(nullptr, nullptr, 0, 0, nullptr, 0, nullptr,
                                                              nullptr, nullptr, nullptr)),
                             cudnnStatus_t>);
static_assert(std::is_same_v<decltype(cudnnSetRNNDataDescriptor(nullptr, CUDNN_DATA_FLOAT,
                                                                CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 0, 0,
                                                                0, nullptr, nullptr)),
                             cudnnStatus_t>);
}  // namespace wb::cudnn
#endif
