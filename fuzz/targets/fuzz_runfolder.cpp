// A run folder built from the fuzz input, read the way `resume`, `compare` and the app read one. The input
// is split on the byte 0x01 into, in order: config.json, run.json, metrics.csv, vocab.json,
// optimizer.safetensors, model.safetensors, optimizer.safetensors.next, model.safetensors.next; an empty
// (or missing) part leaves that file out. Then: recoverCheckpoint (which may rename or delete the .next
// files), loadRunFolder, the comparison table and CSV, readVocabularyFile, and the checkpoint's progress
// metadata. Each step must either work or throw InputError naming a file in the folder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunState.h"
#include "workbench/domain/Safetensors.h"
#include "workbench/domain/Utf8.h"

namespace {

const char* const kFiles[] = {"config.json",
                              "run.json",
                              "metrics.csv",
                              "vocab.json",
                              "optimizer.safetensors",
                              "model.safetensors",
                              "optimizer.safetensors.next",
                              "model.safetensors.next"};

void checkInputError(const wb::InputError& e, const std::string& dir) {
    FUZZ_CHECK(e.file().rfind(dir, 0) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::fs::path root = fuzz::freshDir("run");
    const std::string dir = root.string();
    const auto parts =
        fuzz::split(std::string_view(reinterpret_cast<const char*>(data), size), '\x01', std::size(kFiles));
    for (std::size_t k = 0; k < parts.size(); ++k)
        if (!parts[k].empty() && !fuzz::writeFile(root / kFiles[k], parts[k])) std::abort();

    wb::recoverCheckpoint(dir);
    try {
        const wb::RunRecord record = wb::loadRunFolder(dir);
        FUZZ_CHECK(!record.info.id.empty());
        (void)record.label();
        const auto rows = wb::compareRuns({record, record}, 1.0);
        FUZZ_CHECK(rows.size() == 2);
        const std::string csv = wb::comparisonCsv({record});
        // What loadRunFolder accepted, comparisonCsv writes as a metrics.csv that reads back the same.
        std::string id;
        const auto metrics = wb::parseMetricsCsv(csv, "comparison.csv", &id);
        FUZZ_CHECK(metrics.size() == record.metrics.size());
        if (!metrics.empty()) FUZZ_CHECK(id == record.info.id);
    } catch (const wb::InputError& e) {
        checkInputError(e, dir);
    }
    try {
        std::vector<std::string> classes;
        const wb::Vocabulary vocab = wb::readVocabularyFile((root / "vocab.json").string(), &classes);
        FUZZ_CHECK(vocab.size() >= static_cast<std::size_t>(wb::Vocabulary::kNumSpecial));
        for (const auto& t : vocab.tokens()) FUZZ_CHECK(wb::isValidUtf8(t));
        FUZZ_CHECK(wb::Vocabulary::fromJson(vocab.toJson(), "vocab.json (written back)") == vocab);
        // What the vocabulary file writer does with it (resume writes vocab.json again).
        (void)wb::vocabularyFileJson(vocab, classes);
        (void)vocab.decode(vocab.encode("a b\xE6\x98\xA5 c"));
    } catch (const wb::InputError& e) {
        checkInputError(e, dir);
    }
    for (const char* name : {"optimizer.safetensors", "model.safetensors"}) {
        const std::string path = (root / name).string();
        try {
            const auto file = wb::safetensors::read(path);
            const auto progress = wb::ProgressState::fromMetadata(file.metadata, path);
            (void)progress.summary(1000, 64);
        } catch (const wb::InputError& e) {
            checkInputError(e, dir);
        }
    }
    return 0;
}
