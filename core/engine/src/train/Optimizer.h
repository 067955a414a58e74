// Adam, SGD and RMSprop written out over tensors rather than torch::optim: the state is ours to save in
// optimizer.safetensors (by parameter name) and restore exactly, identically on LibTorch 1.13 and 2.x.
// Update rules and defaults follow torch.optim (Adam: betas 0.9/0.999, eps 1e-8; RMSprop: alpha 0.99).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "tensors/TensorIO.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Safetensors.h"

namespace wb {

class Optimizer {
public:
    Optimizer(OptimizerKind kind, NamedTensors parameters, double learningRate);

    void zeroGrad();
    // Scales gradients so their global L2 norm is at most maxNorm, without a host synchronisation.
    void clipGradNorm(double maxNorm);
    void step();

    double learningRate() const { return m_lr; }
    // Decoupled weight decay (AdamW, Loshchilov & Hutter): before each update the weight matrices (not the
    // biases) shrink by lr * decay, whatever the optimizer.
    void setWeightDecay(double decay) { m_weightDecay = decay; }
    void setLearningRate(double lr) { m_lr = lr; }
    std::int64_t steps() const { return m_steps; }
    void setSteps(std::int64_t steps) { m_steps = steps; }  // a worker's, from rank 0's checkpoint
    OptimizerKind kind() const { return m_kind; }

    // For a step captured in a CUDA graph (train/CudaGraphStep.h): the update reads the step count and the
    // learning rate from device tensors, which loadDeviceScalars fills from this object's before each
    // replay, so a replayed step uses its own turn's values, not those of the step that was captured.
    // The host's count still counts every step: countReplayedStep after each replay.
    void useDeviceScalars(const torch::Device& device);
    bool usesDeviceScalars() const { return m_deviceStep.defined(); }
    void loadDeviceScalars();
    void countReplayedStep() { ++m_steps; }

    // Adam as one fused kernel over every parameter (LibTorch's _fused_adamw_, where the LibTorch has it):
    // the default for parameters on a GPU, where the update tensor by tensor is about ten small kernels per
    // parameter, a hundred or more a step. The same update rule; its bias corrections are computed in float
    // from a float32 step count. LSTM_WORKBENCH_FUSED_ADAM=off keeps the tensor operations (for a
    // side-by-side measurement); useFusedAdam(true) asks for it on the CPU too (tests). Clipping on a GPU,
    // whatever the optimizer, takes the foreach operations under the same setting.
    static bool fusedAdamAvailable();
    void useFusedAdam(bool on);
    bool usesFusedAdam() const { return m_fusedAdam; }

    // "<param>.exp_avg" style tensors for saving.
    NamedTensors state() const;
    // Restores the state saved by state(); throws InputError(sourceName) on a mismatch.
    void loadState(const safetensors::File& file, std::int64_t steps, const std::string& sourceName);

private:
    struct Slot {
        std::string name;
        torch::Tensor param;
        torch::Tensor first;   // Adam exp_avg
        torch::Tensor second;  // Adam exp_avg_sq, RMSprop square_avg
    };
    static bool onePassAdamApplies(const Slot& s, const torch::Tensor& g);
    bool onePassAdam(Slot& s, const torch::Tensor& g, double bias1, double bias2);

    OptimizerKind m_kind;
    double m_lr;
    double m_weightDecay = 0;
    std::int64_t m_steps = 0;
    std::vector<Slot> m_slots;
    torch::Tensor m_deviceStep, m_deviceLr;  // float64 scalars on the parameters' device, when in use
    bool m_fusedAdam = false;
    bool m_foreachClip = false;  // every optimizer's clipping on a GPU, under the same setting as m_fusedAdam
    torch::Tensor m_fusedStep,
        m_fusedLr;  // float32 scalars on the parameters' device: what the fused kernel reads

    bool fusedAdamStep();

    void hostScalarStep();
    void deviceScalarStep();
};

}  // namespace wb
