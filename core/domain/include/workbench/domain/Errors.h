// Error types of the core facade. The CLI maps InputError to exit code 2 and anything else to exit code 1;
// the GUI shows what() in a dialog. Messages are one line and name the file (and line) where it applies.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb {

// Bad input from the user: a corpus, a config value, a run folder, a checkpoint. Nothing was written.
class InputError : public std::runtime_error {
public:
    // file may be empty (e.g. a bad option value); line 0 and byteOffset -1 mean "not applicable".
    InputError(std::string file, std::int64_t line, std::string message, std::int64_t byteOffset = -1);
    explicit InputError(std::string message) : InputError({}, 0, std::move(message)) {}

    const std::string& file() const { return m_file; }
    std::int64_t line() const { return m_line; }
    std::int64_t byteOffset() const { return m_byteOffset; }
    // The message without the "file:line: " prefix.
    const std::string& reason() const { return m_reason; }

private:
    std::string m_file;
    std::int64_t m_line = 0;
    std::int64_t m_byteOffset = -1;
    std::string m_reason;
};

// What starts each error line the CLI writes to stderr: "lstm-workbench-cli: error: MESSAGE". Programs that
// run the CLI parse it to find the message (the app's time estimate and Sweep tab, a sweep reading its cells'
// errors), so it is spelled here once.
inline constexpr const char* kCliErrorPrefix = "lstm-workbench-cli: error: ";

// Training went wrong in a way the input did not cause up front (NaN loss, out of memory, a failed write).
class TrainingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace wb
