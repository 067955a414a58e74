// ASCII blanks as the corpus readers trim them (a line's end, a field's edges): shared by the whole-file
// loaders (CorpusLoader.cpp) and the readers of corpora larger than memory (DocumentParts.cpp), which must
// cut documents alike.
#pragma once

#include <string_view>

namespace wb::detail {

inline bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f'; }

inline std::string_view trimRight(std::string_view s) {
    while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace wb::detail
