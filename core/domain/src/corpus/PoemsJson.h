// chinese-poetry JSON (an array of {"title", "author", "paragraphs": [...]}) read with a streaming (SAX)
// parser straight into documents: the Tang corpus is 16 MB, and a DOM would allocate a node per value.
#pragma once

#include <string>
#include <vector>

#include "workbench/domain/Corpus.h"

namespace wb::detail {

// Throws InputError(sourceName, …): invalid JSON with its line, the wrong shape with the element index.
std::vector<Document> parsePoemsJson(const std::string& text, const std::string& sourceName);

}  // namespace wb::detail
