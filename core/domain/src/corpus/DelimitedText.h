// RFC 4180 rows (quoted fields, doubled quotes, newlines inside quotes) with a chosen delimiter: tab for
// TSV, comma for CSV. Each row remembers the line it starts on, for error messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb::detail {

struct DelimitedRow {
    std::int64_t line = 0;  // 1-based line where the row starts
    std::vector<std::string> fields;
};

// Parses text whose line endings are already '\n'. Rows that are empty or only whitespace are skipped.
// Throws InputError(sourceName, line, …) for an unterminated quote or text after a closing quote.
std::vector<DelimitedRow> parseDelimited(std::string_view text, char delimiter,
                                         const std::string& sourceName);

}  // namespace wb::detail
