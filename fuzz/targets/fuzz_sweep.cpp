// Sweep::fromJson on the fuzz input as sweep.json text (what `sweep SWEEP_DIR` and the app's Sweep tab read
// before they touch anything): bad input is an InputError naming sweep.json; a sweep that loads has run
// folders inside its runs/ (the sweep removes a cell's folder before redoing it), survives toJson ->
// fromJson unchanged, and describes and configures every cell without throwing anything else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const wb::Sweep sweep = wb::Sweep::fromJson(text, "sweep.json");
        for (const auto& cell : sweep.cells) {
            FUZZ_CHECK(cell.runDir.rfind("runs/", 0) == 0 && cell.runDir.find("..") == std::string::npos);
            (void)sweep.describe(cell);
            try {
                (void)sweep.cellConfig(cell);
            } catch (const wb::InputError&) {
                // a value the base config cannot take: the cell's own error, said when it would train
            }
        }
        const std::string json = sweep.toJson();
        FUZZ_CHECK(wb::Sweep::fromJson(json, "sweep.json (written back)").toJson() == json);
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file() == "sweep.json");
    }
    return 0;
}
