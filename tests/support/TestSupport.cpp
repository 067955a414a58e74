#include "support/TestSupport.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RemoveAll.h"

namespace fs = std::filesystem;

namespace wbtest {

std::string inputErrorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const wb::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TempDir::TempDir() {
    std::string pattern = (fs::temp_directory_path() / "wbtest-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
    m_owner = static_cast<int>(getpid());
}

TempDir::~TempDir() {
    if (static_cast<int>(getpid()) != m_owner) return;  // a static TempDir, destroyed again as a child exits
    std::error_code ec;
    // Restore permissions that a test may have removed, so the cleanup can descend.
    for (auto it =
             fs::recursive_directory_iterator(m_path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec) && !it->is_symlink(ec))
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::permissions(m_path, fs::perms::owner_all, fs::perm_options::add, ec);
    wb::removeAll(m_path, ec);
}

void writeText(const fs::path& path, const std::string& bytes) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string commandOutput(const std::string& command) {
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
        pclose(p);
    }
    return out;
}

std::string mixedScriptText(std::size_t bytes, unsigned seed, int maxWords) {
    const char* pieces[] = {"lorem", "ipsum", "dolor", "sit", "amet", "床前",  "明月", "光",
                            "é",     "ß",     "ω",     "𝔘",   "𰀀", "Don't", "x7",   "—"};
    std::mt19937 rng(seed);
    std::string out = "\xEF\xBB\xBF";
    while (out.size() < bytes) {
        const int lines = 1 + static_cast<int>(rng() % 4);
        for (int l = 0; l < lines; ++l) {
            const int words = 1 + static_cast<int>(rng() % static_cast<unsigned>(maxWords));
            for (int w = 0; w < words; ++w) out += std::string(w ? " " : "") + pieces[rng() % 16];
            out += rng() % 5 == 0 ? "\r\n" : "\n";
        }
        out += rng() % 3 == 0 ? "  \n" : "\n";
    }
    return out;
}

std::string patternText(std::size_t lines, std::size_t lineLength) {
    const std::string cycle = "abcdefgh";
    std::string out;
    for (std::size_t l = 0; l < lines; ++l) {
        for (std::size_t i = 0; i < lineLength; ++i) out += cycle[(l + i) % cycle.size()];
        out += '\n';
    }
    return out;
}

std::string separableTsv(std::size_t rows, unsigned seed) {
    const std::vector<std::string> good = {"great", "lovely", "superb", "fine", "happy", "bright"};
    const std::vector<std::string> bad = {"awful", "dull", "sad", "broken", "grim", "boring"};
    const std::vector<std::string> neutral = {"the", "a", "movie", "was", "plot", "and", "it"};
    std::mt19937 rng(seed);
    std::string out = "label\ttext\n";
    for (std::size_t r = 0; r < rows; ++r) {
        const bool positive = r % 2 == 0;
        const auto& words = positive ? good : bad;
        std::string text;
        for (int w = 0; w < 8; ++w) {
            const auto& pool = (w % 2 == 0) ? words : neutral;
            if (!text.empty()) text += ' ';
            text += pool[rng() % pool.size()];
        }
        out += (positive ? "pos\t" : "neg\t") + text + "\n";
    }
    return out;
}

std::string quatrainJson(std::size_t poems, unsigned seed) {
    // 16 common characters; each poem: four 7-character lines, "，" after lines 1 and 3, "。" after 2 and 4.
    const std::vector<std::string> chars = {"春", "風", "花", "月", "山", "水", "雲", "人",
                                            "江", "天", "夜", "秋", "歸", "長", "日", "東"};
    std::mt19937 rng(seed);
    std::string out = "[\n";
    for (std::size_t p = 0; p < poems; ++p) {
        std::string lines[2];
        for (int half = 0; half < 2; ++half) {
            for (int line = 0; line < 2; ++line) {
                for (int c = 0; c < 7; ++c) lines[half] += chars[rng() % chars.size()];
                lines[half] += line == 0 ? "，" : "。";
            }
        }
        out += "  {\"title\": \"詩" + std::to_string(p) + "\", \"author\": \"佚名\", \"paragraphs\": [\"" +
               lines[0] + "\", \"" + lines[1] + "\"]}";
        out += p + 1 < poems ? ",\n" : "\n";
    }
    return out + "]\n";
}

void writeVerseTables(const std::filesystem::path& folder) {
    writeText(folder / "tones.json",
              R"({"format": "lstm-workbench tones", "version": 1, "traditional": {)"
              R"("春": [9, 0, 0], "風": [9, 0, 0], "花": [9, 0, 0], "山": [9, 0, 0], "雲": [9, 0, 0], )"
              R"("人": [9, 0, 0], "江": [9, 0, 0], "天": [9, 0, 0], "秋": [9, 0, 0], "歸": [9, 0, 0], )"
              R"("東": [9, 0, 0], "長": [9, 0, 0], "月": [0, 9, 0], "水": [0, 9, 0], "夜": [0, 9, 0], )"
              R"("日": [0, 9, 0]}})");
    writeText(folder / "rhymes.json",
              R"({"format": "lstm-workbench rhymes", "version": 1, "groups": [)"
              R"({"name": "東", "traditional": "東風"}, {"name": "山", "traditional": "山天人春雲"}]})");
}

std::vector<std::string> listTree(const fs::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::exists(root, ec)) return out;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        out.push_back(fs::relative(it->path(), root).string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace wbtest
