// ExperimentConfig::fromJson on the fuzz input as config.json text, then validate(). A config that
// validates must survive toJson -> fromJson unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const wb::ExperimentConfig config = wb::ExperimentConfig::fromJson(text, "config.json");
        const auto problems = config.validate();
        if (problems.empty()) {
            const std::string json = config.toJson();
            const auto again = wb::ExperimentConfig::fromJson(json, "config.json (written back)");
            FUZZ_CHECK(again.toJson() == json);
            FUZZ_CHECK(again.validate().empty());
        } else {
            try {
                config.ensureValid();
                FUZZ_CHECK(!"ensureValid accepted a config with problems");
            } catch (const wb::InputError&) {
            }
        }
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file() == "config.json");
    }
    return 0;
}
