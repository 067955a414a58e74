// Checkpoint progress metadata and the run's vocab.json (see RunState.h).
#include "workbench/domain/RunState.h"

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/Failpoints.h"
#include "io/FormatVersion.h"
#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Safetensors.h"

namespace wb {

namespace {
std::string exact(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
}  // namespace

std::map<std::string, std::string> ProgressState::toMetadata(const ExperimentConfig& config) const {
    return {{"format", "lstm-workbench"},
            {"optimizer", toString(config.train.optimizer)},
            {"step", std::to_string(step)},
            {"optimizer_steps", std::to_string(optimizerSteps)},
            {"epoch_index", std::to_string(epochIndex)},
            {"batch_in_epoch", std::to_string(batchInEpoch)},
            {"samples", std::to_string(samples)},
            {"wall_seconds", exact(wallSeconds)},
            {"measured_seconds", exact(measuredSeconds)},
            {"measured_samples", std::to_string(measuredSamples)},
            {"last_train_loss", exact(lastTrainLoss)},
            {"best_val_loss", exact(bestValLoss)},
            {"best_val_accuracy", exact(bestValAccuracy)},
            {"final_val_loss", exact(finalValLoss)},
            {"final_val_accuracy", exact(finalValAccuracy)},
            {"bad_validations", std::to_string(badValidations)},
            {"open_loss_sum", exact(openLossSum)},
            {"open_loss_count", std::to_string(openLossCount)},
            {"validation_owed", validationOwed ? "1" : "0"}};
}

ProgressState ProgressState::fromMetadata(const std::map<std::string, std::string>& md,
                                          const std::string& source) {
    auto integer = [&](const char* key) -> std::int64_t {
        auto it = md.find(key);
        if (it == md.end())
            throw InputError(source, 0, std::string("checkpoint metadata lacks '") + key + "'");
        try {
            std::size_t used = 0;
            const auto v = std::stoll(it->second, &used);
            if (used != it->second.size() || v < 0) throw std::invalid_argument(key);
            return v;
        } catch (const std::exception&) {
            throw InputError(source, 0,
                             std::string("checkpoint metadata '") + key + "' is not a non-negative integer");
        }
    };
    auto real = [&](const char* key) -> double {
        auto it = md.find(key);
        if (it == md.end())
            throw InputError(source, 0, std::string("checkpoint metadata lacks '") + key + "'");
        try {
            return std::stod(it->second);
        } catch (const std::exception&) {
            throw InputError(source, 0, std::string("checkpoint metadata '") + key + "' is not a number");
        }
    };
    ProgressState s;
    s.step = integer("step");
    s.optimizerSteps = integer("optimizer_steps");
    s.epochIndex = integer("epoch_index");
    s.batchInEpoch = integer("batch_in_epoch");
    s.samples = integer("samples");
    s.wallSeconds = real("wall_seconds");
    s.measuredSeconds = real("measured_seconds");
    s.measuredSamples = integer("measured_samples");
    s.lastTrainLoss = real("last_train_loss");
    s.bestValLoss = real("best_val_loss");
    s.bestValAccuracy = real("best_val_accuracy");
    s.finalValLoss = real("final_val_loss");
    s.finalValAccuracy = real("final_val_accuracy");
    s.badValidations = integer("bad_validations");
    if (md.count("open_loss_count")) {  // absent in checkpoints from before the field
        s.openLossCount = integer("open_loss_count");
        s.openLossSum = real("open_loss_sum");
    }
    if (md.count("validation_owed")) s.validationOwed = integer("validation_owed") != 0;
    return s;
}

RunSummary ProgressState::summary(std::int64_t parameters, std::int64_t tokensPerSample) const {
    RunSummary r;
    r.steps = step;
    r.samples = samples;
    r.trainSeconds = wallSeconds;
    r.samplesPerSecond = measuredSeconds > 0 ? static_cast<double>(measuredSamples) / measuredSeconds : 0;
    r.usPerSample = r.samplesPerSecond > 0 ? 1e6 / r.samplesPerSecond : 0;
    r.tokensPerSecond = r.samplesPerSecond * static_cast<double>(tokensPerSample);
    r.finalTrainLoss = lastTrainLoss;
    r.bestValLoss = bestValLoss;
    r.bestValAccuracy = bestValAccuracy;
    r.finalValLoss = finalValLoss;
    r.finalValAccuracy = finalValAccuracy;
    r.parameters = parameters;
    return r;
}

namespace {
namespace fs = std::filesystem;

std::string next(const fs::path& file) { return file.string() + ".next"; }

// The step a checkpoint file records, or "" when the file is missing or unreadable.
std::string recordedStep(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    try {
        const auto file = safetensors::read(path);
        auto it = file.metadata.find("step");
        return it == file.metadata.end() ? std::string() : it->second;
    } catch (const std::exception&) {
        return {};
    }
}

// The "step" of a safetensors file's metadata, from its header alone (a checkpoint's data can be large);
// "" when the file is missing, short or not one of ours.
std::string headerStep(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    unsigned char size[8] = {};
    std::uint64_t length = 0;
    std::string header;
    if (std::fread(size, 1, 8, f) == 8) {
        for (int i = 7; i >= 0; --i) length = (length << 8) | size[i];
        if (length > 0 && length < (std::uint64_t(1) << 26)) {
            header.resize(std::size_t(length));
            if (std::fread(header.data(), 1, header.size(), f) != header.size()) header.clear();
        }
    }
    std::fclose(f);
    const auto j = nlohmann::json::parse(header, nullptr, false);
    if (!j.is_object() || !j.contains("__metadata__") || !j["__metadata__"].is_object()) return {};
    const auto& md = j["__metadata__"];
    return md.contains("step") && md["step"].is_string() ? md["step"].get<std::string>() : std::string();
}

void renameOrThrow(const std::string& from, const std::string& to) {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec) throw TrainingError("cannot write " + to + ": " + ec.message());
}
}  // namespace

void commitCheckpoint(const std::string& runDir) {
    const fs::path dir(runDir);
    for (const char* file : {runfiles::kModel, runfiles::kOptimizer}) {
        const auto path = (dir / file).string();
        failpoints::reached(failpoints::Site::BeforeRename, path);
        renameOrThrow(next(path), path);
    }
}

void recoverCheckpoint(const std::string& runDir) {
    const fs::path dir(runDir);
    // A process killed inside writeFileAtomic leaves its temporary (".<name>.tmp-XXXXXX") behind; the
    // file it was replacing is intact, so the temporary is garbage.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const auto name = entry.path().filename().string();
        if (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos)
            fs::remove(entry.path(), ec);
    }
    const auto model = (dir / runfiles::kModel).string(), optimizer = (dir / runfiles::kOptimizer).string();
    const auto modelNext = next(model), optimizerNext = next(optimizer);
    const bool haveModelNext = fs::exists(modelNext, ec), haveOptimizerNext = fs::exists(optimizerNext, ec);
    if (!haveModelNext && !haveOptimizerNext) return;
    const auto optimizerStep = recordedStep(optimizerNext);
    if (haveModelNext && !optimizerStep.empty() && recordedStep(modelNext) == optimizerStep) {
        commitCheckpoint(runDir);  // both halves were written: finish the commit
    } else if (!haveModelNext && !optimizerStep.empty() && recordedStep(model) == optimizerStep) {
        renameOrThrow(optimizerNext, optimizer);  // killed between the two renames
    } else {
        fs::remove(modelNext, ec);  // an incomplete new checkpoint: the old pair stands
        fs::remove(optimizerNext, ec);
    }
}

std::int64_t resumableCheckpointStep(const std::string& runDir) {
    const fs::path dir(runDir);
    const auto model = (dir / runfiles::kModel).string(), optimizer = (dir / runfiles::kOptimizer).string();
    // What recoverCheckpoint would keep: a complete new pair, the new optimizer beside its model, or the old.
    std::string step;
    const auto optimizerNext = headerStep(next(optimizer));
    if (!optimizerNext.empty() &&
        (headerStep(next(model)) == optimizerNext || headerStep(model) == optimizerNext))
        step = optimizerNext;
    else if (headerStep(model) == headerStep(optimizer))
        step = headerStep(optimizer);
    try {
        return step.empty() ? -1 : std::stoll(step);
    } catch (const std::exception&) {
        return -1;
    }
}

std::string vocabularyFileJson(const Vocabulary& vocabulary, const std::vector<std::string>& classes) {
    auto j = nlohmann::json::parse(vocabulary.toJson());
    j["classes"] = classes;
    detail::stampFormatVersion(j);
    return j.dump(1);
}

Vocabulary readVocabularyFile(const std::string& path, std::vector<std::string>* classes,
                              std::vector<std::string>* warnings) {
    return parseVocabularyFile(readFile(path), path, classes, warnings);
}

Vocabulary parseVocabularyFile(const std::string& text, const std::string& path,
                               std::vector<std::string>* classes, std::vector<std::string>* warnings) {
    // parseJsonDocument names the line where the JSON breaks.
    nlohmann::json j = detail::parseJsonDocument(text, path);
    if (!j.is_object()) throw InputError(path, 0, "expected a JSON object with \"level\" and \"tokens\"");
    detail::readFormatVersion(j, path);  // every version so far holds level, tokens and classes
    detail::noteUnknownFields(j, {"level", "tokens", "classes"}, "", path, warnings);
    if (classes) {
        classes->clear();
        if (j.contains("classes")) {
            if (!j["classes"].is_array()) throw InputError(path, 0, "\"classes\" is not an array of strings");
            for (const auto& c : j["classes"]) {
                if (!c.is_string()) throw InputError(path, 0, "\"classes\" is not an array of strings");
                classes->push_back(c.get<std::string>());
            }
        }
    }
    for (const char* key : {"classes", "format_version", "written_by"}) j.erase(key);
    return Vocabulary::fromJson(j.dump(), path);
}

}  // namespace wb
