// Reading one corpus file with the checks every format shares: it exists, is a regular non-empty file,
// holds no NUL byte (binary data) and is valid UTF-8. Line endings come back normalised to '\n'.
#pragma once

#include <string>

namespace wb::detail {

// Returns the file's text without BOM, CRLF and lone CR turned into '\n'. Throws InputError naming path.
std::string readCorpusText(const std::string& path);

// Same checks for bytes already in memory (sourceName is used in messages).
std::string normaliseCorpusBytes(std::string bytes, const std::string& sourceName);

}  // namespace wb::detail
