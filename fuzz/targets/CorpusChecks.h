// What every loaded corpus must satisfy, checked after each successful load in the corpus targets; the
// statistics and preview functions run on it too, since they trust the loader's validation.
#pragma once

#include <algorithm>
#include <string>

#include "FuzzSupport.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Utf8.h"

namespace fuzz {

// rawText: the documents are the file's bytes (not JSON strings, where "\u0000" and "\r" are legal).
inline void checkCorpus(const wb::Corpus& corpus, bool labelled, bool rawText = true) {
    FUZZ_CHECK(!corpus.documents.empty());
    for (const auto& d : corpus.documents) {
        FUZZ_CHECK(wb::isValidUtf8(d.text));
        FUZZ_CHECK(wb::isValidUtf8(d.label));
        FUZZ_CHECK(wb::isValidUtf8(d.title));
        FUZZ_CHECK(wb::isValidUtf8(d.author));
        if (rawText) {
            FUZZ_CHECK(d.text.find('\0') == std::string::npos);
            FUZZ_CHECK(d.text.find('\r') == std::string::npos);
        }
    }
    FUZZ_CHECK(corpus.labelled() == labelled);
    if (labelled) {
        FUZZ_CHECK(corpus.classes.size() >= 2);
        FUZZ_CHECK(std::is_sorted(corpus.classes.begin(), corpus.classes.end()));
        FUZZ_CHECK(std::adjacent_find(corpus.classes.begin(), corpus.classes.end()) == corpus.classes.end());
        for (const auto& d : corpus.documents) FUZZ_CHECK(corpus.classIndex(d.label) >= 0);
    }
    const auto stats = wb::computeStats(corpus);
    FUZZ_CHECK(stats.documents == static_cast<std::int64_t>(corpus.documents.size()));
    FUZZ_CHECK(stats.minDocumentChars <= stats.maxDocumentChars);
    for (const auto& d : wb::previewDocuments(corpus, 3, 5)) FUZZ_CHECK(wb::isValidUtf8(d.text));
}

}  // namespace fuzz
