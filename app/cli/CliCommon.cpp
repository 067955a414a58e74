// What every command of the CLI shares: its one-line errors and warnings, and loading a run's model.
#include <cstdio>

#include "Commands.h"
#include "workbench/domain/Errors.h"

namespace {
std::string oneLine(std::string message) {
    for (auto& ch : message)
        if (ch == '\n' || ch == '\r') ch = ' ';
    return message;
}
}  // namespace

void printError(const std::string& message) {
    std::fprintf(stderr, "%s%s\n", wb::kCliErrorPrefix, oneLine(message).c_str());
}

void printWarning(const std::string& message) {
    std::fprintf(stderr, "warning: %s\n", oneLine(message).c_str());
}

std::unique_ptr<wb::TrainedModel> loadTrainedModel(const std::string& runDir, const std::string& checkpoint) {
    auto model = wb::TrainedModel::load(runDir, checkpoint == "best" ? wb::TrainedModel::Checkpoint::Best
                                                                     : wb::TrainedModel::Checkpoint::Last);
    for (const auto& w : model->warnings()) printWarning(w);
    return model;
}
