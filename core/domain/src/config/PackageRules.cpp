// The Python package's rules (see workbench/domain/PackageRules.h).
#include "workbench/domain/PackageRules.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "workbench/domain/Config.h"
#include "workbench/domain/FormatVersion.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

namespace {

using nlohmann::json;

// The field's initial value as its JSON type (config.json writes it so).
json initialValue(const ConfigField& f) {
    ExperimentConfig c;  // the table's initial values
    f.set(c, f.initial);
    switch (f.type) {
        case FieldType::Integer:
            return f.integer(c);
        case FieldType::UnsignedInteger:
            return f.unsignedInteger(c);
        case FieldType::Number:
            return f.number(c);
        case FieldType::Boolean:
            return f.boolean(c);
        default:
            return f.get(c);
    }
}

const char* typeName(FieldType t) {
    switch (t) {
        case FieldType::Integer:
        case FieldType::UnsignedInteger:
            return "integer";
        case FieldType::Number:
            return "number";
        case FieldType::Boolean:
            return "boolean";
        case FieldType::Choice:
            return "choice";
        default:
            return "text";
    }
}

// A bound of the field's range in its type; null where it has none.
json bound(const ConfigField& f, double v) {
    if (!std::isfinite(v)) return nullptr;
    if (f.type == FieldType::Integer || f.type == FieldType::UnsignedInteger)
        return static_cast<std::int64_t>(v);
    return v;
}

}  // namespace

std::string packageRulesJson(const std::vector<ConfigField>& fields) {
    json list = json::array();
    for (const auto& f : fields) {
        json row = {{"section", f.section},       {"key", f.key},           {"type", typeName(f.type)},
                    {"initial", initialValue(f)}, {"label", f.label},       {"shapes_model", f.shapesModel},
                    {"min", bound(f, f.min)},     {"max", bound(f, f.max)}, {"min_open", f.minOpen},
                    {"max_open", f.maxOpen}};
        if (f.type == FieldType::Choice) row["choices"] = f.choices;
        list.push_back(row);
    }
    json specials = json::array();
    for (std::int64_t id = 0; id < Vocabulary::kNumSpecial; ++id)
        specials.push_back(Vocabulary::specialToken(id));
    return json{{"config_fields", list},
                {"validation_batch_at_least", kMinValidationBatch},
                {"special_tokens", specials},
                {"format_version", {kFormatVersion.major, kFormatVersion.minor}}}
               .dump(1) +
           "\n";
}

}  // namespace wb
