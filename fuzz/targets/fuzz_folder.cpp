// loadCorpus(dir, CorpusFormat::Folder) on a folder built from the fuzz input, read as a tiny archive:
// entries separated by the byte 0x01, each "PATH\nCONTENT". PATH is relative ("pos/a.txt"; '/' separates
// at most 3 components, "", "." and ".." are dropped); PATH "@LINK" makes a symbolic link whose target is
// CONTENT, taken as a path inside the archive (so links to folders, loops and dangling links occur, but
// nothing outside the scratch folder is ever reached). A PATH ending in '/' makes an empty folder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "CorpusChecks.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"

namespace {

// The sanitised relative path, empty when nothing is left of it.
fuzz::fs::path relativePath(std::string_view raw) {
    fuzz::fs::path out;
    int components = 0;
    for (auto part : fuzz::split(raw, '/', 64)) {
        std::string name;
        for (char c : part.substr(0, 200))
            if (c != '\0') name.push_back(c);
        if (name.empty() || name == "." || name == "..") continue;
        if (++components > 3) break;
        out /= name;
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::fs::path root = fuzz::freshDir("folder");
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    for (auto entry : fuzz::split(input, '\x01', 24)) {
        const auto nl = entry.find('\n');
        std::string_view path = entry.substr(0, nl);
        const std::string_view content =
            nl == std::string_view::npos ? std::string_view() : entry.substr(nl + 1);
        const bool link = !path.empty() && path[0] == '@';
        if (link) path.remove_prefix(1);
        const bool folder = !path.empty() && path.back() == '/';
        const auto rel = relativePath(path);
        if (rel.empty()) continue;
        const auto target = root / rel;
        std::error_code ec;
        fuzz::fs::create_directories(target.parent_path(), ec);
        if (ec) continue;  // a file already sits where a folder should be
        if (fuzz::fs::symlink_status(target, ec).type() != fuzz::fs::file_type::not_found) continue;
        if (link) {
            fuzz::fs::create_symlink(root / relativePath(content.substr(0, content.find('\n'))), target, ec);
        } else if (folder) {
            fuzz::fs::create_directory(target, ec);
        } else {
            fuzz::writeFile(target, content);
        }
    }
    try {
        const wb::Corpus corpus = wb::loadCorpus(root.string(), wb::CorpusFormat::Folder);
        fuzz::checkCorpus(corpus, true);
        for (const auto& d : corpus.documents) FUZZ_CHECK(!d.title.empty());
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file().rfind(root.string(), 0) == 0);
    }
    return 0;
}
