// Reading and writing "format_version" in a run folder's JSON files (workbench/domain/FormatVersion.h), and
// the warning for fields a reader does not know.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workbench/domain/FormatVersion.h"

namespace wb::detail {

// The file's version: 1.0 when it has none. Throws InputError(source, …) when the version is not
// "MAJOR.MINOR" or its major is newer than kFormatVersion's, naming both versions and the program that wrote
// it.
FormatVersion readFormatVersion(const nlohmann::json& file, const std::string& source);
// Adds "format_version" (kFormatVersion) and "written_by" to a file's object.
void stampFormatVersion(nlohmann::json& file);
// One warning per key of `object` outside `known` (at the top level, the version keys are known): "source:
// unknown field 'where.key' (ignored: …)", appended to warnings when given.
void noteUnknownFields(const nlohmann::json& object, const std::vector<std::string>& known,
                       const std::string& where, const std::string& source,
                       std::vector<std::string>* warnings);

}  // namespace wb::detail
