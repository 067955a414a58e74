// Tensors to and from safetensors files (CPU, little-endian), with atomic writes.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "workbench/domain/Safetensors.h"

namespace wb {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

std::string safetensorsDtype(torch::ScalarType type);  // throws std::logic_error for unsupported types
// Writes tensors (moved to CPU, made contiguous) atomically to path.
void saveSafetensors(const std::string& path, const NamedTensors& tensors,
                     const std::map<std::string, std::string>& metadata);
// Copies one entry into a new CPU tensor.
torch::Tensor toTensor(const safetensors::File& file, const safetensors::TensorEntry& entry);

// Copies file tensors into `targets` by name, checking that each exists with the same shape and a
// floating dtype. Throws InputError(sourceName, 0, "tensor 'x': expected shape [..], found [..]").
void loadInto(const safetensors::File& file, const NamedTensors& targets, const std::string& sourceName);

}  // namespace wb
