// `lstm-workbench-cli export RUN --onnx FILE`: the trained network as an ONNX model, its vocabulary beside
// it, and the line that runs it.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/Format.h"
#include "workbench/engine/Inference.h"

int runExport(const ExportOptions& o) {
    const auto model = loadTrainedModel(o.runDir, o.checkpoint);
    const auto out = model->exportOnnx(o.onnx);
    if (o.json) {
        std::cout << nlohmann::json{{"model", out.modelPath},
                                    {"vocabulary", out.vocabularyPath},
                                    {"bytes", out.modelBytes},
                                    {"run_it", out.howToRun}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("%s: ONNX model (%s, %s checkpoint), its vocabulary and a check batch in %s\nrun it: %s\n",
                out.modelPath.c_str(), wb::humanBytes(static_cast<double>(out.modelBytes)).c_str(),
                o.checkpoint.c_str(), out.vocabularyPath.c_str(), out.howToRun.c_str());
    return 0;
}
