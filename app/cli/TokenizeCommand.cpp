// `lstm-workbench-cli tokenize CORPUS`: the corpus tokenized into its token store ahead of training.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "ProgressPrinter.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/TokenStore.h"

using nlohmann::json;

int runTokenize(const wb::ExperimentConfig& config, const std::string& corpus, bool json, bool quiet) {
    ProgressPrinter progress(quiet || json);
    const auto store = wb::TokenStore::forCorpusFile(wb::resolveCorpusPath(corpus), config.data,
                                                     wb::tokenStoreDir(wb::corporaCacheDir()),
                                                     [&](std::uint64_t done, std::uint64_t total) {
                                                         progress.tokenizing(corpus, done, total);
                                                         return true;
                                                     });
    progress.finish();
    const auto& info = store->info();
    const double rate =
        !info.reused && info.seconds > 0 ? static_cast<double>(info.sourceBytes) / info.seconds : 0;
    if (json) {
        std::cout << json::object({{"corpus", corpus},
                                   {"store", info.path},
                                   {"reused", info.reused},
                                   {"seconds", info.seconds},
                                   {"source_bytes", info.sourceBytes},
                                   {"bytes_per_second", rate},
                                   {"checksum", info.checksum},
                                   {"documents", store->documentCount()},
                                   {"tokens", store->tokenCount()},
                                   {"vocabulary", store->vocabulary().size()},
                                   {"classes", store->classes()}})
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf(
        "%s: %s; %s tokens in %s documents, a vocabulary of %zu\n  %s\n", corpus.c_str(),
        info.reused
            ? ("its token store was there (opened in " + wb::clockDuration(info.seconds) + ")").c_str()
            : (wb::humanBytes(static_cast<double>(info.sourceBytes)) + " tokenized in " +
               wb::clockDuration(info.seconds) + ", " + wb::humanBytes(rate) + "/s")
                  .c_str(),
        wb::humanCount(static_cast<double>(store->tokenCount())).c_str(),
        wb::humanCount(static_cast<double>(store->documentCount())).c_str(), store->vocabulary().size(),
        info.path.c_str());
    return 0;
}
