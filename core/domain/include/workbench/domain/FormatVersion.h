// The version of the files a run folder holds (config.json, run.json, vocab.json) and of the files beside
// an ONNX export and a sweep: "format_version": "MAJOR.MINOR", with "written_by" naming the program.
// A reader refuses a newer major version (it may mean something this program would compute otherwise) and
// reads any minor version of its own major; a file without a version is format 1.0, the files written
// before versions existed, whose missing fields take the documented defaults (docs/file-formats.md).
//
// Format 2.0: every field that changes what a trained model computes is written (ConfigField::shapesModel)
// and must be there; a bidirectional classifier's reverse direction starts at each text's last real token,
// so padding changes no answer (format 1 runs open with that rule too: a text alone answers as before).
#pragma once

#include <cstdint>
#include <string>

namespace wb {

struct FormatVersion {
    std::int64_t major = 1, minor = 0;
};
inline constexpr FormatVersion kFormatVersion{2, 0};  // what this program writes and reads up to (major)

std::string toString(const FormatVersion& v);  // "2.0"
// "LSTM Workbench 0.1.0": what "written_by" says of this program.
std::string writtenBy();

}  // namespace wb
