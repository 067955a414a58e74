// Parsing JSON text from a user's file with errors that name the file and line (nlohmann reports a byte
// position; people look for lines). Shared by the corpus, config, vocabulary and run-folder readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wb::detail {

// Throws InputError(sourceName, line, "invalid JSON: …") when text is not JSON, or nests deeper than
// kMaxJsonDepth.
nlohmann::json parseJsonDocument(const std::string& text, const std::string& sourceName);

// nlohmann's parser keeps its nesting on the heap, but dump(), copies and comparisons of the document recurse
// once per level: 60,000 nested brackets overflow an 8 MB stack. No file of the project nests deeper than 4.
inline constexpr int kMaxJsonDepth = 256;
// Throws InputError(sourceName, line, …) at the first bracket deeper than kMaxJsonDepth (one linear pass;
// brackets inside strings do not count).
void checkJsonNesting(const std::string& text, const std::string& sourceName);

// The 1-based line of a byte position (count of '\n' before it, plus one).
std::int64_t lineOfOffset(const std::string& text, std::size_t offset);

// The member `key` of the object j; throws InputError(source, 0, "missing \"key\"") when it has none.
const nlohmann::json& requiredMember(const nlohmann::json& j, const char* key, const std::string& source);

// "object", "array", "string", "number", … for messages like "expected a string, found a number".
std::string jsonTypeName(const nlohmann::json& value);

// The whole number a JSON value holds when it lies in [lo, hi] ("64.0" written by another tool counts), else
// nullopt. Reading a field with get<int>() is not enough: on 6.7e108 it is undefined behaviour, not an error.
std::optional<std::int64_t> jsonInteger(const nlohmann::json& value, std::int64_t lo, std::int64_t hi);

}  // namespace wb::detail
