// The rules the Python package (python/lstm_workbench) follows that the C++ owns, as one JSON document:
// every config.json field (its section, key, type, initial value, range, label and whether it shapes the
// model), the validation batch rule, the vocabulary's special tokens and the run folder's format version.
// `lstm-workbench-cli rules` prints it; python/lstm_workbench/rules.json is that output (the ctest
// python_rules_check says when it is not), and the package reads its defaults, ranges and keys from there,
// so a changed default reaches Python without an edit to its code.
#pragma once

#include <string>
#include <vector>

#include "workbench/domain/ConfigFields.h"

namespace wb {

std::string packageRulesJson(const std::vector<ConfigField>& fields = configFields());

}  // namespace wb
