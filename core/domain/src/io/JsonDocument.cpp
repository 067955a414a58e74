// JSON parse errors turned into one-line InputErrors with the line where the parser stopped.
#include "io/JsonDocument.h"

#include <algorithm>
#include <cmath>

#include "workbench/domain/Errors.h"

namespace wb::detail {

std::int64_t lineOfOffset(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

void checkJsonNesting(const std::string& text, const std::string& sourceName) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;  // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                throw InputError(sourceName, lineOfOffset(text, i),
                                 "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                 static_cast<std::int64_t>(i));
        } else if (c == ']' || c == '}') {
            --depth;  // unbalanced brackets are the parser's to report
        }
    }
}

nlohmann::json parseJsonDocument(const std::string& text, const std::string& sourceName) {
    checkJsonNesting(text, sourceName);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based position of the last character read; the error is at or just before it.
        const std::size_t pos = e.byte > 0 ? e.byte - 1 : 0;
        // Keep nlohmann's explanation but drop its "[json.exception…] parse error at line L, column C: "
        // prefix: the file and line come first in our own format.
        std::string what = e.what();
        const auto prefixEnd = what.find(": ");
        std::string detail = prefixEnd == std::string::npos ? what : what.substr(prefixEnd + 2);
        throw InputError(sourceName, lineOfOffset(text, pos), "invalid JSON: " + detail,
                         static_cast<std::int64_t>(pos));
    } catch (const nlohmann::json::exception& e) {
        // The parser throws out_of_range (406) for a number too large for a double, e.g. 1e400, with no
        // position; the message quotes the number.
        std::string what = e.what();
        const auto prefixEnd = what.find("] ");
        throw InputError(
            sourceName, 0,
            "invalid JSON: " + (prefixEnd == std::string::npos ? what : what.substr(prefixEnd + 2)));
    }
}

std::string jsonTypeName(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::object:
            return "an object";
        case nlohmann::json::value_t::array:
            return "an array";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
            return "an integer";
        case nlohmann::json::value_t::number_float:
            return "a number";
        default:
            return "something else";
    }
}

std::optional<std::int64_t> jsonInteger(const nlohmann::json& value, std::int64_t lo, std::int64_t hi) {
    std::int64_t out = 0;
    if (value.is_number_unsigned()) {
        if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(hi) || hi < 0) return std::nullopt;
        out = static_cast<std::int64_t>(value.get<std::uint64_t>());
    } else if (value.is_number_integer()) {
        out = value.get<std::int64_t>();
    } else if (value.is_number_float()) {
        const double d = value.get<double>();
        // 2^53 bounds the doubles whose every neighbour is a whole number too; no field here comes near it.
        if (!(std::fabs(d) < 9e15) || d != std::floor(d)) return std::nullopt;
        out = static_cast<std::int64_t>(d);
    } else {
        return std::nullopt;
    }
    if (out < lo || out > hi) return std::nullopt;
    return out;
}

const nlohmann::json& requiredMember(const nlohmann::json& j, const char* key, const std::string& source) {
    const auto it = j.find(key);
    if (it == j.end()) throw InputError(source, 0, std::string("missing \"") + key + "\"");
    return *it;
}

}  // namespace wb::detail
