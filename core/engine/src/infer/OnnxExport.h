// A trained network as an ONNX model (opset 17), for ONNX Runtime and every tool that reads ONNX:
//   inputs  input_ids int64 [batch, steps]; h0, c0 optional(float [layers * directions, batch, hidden]):
//           zeros when left out (OptionalHasElement chooses between the input and zeros in an If)
//   outputs logits float [batch, steps, vocabulary] (language model) or [batch, classes] (classifier);
//           h_n, c_n float [layers * directions, batch, hidden]: fed back as h0, c0, a language model steps
//           through generation one token at a time, as the app does.
// The LSTM is ONNX's LSTM operator, one per layer (its gates in ONNX's order i, o, f, c; PyTorch's are
// i, f, g, o). A classifier's lengths are its rows' non-padding tokens (<pad> is id 0, only ever at the end
// of a row), so ids alone are its input; they are its LSTMs' sequence_lens, so that the reverse direction
// starts at each row's last real token and padding changes no answer, as in the app (SequenceModel.h).
// Dropout is left out, as in evaluation. Written with the wire format of proto/ProtoWire.h; the field
// numbers are onnx.proto's (IR version 8).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/SequenceModel.h"

namespace wb {

constexpr std::int64_t kOnnxOpset = 17;

// The ModelProto's bytes. docString: the model's description (the run it came from); metadata: the
// model's metadata_props (key, value), which ONNX Runtime gives as the session's custom metadata map.
std::string onnxModelBytes(SequenceModelImpl& model, Task task, const ModelConfig& config,
                           const std::string& docString,
                           const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace wb
