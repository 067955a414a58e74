// A corpus file's token store in the corpus cache (see workbench/domain/TokenStore.h): the key and file name
// of its settings, the source's stamp that says whether it changed, and the tokenization into temporary files
// that are renamed into place, the .json last; the store is then opened as any other.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "corpus/TokenStoreBuilder.h"
#include "io/PosixFile.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/TokenStore.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace wb {
namespace {

template <typename T>
void writeVector(const std::string& path, const std::vector<T>& v) {
    const detail::FileDescriptor fd(detail::openForWriting(path));
    writeStoreBytes(fd.get(), reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T), 0);
    syncStoreFile(fd.get());
}

// The temporary files of one tokenization, removed unless committed.
class PartialFiles {
public:
    explicit PartialFiles(std::string stem) : m_stem(std::move(stem)) {
        m_partial = m_stem + ".partial-" + std::to_string(getpid());
        removeDeadPartials();
    }
    ~PartialFiles() {
        if (m_committed) return;
        std::error_code ec;
        for (const char* ext : kExtensions) fs::remove(m_partial + ext, ec);
    }
    std::string partial(const char* ext) const { return m_partial + ext; }
    // Renames the partial files into place, the .json last: from then on the store exists.
    void commit() {
        std::error_code ec;
        fs::remove(m_stem + ".json", ec);  // an old store is gone before its files are replaced
        for (const char* ext : kExtensions) {
            if (fs::exists(partial(ext), ec))
                fs::rename(partial(ext), m_stem + ext);
            else
                fs::remove(m_stem + ext, ec);
        }
        m_committed = true;
    }

private:
    static constexpr const char* kExtensions[] = {".ids", ".docs", ".labels", ".json"};

    // Partial files of tokenizations whose process is gone (killed, or the machine went down), and the stores
    // of sources that are gone (a test's temporary corpus, a deleted download): nothing else removes them.
    void removeDeadPartials() const {
        std::error_code ec;
        std::vector<fs::path> orphans;
        for (const auto& entry : fs::directory_iterator(fs::path(m_stem).parent_path(), ec)) {
            const auto name = entry.path().filename().string();
            const auto at = name.find(".partial-");
            if (at != std::string::npos) {
                const auto pid = std::atol(name.c_str() + at + 9);
                if (pid > 0 && pid != getpid() && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                    orphans.push_back(entry.path());
            } else if (entry.path().extension() == ".json" && !sourceExists(entry.path())) {
                for (const char* ext : kExtensions)
                    orphans.push_back(fs::path(entry.path()).replace_extension(ext));
            }
        }
        for (const auto& path : orphans) fs::remove(path, ec);
    }
    static bool sourceExists(const fs::path& json) {
        try {
            std::error_code ec;
            return fs::exists(json::parse(readFile(json.string())).at("source").at("path").get<std::string>(),
                              ec);
        } catch (const std::exception&) {
            return true;  // not ours to judge
        }
    }

    std::string m_stem, m_partial;
    bool m_committed = false;
};

// What a store is made from: the source and the settings that change its vocabulary or its ids.
// The corpus loader's rules: a cached store skips the loader, so one built before the loader refused
// something (2: a classifier's labels nearly all different, the columns the other way round) must not be
// found again.
constexpr int kLoaderRules = 2;

std::string settingsKey(const std::string& absolute, CorpusFormat format, const DataConfig& data) {
    return absolute + "\n" + toString(format) + "\n" + toString(data.tokens) + "\n" +
           std::to_string(vocabularyLimit(data)) + "\n" + std::to_string(data.minCount) + "\nrules " +
           std::to_string(kLoaderRules);
}

// The store's files without their extensions: the source's name, readable, and a hash of the key.
std::string stemFor(const std::string& dir, const std::string& absolute, const std::string& key) {
    std::string base = fs::path(absolute).filename().string();
    for (auto& c : base)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
    if (base.size() > 40) base.resize(40);
    return (fs::path(dir) / (base + "-" + hex16(fnvWords(kFnvOffset, key.data(), key.size())))).string();
}

struct SourceStamp {
    std::uint64_t bytes = 0;
    std::int64_t modifiedNs = 0;
};

// A file's size and modification time; a folder's (one sub-folder per class) are its files' total and the
// latest of its files' and folders' times, so that an edited, added or removed file is a change.
SourceStamp stampOf(const std::string& path, CorpusFormat format) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError(path, 0, "no such file");
    auto nanoseconds = [](const struct stat& s) {
        return static_cast<std::int64_t>(s.st_mtim.tv_sec) * 1000000000 +
               static_cast<std::int64_t>(s.st_mtim.tv_nsec);
    };
    SourceStamp stamp{static_cast<std::uint64_t>(st.st_size), nanoseconds(st)};
    if (format != CorpusFormat::Folder) return stamp;
    stamp.bytes = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat entry {};
        if (::stat(it->path().c_str(), &entry) != 0) continue;
        if (S_ISREG(entry.st_mode)) stamp.bytes += static_cast<std::uint64_t>(entry.st_size);
        stamp.modifiedNs = std::max(stamp.modifiedNs, nanoseconds(entry));
    }
    return stamp;
}

// The store's .json (a partial file like the others, not writeFileAtomic, whose failpoints test run folders:
// the store's commit is the rename of its .json).
void writeMetadata(const std::string& file, const std::string& key, const std::string& absolute,
                   const SourceStamp& stamp, CorpusFormat format, const DataConfig& data,
                   const TokenStore& built, const std::vector<std::string>& classes) {
    const json meta = {
        {"format", "lstm-workbench token store"},
        {"version", 1},
        {"key", key},
        {"source",
         {{"path", absolute},
          {"bytes", stamp.bytes},
          {"modified_ns", stamp.modifiedNs},
          {"checksum", built.info().checksum}}},
        {"corpus_format", toString(format)},
        {"tokens_level", toString(data.tokens)},
        {"vocab_size", vocabularyLimit(data)},
        {"min_count", data.minCount},
        {"vocabulary", json::parse(built.vocabulary().toJson())},
        {"classes", classes},
        {"documents", built.documentCount()},
        {"tokens", built.tokenCount()},
        {"id_bytes", built.idBytes()},
        {"labelled", built.labelled()},
        {"tokenize_seconds", built.info().seconds},
    };
    const auto text = meta.dump(1);
    const detail::FileDescriptor fd(detail::openForWriting(file));
    writeStoreBytes(fd.get(), text.data(), text.size(), 0);
    syncStoreFile(fd.get());
}

}  // namespace

std::shared_ptr<const TokenStore> TokenStore::forCorpusFile(const std::string& path, const DataConfig& data,
                                                            const std::string& cacheDir,
                                                            const TokenizeProgress& progress) {
    // What the passes allocated and freed (counts, a corpus loaded whole) goes back to the system at the end.
    const struct Release {
        ~Release() { releaseFreedMemory(); }
    } release;
    const auto format = data.format == CorpusFormat::Auto ? detectCorpusFormat(path) : data.format;
    std::error_code ec;
    const auto absolute = fs::absolute(path, ec).lexically_normal().string();
    const auto key = settingsKey(absolute, format, data);
    const std::string stem = cacheDir.empty() ? std::string() : stemFor(cacheDir, absolute, key);
    checkCorpusPath(path, format);
    const auto stamp = stampOf(path, format);
    if (!stem.empty())
        if (auto store = open(stem, key, stamp.bytes, stamp.modifiedNs)) return store;
    // Plain text streams; the other formats are read whole first (their loader guards the memory).
    std::optional<Corpus> loaded;
    std::unique_ptr<DocumentParts> parts;
    if (format == CorpusFormat::Text) {
        parts = textFileParts(path, threadsFor(stamp.bytes));
    } else {
        loaded = loadCorpus(path, format);
        parts = corpusParts(*loaded, threadsFor(stamp.bytes));
    }
    auto inMemory = [&] {
        auto store = TokenStoreBuilder(*parts, progress).build(&data, nullptr, "", path);
        store->m_format = format;
        if (loaded) store->m_classes = loaded->classes;
        if (store->m_documents == 0) throw InputError(path, 0, "no text (the file holds only whitespace)");
        return store;
    };
    if (stem.empty()) return inMemory();
    std::shared_ptr<TokenStore> store, built;
    try {
        fs::create_directories(cacheDir, ec);
        PartialFiles files(stem);
        built = TokenStoreBuilder(*parts, progress).build(&data, nullptr, files.partial(".ids"), path);
        if (built->m_documents == 0) throw InputError(path, 0, "no text (the file holds only whitespace)");
        writeVector(files.partial(".docs"), built->m_ownDocs);
        if (!built->m_ownLabels.empty()) writeVector(files.partial(".labels"), built->m_ownLabels);
        writeMetadata(files.partial(".json"), key, absolute, stamp, format, data, *built,
                      loaded ? loaded->classes : std::vector<std::string>{});
        files.commit();
        store = open(stem, key, stamp.bytes, stamp.modifiedNs);
        if (!store)
            throw std::runtime_error("the token store just written to " + stem + ".json cannot be read back");
    } catch (const InputError&) {
        throw;
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception&) {
        // A cache that cannot be written (read-only, full) costs the next run its tokenization, not this one.
        return inMemory();
    }
    store->m_info.reused = false;
    store->m_info.seconds = built->m_info.seconds;
    return store;
}

std::shared_ptr<const TokenStore> TokenStore::forConfiguredCorpus(const DataConfig& data,
                                                                  const TokenizeProgress& progress) {
    return forCorpusFile(resolveCorpusPath(data.corpus), data, tokenStoreDir(corporaCacheDir()), progress);
}

}  // namespace wb
