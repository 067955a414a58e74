// Device strings, parsed once, and the config's device rows as one DeviceSpec.
#include "workbench/domain/DeviceSpec.h"

#include <regex>

#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"

namespace wb {

std::optional<DeviceSpec> DeviceSpec::tryParse(const std::string& text) {
    static const std::regex cpuRe(R"(cpu(?::(\d{1,4}))?)"), cudaRe(R"(cuda(?::(\d{1,3}))?)");
    std::smatch m;
    DeviceSpec spec;
    if (std::regex_match(text, m, cpuRe)) {
        spec.kind = Kind::Cpu;
        if (m[1].matched) spec.threads = std::stol(m[1].str());
        if (m[1].matched && spec.threads < 1) return std::nullopt;
        return spec;
    }
    if (std::regex_match(text, m, cudaRe)) {
        spec.kind = Kind::Cuda;
        spec.index = m[1].matched ? std::stoi(m[1].str()) : 0;
        return spec;
    }
    return std::nullopt;
}

DeviceSpec DeviceSpec::parse(const std::string& text) {
    if (auto spec = tryParse(text)) return *spec;
    if (text.rfind("cpu:", 0) == 0 && text.find_first_not_of('0', 4) == std::string::npos && text.size() > 4)
        throw InputError("device '" + text + "': the thread count must be at least 1");
    throw InputError("device '" + text + "': expected cpu, cpu:THREADS or cuda:N");
}

std::string DeviceSpec::id() const { return isCpu() ? "cpu" : "cuda:" + std::to_string(index); }

std::string DeviceSpec::text() const {
    return isCpu() && threads > 0 ? "cpu:" + std::to_string(threads) : id();
}

bool isCpuDevice(const std::string& text) {
    const auto spec = DeviceSpec::tryParse(text);
    return spec && spec->isCpu();
}

}  // namespace wb
