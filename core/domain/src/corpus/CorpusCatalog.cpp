// The catalog of prepared corpora that datasets/prepare.py builds: one folder per corpus name in the cache
// folder, counted as prepared only once its manifest.json exists (the script writes it last, atomically).
#include "workbench/domain/CorpusCatalog.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <pwd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Preparer.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace wb {
namespace {

const char* const kManifest = "manifest.json";

std::string envOrEmpty(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

std::string homeDir() {
    std::string home = envOrEmpty("HOME");
    if (!home.empty()) return home;
    // A service or a sanitised environment may have no HOME; the password database still knows it.
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) return pw->pw_dir;
    return ".";
}

// A name is one folder inside the cache: nothing that could point elsewhere ("..", "/x", "a/b").
bool isCorpusName(const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name[0] == '.') return false;
    return name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

std::string stringField(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Reads dir/manifest.json into an entry. Throws InputError naming the manifest when it is unusable.
CatalogEntry readEntry(const fs::path& dir) {
    const fs::path manifestPath = dir / kManifest;
    const std::string where = manifestPath.string();
    const std::string text = readFile(where, "manifest");
    detail::checkJsonNesting(text, where);  // manifestJson's dump() below recurses once per level
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
        throw InputError(where, 0, std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object()) throw InputError(where, 0, "expected a JSON object (a corpus manifest)");
    const std::string data = stringField(j, "data");
    if (data.empty()) throw InputError(where, 0, "expected a \"data\" string (the corpus file or folder)");
    // The data must stay inside the corpus folder: a manifest is a file anyone could have edited.
    const fs::path rel = fs::path(data).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
        throw InputError(where, 0, "\"data\" must be a path inside the corpus folder, found '" + data + "'");

    CatalogEntry e;
    e.name = dir.filename().string();
    e.dir = dir.string();
    e.dataPath = (dir / rel).string();
    const std::string format = stringField(j, "format");
    if (!format.empty()) {
        try {
            e.format = corpusFormatFromString(format);
        } catch (const InputError&) {
            throw InputError(
                where, 0, "unknown \"format\" '" + format + "' (expected text, poems, tsv, csv or folder)");
        }
    }
    e.description = stringField(j, "description");
    e.sourcePackage = stringField(j, "source_package");
    e.sourceVersion = stringField(j, "source_version");
    e.license = stringField(j, "license");
    e.checksum = stringField(j, "checksum");
    if (const auto it = j.find("documents"); it != j.end() && it->is_number_integer())
        e.documents = it->get<std::int64_t>();
    e.manifestJson = j.dump(2);
    return e;
}

bool hasManifest(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / kManifest, ec);
}

}  // namespace

std::string corporaCacheDir() {
    if (std::string data = envOrEmpty("LSTM_WORKBENCH_DATA"); !data.empty()) return data;
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored; datasets/prepare.py agrees.
    if (std::string xdg = envOrEmpty("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
        return (fs::path(xdg) / "lstm-workbench" / "corpora").string();
    return (fs::path(homeDir()) / ".cache" / "lstm-workbench" / "corpora").string();
}

std::vector<CatalogEntry> listPreparedCorpora() {
    std::vector<CatalogEntry> entries;
    const fs::path root = corporaCacheDir();
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        // Hidden entries are the script's downloads, locks and half-built temp folders.
        if (!isCorpusName(name) || !it->is_directory(ec) || !hasManifest(it->path())) continue;
        try {
            entries.push_back(readEntry(it->path()));
        } catch (const InputError&) {
            // One damaged manifest must not hide the other corpora; findPreparedCorpus() reports it.
        }
    }
    std::sort(entries.begin(), entries.end(),
              [](const CatalogEntry& a, const CatalogEntry& b) { return a.name < b.name; });
    return entries;
}

std::optional<CatalogEntry> findPreparedCorpus(const std::string& name) {
    if (!isCorpusName(name)) return std::nullopt;
    const fs::path dir = fs::path(corporaCacheDir()) / name;
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || !hasManifest(dir)) return std::nullopt;
    return readEntry(dir);
}

std::string resolveCorpusPath(const std::string& pathOrName) {
    std::error_code ec;
    if (!pathOrName.empty() && fs::exists(pathOrName, ec)) return pathOrName;
    // A dangling or looping symbolic link is the user's file: loadCorpus says what is wrong with it.
    if (!pathOrName.empty() && fs::is_symlink(fs::symlink_status(pathOrName, ec))) return pathOrName;
    if (isCorpusName(pathOrName)) {
        if (const auto entry = findPreparedCorpus(pathOrName)) {
            if (!fs::exists(entry->dataPath, ec))
                throw InputError(entry->dataPath, 0,
                                 "prepared corpus '" + pathOrName +
                                     "' is missing its data — prepare it again with: " +
                                     prepareCommand("--force " + pathOrName));
            return entry->dataPath;
        }
        throw InputError("no corpus file or prepared corpus named '" + pathOrName +
                         "' — prepare it with: " + prepareCommand(pathOrName));
    }
    throw InputError(pathOrName, 0, "no such corpus file or folder");
}

}  // namespace wb
