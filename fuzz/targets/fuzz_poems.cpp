// loadCorpus(path, CorpusFormat::Poems) on a file holding the fuzz input: chinese-poetry JSON (an array of
// {title, author, paragraphs}), read by the streaming parser. Bad input must end in InputError naming the
// file; a corpus that loads must pass checkCorpus.
#include <cstddef>
#include <cstdint>

#include "CorpusChecks.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = fuzz::writeScratchFile("corpus.json", data, size);
    try {
        const wb::Corpus corpus = wb::loadCorpus(path, wb::CorpusFormat::Poems);
        fuzz::checkCorpus(corpus, false, /*rawText=*/false);
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file() == path);
    }
    return 0;
}
