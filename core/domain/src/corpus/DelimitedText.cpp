// A single-pass RFC 4180 reader. Fields are appended byte ranges, never characters one by one.
#include "corpus/DelimitedText.h"

#include "workbench/domain/Errors.h"

namespace wb::detail {
namespace {

bool blankRow(const DelimitedRow& row, bool anyQuoted) {
    if (anyQuoted || row.fields.size() != 1) return false;
    return row.fields[0].find_first_not_of(" \t") == std::string::npos;
}

}  // namespace

std::vector<DelimitedRow> parseDelimited(std::string_view text, char delimiter,
                                         const std::string& sourceName) {
    std::vector<DelimitedRow> rows;
    const std::size_t n = text.size();
    std::size_t i = 0;
    std::int64_t line = 1;
    while (i < n) {
        DelimitedRow row;
        row.line = line;
        bool anyQuoted = false;
        // One iteration per field; the row ends at '\n' or the end of the text.
        while (true) {
            std::string field;
            if (i < n && text[i] == '"') {
                anyQuoted = true;
                const std::int64_t quoteLine = line;
                ++i;
                while (true) {
                    const std::size_t q = text.find('"', i);
                    if (q == std::string_view::npos)
                        throw InputError(sourceName, quoteLine,
                                         "unterminated quoted field (expected a closing '\"')");
                    for (std::size_t k = i; k < q; ++k)
                        if (text[k] == '\n') ++line;
                    field.append(text.data() + i, q - i);
                    i = q + 1;
                    if (i < n && text[i] == '"') {  // doubled quote = one literal quote
                        field.push_back('"');
                        ++i;
                        continue;
                    }
                    break;
                }
                if (i < n && text[i] != delimiter && text[i] != '\n') {
                    // Tolerate trailing spaces after the closing quote; anything else is malformed.
                    std::size_t k = i;
                    while (k < n && (text[k] == ' ' || text[k] == '\t') && text[k] != delimiter) ++k;
                    if (k < n && text[k] != delimiter && text[k] != '\n')
                        throw InputError(
                            sourceName, line,
                            std::string("unexpected character '") + text[k] +
                                "' after a closing quote (expected a delimiter or the end of the line)");
                    i = k;
                }
            } else {
                std::size_t end = i;
                while (end < n && text[end] != delimiter && text[end] != '\n') ++end;
                field.assign(text.data() + i, end - i);
                i = end;
            }
            row.fields.push_back(std::move(field));
            if (i < n && text[i] == delimiter) {
                ++i;
                continue;
            }
            if (i < n && text[i] == '\n') {
                ++i;
                ++line;
            }
            break;
        }
        if (!blankRow(row, anyQuoted)) rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace wb::detail
