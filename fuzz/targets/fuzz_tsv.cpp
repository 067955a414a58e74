// loadCorpus(path, CorpusFormat::Tsv) on a file holding the fuzz input: labelled TSV (label<TAB>text rows,
// optional header, RFC 4180 quotes). Bad input must end in InputError naming the file; a corpus that loads
// must pass checkCorpus.
#include <cstddef>
#include <cstdint>

#include "CorpusChecks.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = fuzz::writeScratchFile("corpus.tsv", data, size);
    try {
        const wb::Corpus corpus = wb::loadCorpus(path, wb::CorpusFormat::Tsv);
        fuzz::checkCorpus(corpus, true);
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file() == path);
    }
    return 0;
}
