// The word tokenizer behind tokenizeWords(), as a visitor: statistics over a whole corpus can count tokens
// without allocating a vector of strings per document.
#pragma once

#include <functional>
#include <string_view>

namespace wb::detail {

// Calls visit once per word token of tokenizeWords(), in order. The view is valid only during the call.
void forEachWordToken(std::string_view utf8, const std::function<void(std::string_view)>& visit);

}  // namespace wb::detail
