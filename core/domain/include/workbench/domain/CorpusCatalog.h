// Prepared corpora (datasets/): found by name in a cache folder, each with a manifest.json that records
// its source package, version, licence, counts and checksum. Lets the CLI and app say "tang-quatrains-7".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/domain/Corpus.h"

namespace wb {

struct CatalogEntry {
    std::string name;      // "tang-quatrains-7"
    std::string dir;       // the corpus's folder in the cache
    std::string dataPath;  // what loadCorpus() takes (file or folder)
    CorpusFormat format = CorpusFormat::Auto;
    std::string description;
    std::string sourcePackage;  // "npm:chinese-poetry"
    std::string sourceVersion;
    std::string license;
    std::string checksum;  // "sha256:…" of the prepared data
    std::int64_t documents = 0;
    std::string manifestJson;  // the whole manifest, for display
};

// $LSTM_WORKBENCH_DATA, else $XDG_CACHE_HOME/lstm-workbench/corpora, else ~/.cache/lstm-workbench/corpora.
std::string corporaCacheDir();
std::vector<CatalogEntry> listPreparedCorpora();
std::optional<CatalogEntry> findPreparedCorpus(const std::string& name);
// An existing path is returned as is; a catalog name gives its dataPath; anything else throws InputError
// that says how to prepare it.
std::string resolveCorpusPath(const std::string& pathOrName);

}  // namespace wb
