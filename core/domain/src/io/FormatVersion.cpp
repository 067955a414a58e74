// Run folders' format versions (see io/FormatVersion.h).
#include "io/FormatVersion.h"

#include <algorithm>

#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"

namespace wb {

std::string toString(const FormatVersion& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor);
}

std::string writtenBy() { return std::string("LSTM Workbench ") + WORKBENCH_VERSION; }

namespace detail {

namespace {
constexpr const char* kVersionKey = "format_version";
constexpr const char* kWrittenByKey = "written_by";

bool parseVersion(const std::string& text, FormatVersion& v) {
    const auto dot = text.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == text.size() || text.size() > 16) return false;
    const auto digits = [](const std::string& s) {
        return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const auto major = text.substr(0, dot), minor = text.substr(dot + 1);
    if (!digits(major) || !digits(minor)) return false;
    v.major = std::stoll(major);
    v.minor = std::stoll(minor);
    return true;
}
}  // namespace

FormatVersion readFormatVersion(const nlohmann::json& file, const std::string& source) {
    FormatVersion v;  // 1.0: written before versions
    if (!file.is_object() || !file.contains(kVersionKey)) return v;
    const auto& field = file[kVersionKey];
    if (!field.is_string() || !parseVersion(field.get<std::string>(), v))
        throw InputError(source, 0,
                         std::string(kVersionKey) + ": expected \"MAJOR.MINOR\" (such as \"" +
                             toString(kFormatVersion) + "\"), found " + field.dump());
    if (v.major > kFormatVersion.major) {
        std::string by = "a newer program";
        if (file.contains(kWrittenByKey) && file[kWrittenByKey].is_string())
            by = file[kWrittenByKey].get<std::string>();
        throw InputError(source, 0,
                         "written in format " + toString(v) + " by " + by + "; this program (" + writtenBy() +
                             ") reads formats up to " + std::to_string(kFormatVersion.major) +
                             ".x: open it with a newer LSTM Workbench");
    }
    return v;
}

void stampFormatVersion(nlohmann::json& file) {
    file[kVersionKey] = toString(kFormatVersion);
    file[kWrittenByKey] = writtenBy();
}

void noteUnknownFields(const nlohmann::json& object, const std::vector<std::string>& known,
                       const std::string& where, const std::string& source,
                       std::vector<std::string>* warnings) {
    if (!warnings || !object.is_object()) return;
    for (const auto& [key, value] : object.items()) {
        if (where.empty() && (key == kVersionKey || key == kWrittenByKey)) continue;
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        warnings->push_back(source + ": unknown field '" + (where.empty() ? key : where + "." + key) +
                            "' (ignored: this program does not know what it means)");
    }
}

}  // namespace detail
}  // namespace wb
