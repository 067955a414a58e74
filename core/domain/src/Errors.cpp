// The one-line messages of the facade's error types: "FILE:LINE: reason", so a terminal, a log line and a
// dialog all show where the problem is without wrapping.
#include "workbench/domain/Errors.h"

#include <utility>

namespace wb {
namespace {

// A message must stay on one line: a reason quoting bad input may contain newlines or carriage returns.
std::string oneLine(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

std::string composeMessage(const std::string& file, std::int64_t line, const std::string& reason) {
    if (file.empty()) return reason;
    if (line > 0) return file + ":" + std::to_string(line) + ": " + reason;
    return file + ": " + reason;
}

}  // namespace

InputError::InputError(std::string file, std::int64_t line, std::string message, std::int64_t byteOffset)
    : std::runtime_error(composeMessage(oneLine(file), line, oneLine(message))),
      m_file(std::move(file)),
      m_line(line),
      m_byteOffset(byteOffset),
      m_reason(oneLine(std::move(message))) {}

}  // namespace wb
