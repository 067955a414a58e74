// The bad-input catalogue (see BadInputs.h). Each case is a few lines: what to write, where it enters,
// what the one-line error must say. Run-folder cases start from a tiny real run and break one thing.
#include "support/BadInputs.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Sweep.h"
#include "workbench/engine/Training.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace wbtest {

std::string cliCommand(Entry e) {
    switch (e) {
        case Entry::Inspect:
            return "inspect";
        case Entry::Train:
            return "train";
        case Entry::TrainConfig:
            return "train --config";
        case Entry::Resume:
            return "resume";
        case Entry::Generate:
            return "generate";
        case Entry::GeneratePoem:
            return "generate --form quatrain7 --meter strict";
        case Entry::Classify:
            return "classify";
        case Entry::Compare:
            return "compare";
        case Entry::Sweep:
            return "sweep";
    }
    return "?";
}

std::string apiCall(Entry e) {
    switch (e) {
        case Entry::Inspect:
            return "readCorpusOverview";
        case Entry::Train:
            return "TrainingJob";
        case Entry::TrainConfig:
            return "ExperimentConfig::fromJson + ensureValid + TrainingJob";
        case Entry::Resume:
            return "TrainingJob::resume";
        case Entry::Generate:
            return "TrainedModel::load + generate";
        case Entry::GeneratePoem:
            return "verseCheckerForCorpus + generate";
        case Entry::Classify:
            return "TrainedModel::load + classify";
        case Entry::Compare:
            return "loadRunFolder";
        case Entry::Sweep:
            return "loadSweep";
    }
    return "?";
}

wb::ExperimentConfig tinyTrainConfig(const std::string& corpus, wb::Task task) {
    auto c = task == wb::Task::Classifier ? tinyClassifier(corpus) : tinyLanguageModel(corpus);
    c.data.format = wb::CorpusFormat::Auto;
    c.train.epochs = 0;
    c.train.maxSteps = 2;
    return c;
}

std::string tinyTrainFlags(wb::Task task) {
    std::string common =
        " --embedding 8 --hidden 8 --layers 1 --batch-size 4 --max-steps 2 --threads 1 --quiet"
        " --lr-schedule constant --lr-warmup 0";
    if (task == wb::Task::Classifier) return " --task classify --tokens word --seq-len 8" + common;
    return " --seq-len 16" + common;
}

// ---- the tiny runs, trained once per process ----

namespace {

struct TinyRuns {
    TempDir dir;
    TinyRuns() {
        writeText(dir.path() / "pattern.txt", patternText(60));
        auto lm = tinyLanguageModel(dir.file("pattern.txt"));
        lm.train.maxSteps = 2;
        wb::TrainingJob(lm, dir.file("lm")).run();
        writeText(dir.path() / "reviews.tsv", separableTsv(40));
        auto cls = tinyClassifier(dir.file("reviews.tsv"));
        cls.train.epochs = 0;
        cls.train.maxSteps = 2;
        wb::TrainingJob(cls, dir.file("classifier")).run();
    }
};

TinyRuns& tinyRuns() {
    // Never destroyed before the tests end; TempDir removes the folder at exit.
    static TinyRuns runs;
    return runs;
}

}  // namespace

void copyTinyRun(wb::Task task, const fs::path& dest) {
    auto& runs = tinyRuns();
    fs::copy(runs.dir.path() / (task == wb::Task::Classifier ? "classifier" : "lm"), dest,
             fs::copy_options::recursive);
}

std::map<std::string, std::string> snapshotTree(const fs::path& root) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        // lexically: fs::relative would follow the symbolic links (and throw on a loop).
        const auto rel = it->path().lexically_relative(root).string();
        const auto st = it->symlink_status(ec);
        std::string value;
        if (fs::is_symlink(st)) {
            value = "link:" + fs::read_symlink(it->path(), ec).string();
        } else if (fs::is_regular_file(st)) {
            const auto size = fs::file_size(it->path(), ec);
            value = "file:" + std::to_string(size);
            if (size <= (1u << 20)) value += ":" + readText(it->path());
        } else if (fs::is_directory(st)) {
            value = "dir";
        } else {
            value = "other";
        }
        out[rel] = value;
    }
    return out;
}

ScopedEnv::ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) {
        const char* old = std::getenv(k.c_str());
        m_saved.push_back({k, {old != nullptr, old ? old : ""}});
        ::setenv(k.c_str(), v.c_str(), 1);
    }
}

ScopedEnv::~ScopedEnv() {
    for (const auto& [k, old] : m_saved) {
        if (old.first)
            ::setenv(k.c_str(), old.second.c_str(), 1);
        else
            ::unsetenv(k.c_str());
    }
}

// ---- writers ----

namespace {

using Writer = std::function<BadInput(const fs::path&)>;

BadInput corpusInput(const fs::path& dir, const fs::path& corpus) {
    BadInput in;
    in.path = corpus.string();
    in.out = (dir / "out").string();
    return in;
}

// A corpus file with these bytes.
Writer file(const std::string& name, const std::string& bytes) {
    return [=](const fs::path& dir) {
        writeText(dir / name, bytes);
        return corpusInput(dir, dir / name);
    };
}

// A corpus folder made by a function.
Writer folder(const std::function<void(const fs::path&)>& make) {
    return [=](const fs::path& dir) {
        fs::create_directories(dir / "corpus");
        make(dir / "corpus");
        return corpusInput(dir, dir / "corpus");
    };
}

// A config file for the TrainConfig entry: the tiny LM's config with `edit` applied to its JSON, trained
// on a small pattern corpus (or on `corpusText`).
Writer config(const std::function<void(json&)>& edit, const std::string& corpusText = patternText(40)) {
    return [=](const fs::path& dir) {
        writeText(dir / "pattern.txt", corpusText);
        auto c = tinyTrainConfig((dir / "pattern.txt").string(), wb::Task::LanguageModel);
        json j = json::parse(c.toJson());
        edit(j);
        writeText(dir / "experiment.json", j.dump(2));
        BadInput in;
        in.path = (dir / "experiment.json").string();
        in.corpus = (dir / "pattern.txt").string();
        in.out = (dir / "out").string();
        return in;
    };
}

// A config file with these exact bytes.
Writer configBytes(const std::string& bytes) {
    return [=](const fs::path& dir) {
        writeText(dir / "pattern.txt", patternText(40));
        writeText(dir / "experiment.json", bytes);
        BadInput in;
        in.path = (dir / "experiment.json").string();
        in.corpus = (dir / "pattern.txt").string();
        in.out = (dir / "out").string();
        return in;
    };
}

// A copy of a tiny run with one thing broken.
Writer run(wb::Task task, const std::function<void(const fs::path&)>& breakIt) {
    return [=](const fs::path& dir) {
        copyTinyRun(task, dir / "run");
        breakIt(dir / "run");
        BadInput in;
        in.path = (dir / "run").string();
        return in;
    };
}

// A copy of a tiny language-model run whose config names a Tang-style corpus with its tone and rhyme tables
// beside it (wbtest::writeVerseTables), one table then broken: generating poems reads the tables.
Writer poemRun(const std::function<void(const fs::path& corpusFolder)>& breakIt) {
    return [=](const fs::path& dir) {
        copyTinyRun(wb::Task::LanguageModel, dir / "run");
        fs::create_directories(dir / "poems");
        writeText(dir / "poems" / "poems.json", quatrainJson(5));
        writeVerseTables(dir / "poems");
        breakIt(dir / "poems");
        json j = json::parse(readText(dir / "run" / "config.json"));
        j["data"]["corpus"] = (dir / "poems" / "poems.json").string();
        writeText(dir / "run" / "config.json", j.dump(1));
        BadInput in;
        in.path = (dir / "run").string();
        return in;
    };
}

void editJson(const fs::path& path, const std::function<void(json&)>& edit) {
    json j = json::parse(readText(path));
    edit(j);
    writeText(path, j.dump(1));
}

std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// 24 reviews written text first, label second: each row's "label" is its text.
std::string swappedColumns() {
    std::string out;
    for (int i = 0; i < 24; ++i)
        out += "review number " + std::to_string(i) + " was " + (i % 2 ? "good" : "bad") + "\t" +
               (i % 2 ? "pos" : "neg") + "\n";
    return out;
}

constexpr const char* kLimit = "WORKBENCH_MEMORY_LIMIT_BYTES";

// A sweep folder (a 2-cell grid over a pattern corpus, planned, nothing trained) whose sweep.json is then
// damaged: `sweep SWEEP_DIR` and the app's Sweep tab read it before they touch anything.
Writer sweepFolder(const std::function<std::string(const std::string& whole)>& damage) {
    return [=](const fs::path& dir) {
        writeText(dir / "pattern.txt", patternText(40));
        const auto sweep = wb::Sweep::plan(tinyLanguageModel((dir / "pattern.txt").string()),
                                           {wb::parseSweepAxis("hidden=8,12")}, 1, 0);
        fs::create_directories(dir / "sweep");
        writeText(dir / "sweep" / "sweep.json", damage(sweep.toJson()));
        BadInput in;
        in.path = (dir / "sweep").string();
        return in;
    };
}

// A corpus the loader reads and training refuses (BadInputs.h, FailsAt).
BadInputCase atTraining(BadInputCase k) {
    k.failsAt = FailsAt::Training;
    return k;
}

std::vector<BadInputCase> makeCatalog() {
    std::vector<BadInputCase> c;
    auto add = [&](BadInputCase k) { c.push_back(std::move(k)); };
    using wb::Task;

    // ---------------- corpus files: bytes ----------------
    add({"EmptyFile", Entry::Inspect, "empty file", file("empty.txt", ""), {"empty.txt", "file is empty"}});
    add({"EmptyFileTrain",
         Entry::Train,
         "empty file",
         file("empty.txt", ""),
         {"empty.txt", "file is empty"}});
    add({"WhitespaceOnly",
         Entry::Train,
         "only spaces and blank lines",
         file("blank.txt", "  \n\t\n \n"),
         {"blank.txt", "only whitespace"}});
    add({"BinaryGarbage",
         Entry::Inspect,
         "binary garbage (a PNG header)",
         file("picture.txt", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0", 20)),
         {"picture.txt", "binary data", "NUL byte"},
         3});
    add({"NulByte",
         Entry::Train,
         "a NUL byte on line 3 of a text file",
         file("nul.txt", std::string("first line\nsecond\nthi\0rd\n", 25)),
         {"nul.txt", "NUL byte at offset 21"},
         3});
    add({"Utf16",
         Entry::Inspect,
         "UTF-16 text (BOM FF FE)",
         file("utf16.txt", std::string("\xFF\xFEh\0i\0", 6)),
         {"utf16.txt", "binary data"},
         1});
    add({"InvalidUtf8",
         Entry::Inspect,
         "a Latin-1 byte (invalid UTF-8) on line 2",
         file("latin1.txt", "ok\ncaf\xE9 au lait\n"),
         {"latin1.txt", "invalid UTF-8 (byte 0xE9 at offset 6)"},
         2});
    add({"InvalidUtf8Train",
         Entry::Train,
         "a stray continuation byte on line 4",
         file("stray.txt", "a\nb\nc\nd\x80\n"),
         {"stray.txt", "stray continuation byte"},
         4});
    add({"TruncatedUtf8",
         Entry::Inspect,
         "a UTF-8 sequence cut by the end of the file",
         file("cut.txt", "春風\n\xE6\x98"),
         {"cut.txt", "truncated sequence"},
         2});
    add({"OverlongTwoByte",
         Entry::Inspect,
         "overlong encoding C0 AF of '/'",
         file("overlong.txt", "a\xC0\xAF"),
         {"overlong.txt", "overlong encoding"},
         1});
    add({"OverlongThreeByte",
         Entry::Train,
         "overlong encoding E0 80 AF",
         file("overlong3.txt", "x\ny\xE0\x80\xAF"),
         {"overlong3.txt", "overlong encoding"},
         2});
    add({"Surrogate",
         Entry::Inspect,
         "an encoded UTF-16 surrogate (ED A0 80)",
         file("surrogate.txt", "ab\xED\xA0\x80"),
         {"surrogate.txt", "surrogate code point"},
         1});
    add({"AboveUnicode",
         Entry::Inspect,
         "a code point above U+10FFFF (F4 90 80 80)",
         file("big.txt", "\n\n\xF4\x90\x80\x80"),
         {"big.txt", "above U+10FFFF"},
         3});
    add({"InvalidUtf8InFolderFile",
         Entry::Inspect,
         "invalid UTF-8 in one file of a class folder",
         folder([](const fs::path& d) {
             writeText(d / "pos/a.txt", "good");
             writeText(d / "neg/b.txt", "line\nbad \xFF\n");
         }),
         {"b.txt", "invalid UTF-8"},
         2});

    // ---------------- line endings and BOM: accepted ----------------
    {
        BadInputCase k{"Utf8Bom",
                       Entry::Inspect,
                       "text with a UTF-8 BOM: accepted, BOM stripped",
                       file("bom.txt", "\xEF\xBB\xBFhello world\n\nsecond paragraph\n"),
                       {}};
        k.documents = 2, k.firstText = "hello world";
        add(k);
    }
    {
        BadInputCase k{"Utf8BomTsv",
                       Entry::Inspect,
                       "TSV with a UTF-8 BOM before its header: accepted",
                       file("bom.tsv", "\xEF\xBB\xBFlabel\ttext\npos\tgood film\nneg\tbad film\n"),
                       {}};
        k.documents = 2, k.firstText = "good film", k.classes = {"neg", "pos"};
        add(k);
    }
    {
        BadInputCase k{"Utf8BomPoems",
                       Entry::Inspect,
                       "poems JSON with a UTF-8 BOM: accepted",
                       file("bom.json", "\xEF\xBB\xBF[{\"title\":\"t\",\"paragraphs\":[\"春風。\"]}]"),
                       {}};
        k.documents = 1, k.firstText = "春風。";
        add(k);
    }
    {
        BadInputCase k{"CrlfText",
                       Entry::Inspect,
                       "CRLF line endings: accepted, no '\\r' left in the text",
                       file("crlf.txt", "one\r\ntwo\r\n\r\nthree\r\n"),
                       {}};
        k.documents = 2, k.firstText = "one\ntwo";
        add(k);
    }
    {
        BadInputCase k{"LoneCrText",
                       Entry::Inspect,
                       "old-Mac lone CR line endings: accepted",
                       file("cr.txt", "one\rtwo\r\rthree\r"),
                       {}};
        k.documents = 2, k.firstText = "one\ntwo";
        add(k);
    }
    {
        BadInputCase k{"CrlfTsv",
                       Entry::Inspect,
                       "TSV with CRLF rows: accepted, labels without '\\r'",
                       file("crlf.tsv", "label\ttext\r\npos\tgood\r\nneg\tbad\r\n"),
                       {}};
        k.documents = 2, k.firstText = "good", k.classes = {"neg", "pos"};
        add(k);
    }
    {
        BadInputCase k{"HundredMegabyteLine",
                       Entry::Inspect,
                       "a 100 MB file that is one single line: accepted in bounded time and memory",
                       [](const fs::path& dir) {
                           std::ofstream out(dir / "line.txt", std::ios::binary);
                           const std::string chunk = repeat("lorem ipsum dolor ", 1024);  // 18 KiB
                           for (std::size_t n = 0; n < 100u * 1024 * 1024; n += chunk.size()) out << chunk;
                           out << "\n";
                           return corpusInput(dir, dir / "line.txt");
                       },
                       {}};
        k.documents = 1, k.firstText = "lorem ipsum dolor lorem";
        add(k);
    }

    // ---------------- poems JSON ----------------
    add({"JsonTruncated",
         Entry::Inspect,
         "JSON cut off in the middle of an object",
         file("cut.json", "[{\"title\": \"x\", \"paragraphs\": [\"春風\"]},\n{\"title\": "),
         {"cut.json", "invalid JSON"},
         2});
    add({"JsonTruncatedTrain",
         Entry::Train,
         "JSON cut off after the first poem",
         file("cut.json", "[\n{\"paragraphs\": [\"春風\"]},\n"),
         {"cut.json", "invalid JSON"},
         3});
    add({"JsonObjectNotArray",
         Entry::Inspect,
         "JSON of the wrong shape: an object, not an array of poems",
         file("shape.json", "{\"paragraphs\": [\"a\"]}"),
         {"shape.json", "expected a JSON array of poems"}});
    add({"JsonParagraphsNotStrings",
         Entry::Inspect,
         "paragraphs holding numbers",
         file("numbers.json", "[{\"paragraphs\": [1, 2]}]"),
         {"numbers.json", "\"paragraphs\" array of strings"}});
    add({"JsonNoParagraphs",
         Entry::Train,
         "a poem without paragraphs",
         file("nopara.json", "[{\"paragraphs\": [\"a\"]}, {\"title\": \"x\"}]"),
         {"nopara.json", "element 1", "paragraphs"}});
    add({"JsonTitleNotString",
         Entry::Inspect,
         "a title that is a number",
         file("title.json", "[{\"title\": 5, \"paragraphs\": [\"a\"]}]"),
         {"title.json", "title: expected a string"}});
    add({"JsonEmptyArray",
         Entry::Inspect,
         "an empty array",
         file("none.json", "[]"),
         {"none.json", "no poems"}});
    add({"JsonDeepNesting",
         Entry::Inspect,
         "100000 nested '[' (must not overflow the stack)",
         file("deep.json", std::string(100000, '[')),
         {"deep.json", "expected an object"}});
    add({"JsonDeepNestingSkipped",
         Entry::Train,
         "100000 nested arrays inside an ignored key",
         file("deep2.json", "[{\"paragraphs\": [\"a\"], \"notes\": " + std::string(100000, '[') +
                                std::string(100000, ']') + "}, 7]"),
         {"deep2.json", "element 1", "found an integer"}});

    // ---------------- TSV / CSV ----------------
    add({"CsvUnbalancedQuote",
         Entry::Inspect,
         "CSV with a quote that never closes",
         file("quote.csv", "label,text\npos,\"good film\nneg,bad film\n"),
         {"quote.csv", "unterminated quoted field"},
         2});
    add({"CsvTextAfterQuote",
         Entry::Train,
         "CSV with text after a closing quote",
         file("after.csv", "label,text\npos,\"good\" film\nneg,bad\n"),
         {"after.csv", "after a closing quote"},
         2});
    add({"TsvMissingColumn",
         Entry::Inspect,
         "TSV row without its text column",
         file("missing.tsv", "label\ttext\npos\tgood\nneg\n"),
         {"missing.tsv", "expected 2 columns", "found 1"},
         3});
    add({"CsvExtraColumn",
         Entry::Train,
         "CSV row with a third column",
         file("extra.csv", "pos,good\nneg,bad,worse\n"),
         {"extra.csv", "expected 2 columns", "found 3"},
         2,
         {},
         Task::Classifier});
    add({"TsvSingleClass",
         Entry::Train,
         "labelled TSV with a single class",
         file("one.tsv", "pos\tgood\npos\tfine\n"),
         {"one.tsv", "only one class ('pos')"},
         0,
         {},
         Task::Classifier});
    add({"TsvColumnsSwapped",
         Entry::Train,
         "labelled TSV with the text first and the label second",
         file("swapped.tsv", swappedColumns()),
         {"swapped.tsv", "24 classes among 24 rows", "the columns the other way round"},
         0,
         {},
         Task::Classifier});
    add({"TsvEmptyLabel",
         Entry::Inspect,
         "TSV row with an empty label",
         file("nolabel.tsv", "label\ttext\npos\tgood\n\tbad\n"),
         {"nolabel.tsv", "empty label"},
         3});
    add({"TsvEmptyText",
         Entry::Inspect,
         "TSV row with an empty text",
         file("notext.tsv", "label\ttext\npos\tgood\nneg\t  \n"),
         {"notext.tsv", "empty text"},
         3});
    add({"TsvHeaderOnly",
         Entry::Inspect,
         "TSV with a header and no rows",
         file("header.tsv", "label\ttext\n"),
         {"header.tsv", "no rows after the header"}});
    add(atTraining({"TextForClassifier",
                    Entry::Train,
                    "plain text given to a classifier",
                    file("plain.txt", patternText(20)),
                    {"plain.txt", "a classifier needs labelled text"},
                    0,
                    {},
                    Task::Classifier}));

    // ---------------- folders and special files ----------------
    add({"FolderNoClasses",
         Entry::Inspect,
         "a folder with no class sub-folders",
         folder([](const fs::path&) {}),
         {"corpus", "no class sub-folders"}});
    add({"FolderSingleClass",
         Entry::Train,
         "a folder with one class",
         folder([](const fs::path& d) { writeText(d / "pos/a.txt", "good"); }),
         {"corpus", "only one class ('pos')"},
         0,
         {},
         Task::Classifier});
    add({"FolderEmptyClass",
         Entry::Inspect,
         "a class folder without files",
         folder([](const fs::path& d) {
             writeText(d / "pos/a.txt", "good");
             fs::create_directories(d / "neg");
         }),
         {"corpus", "class folder 'neg' has no files"}});
    add({"FolderDanglingSymlink",
         Entry::Inspect,
         "a dangling symbolic link among a class's files",
         folder([](const fs::path& d) {
             writeText(d / "pos/a.txt", "good");
             writeText(d / "neg/b.txt", "bad");
             fs::create_symlink(d / "nowhere.txt", d / "neg/c.txt");
         }),
         {"c.txt", "dangling symbolic link"}});
    add({"FolderSymlinkLoopFile",
         Entry::Train,
         "two symbolic links pointing at each other in a class folder",
         folder([](const fs::path& d) {
             writeText(d / "pos/a.txt", "good");
             writeText(d / "neg/b.txt", "bad");
             fs::create_symlink("y.txt", d / "neg/x.txt");
             fs::create_symlink("x.txt", d / "neg/y.txt");
         }),
         {"x.txt", "symbolic link"},
         0,
         {},
         Task::Classifier});
    add({"FolderFifo",
         Entry::Inspect,
         "a FIFO among a class's files (must not block)",
         folder([](const fs::path& d) {
             writeText(d / "pos/a.txt", "good");
             writeText(d / "neg/b.txt", "bad");
             ::mkfifo((d / "neg/pipe.txt").c_str(), 0644);
         }),
         {"pipe.txt", "not a regular file"}});
    {
        BadInputCase k{"FolderSymlinkLoopDirs",
                       Entry::Inspect,
                       "folder symlink loops (a class linking to its parent): accepted, never followed",
                       folder([](const fs::path& d) {
                           writeText(d / "pos/a.txt", "good");
                           writeText(d / "neg/b.txt", "bad");
                           fs::create_directory_symlink("..", d / "pos/up");
                           fs::create_directory_symlink(".", d / "self");
                       }),
                       {}};
        k.documents = 2, k.firstText = "bad", k.classes = {"neg", "pos"};
        add(k);
    }
    add({"CorpusIsFifo",
         Entry::Inspect,
         "the corpus path is a FIFO (must not block)",
         [](const fs::path& dir) {
             ::mkfifo((dir / "fifo.txt").c_str(), 0644);
             return corpusInput(dir, dir / "fifo.txt");
         },
         {"fifo.txt", "not a regular file"}});
    add({"CorpusDanglingSymlink",
         Entry::Train,
         "the corpus path is a dangling symbolic link",
         [](const fs::path& dir) {
             fs::create_symlink(dir / "gone.txt", dir / "link.txt");
             return corpusInput(dir, dir / "link.txt");
         },
         {"link.txt", "dangling symbolic link"}});
    add({"CorpusSymlinkLoop",
         Entry::Inspect,
         "the corpus path is a symbolic link to itself",
         [](const fs::path& dir) {
             fs::create_symlink("loop.txt", dir / "loop.txt");
             return corpusInput(dir, dir / "loop.txt");
         },
         {"loop.txt", "symbolic link"}});
    add({"CorpusMissing",
         Entry::Train,
         "the corpus path does not exist",
         [](const fs::path& dir) { return corpusInput(dir, dir / "missing.txt"); },
         {"missing.txt", "no such"}});

    // ---------------- memory guard ----------------
    {
        // Plain text is read streamed (its overview, its token store): the guard is for formats loaded whole.
        BadInputCase k{
            "MemoryLimitText",
            Entry::Inspect,
            "a text corpus larger than the memory available to load it whole: read streamed, accepted",
            file("large.txt", patternText(4000)),
            {},
            0,
            {{kLimit, "100000"}}};
        k.documents = 1, k.firstText = "abcdefgh";
        add(k);
    }
    add({"MemoryLimitPoems",
         Entry::Train,
         "a poems corpus larger than the memory available to load it",
         file("large.json", quatrainJson(500)),
         {"large.json", "needs about", "available"},
         0,
         {{kLimit, "200000"}}});
    add({"MemoryLimitFolder",
         Entry::Inspect,
         "a class folder whose files together exceed the memory limit",
         folder([](const fs::path& d) {
             for (int i = 0; i < 20; ++i) {
                 writeText(d / "pos" / (std::to_string(i) + ".txt"), repeat("good film ", 500));
                 writeText(d / "neg" / (std::to_string(i) + ".txt"), repeat("bad film ", 500));
             }
         }),
         {"corpus", "needs about", "available"},
         0,
         {{kLimit, "50000"}}});

    // ---------------- experiment config files ----------------
    add({"ConfigZeroLayers",
         Entry::TrainConfig,
         "config with zero layers",
         config([](json& j) { j["model"]["layers"] = 0; }),
         {"experiment.json", "number of layers must be at least 1"}});
    add({"ConfigNegativeLearningRate",
         Entry::TrainConfig,
         "config with a negative learning rate",
         config([](json& j) { j["train"]["learning_rate"] = -0.01; }),
         {"experiment.json", "learning rate must be a positive number"}});
    add({"ConfigZeroBatchSize",
         Entry::TrainConfig,
         "config with batch size 0",
         config([](json& j) { j["train"]["batch_size"] = 0; }),
         {"experiment.json", "batch size must be at least 1"}});
    add({"ConfigDropoutOne",
         Entry::TrainConfig,
         "config with dropout 1.0",
         config([](json& j) { j["model"]["dropout"] = 1.0; }),
         {"experiment.json", "dropout must be in [0, 1)"}});
    add({"ConfigSeqLenLongerThanCorpus",
         Entry::TrainConfig,
         "sequence length longer than the whole corpus",
         config([](json& j) { j["data"]["seq_len"] = 5000; }, "abcabc\n"),
         {"pattern.txt", "fewer than one window of sequence length 5000"}});
    add({"ConfigUnknownTask",
         Entry::TrainConfig,
         "config with an unknown task string",
         config([](json& j) { j["task"] = "translate"; }),
         {"experiment.json", "task: unknown task 'translate'"}});
    add({"ConfigUnknownPrecision",
         Entry::TrainConfig,
         "config with an unknown precision string",
         config([](json& j) { j["device"]["precision"] = "fp8"; }),
         {"experiment.json", "device.precision: unknown precision 'fp8'"}});
    add({"ConfigWrongType",
         Entry::TrainConfig,
         "config with a string where a number belongs",
         config([](json& j) { j["model"]["hidden"] = "big"; }),
         {"experiment.json", "model.hidden: expected an integer"}});
    add({"ConfigSectionNotObject",
         Entry::TrainConfig,
         "config whose train section is an array",
         config([](json& j) { j["train"] = json::array(); }),
         {"experiment.json", "train: expected an object"}});
    add({"ConfigTruncated",
         Entry::TrainConfig,
         "config JSON cut off on line 3",
         configBytes("{\n  \"task\": \"lm\",\n  \"model\": {\"hidden\": "),
         {"experiment.json", "invalid JSON"},
         3});
    add({"ConfigDeepNesting",
         Entry::TrainConfig,
         "config of 100000 nested arrays (must not overflow the stack)",
         configBytes(std::string(100000, '[') + std::string(100000, ']')),
         {"experiment.json", "nested deeper than"},
         1});

    // ---------------- run folders ----------------
    add({"RunMissingConfig",
         Entry::Generate,
         "run folder without config.json",
         run(Task::LanguageModel, [](const fs::path& r) { fs::remove(r / "config.json"); }),
         {"config.json", "no such file"}});
    add({"RunMissingRunJson",
         Entry::Compare,
         "run folder without run.json",
         run(Task::LanguageModel, [](const fs::path& r) { fs::remove(r / "run.json"); }),
         {"run.json", "no such file"}});
    add({"RunMissingRunJsonResume",
         Entry::Resume,
         "resuming a run folder without run.json",
         run(Task::LanguageModel, [](const fs::path& r) { fs::remove(r / "run.json"); }),
         {"run.json", "no such file"}});
    add({"RunConfigIsFolder",
         Entry::Generate,
         "config.json is a folder",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 fs::remove(r / "config.json");
                 fs::create_directory(r / "config.json");
             }),
         {"config.json", "not a regular file"}});
    add({"RunVocabSizeMismatch",
         Entry::Generate,
         "vocab.json one token shorter than the checkpoint",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "vocab.json", [](json& j) { j["tokens"].erase(j["tokens"].size() - 1); });
             }),
         {"model.safetensors", "embedding.weight", "expected shape"}});
    add({"RunConfigDisagreesWithWeights",
         Entry::Generate,
         "config.json with another hidden size than the weights",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "config.json", [](json& j) { j["model"]["hidden"] = 48; });
             }),
         {"model.safetensors", "expected shape"}});
    add({"RunConfigDisagreesResume",
         Entry::Resume,
         "resuming with a config.json that disagrees with the weights",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "config.json", [](json& j) { j["model"]["embedding"] = 24; });
             }),
         {"model.safetensors", "expected shape"}});
    add({"RunConfigInvalidValues",
         Entry::Generate,
         "config.json with zero layers in a run folder",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "config.json", [](json& j) { j["model"]["layers"] = 0; });
             }),
         {"config.json", "number of layers must be at least 1"}});
    add({"RunConfigInvalidResume",
         Entry::Resume,
         "resuming a run whose config.json has a negative learning rate",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "config.json", [](json& j) { j["train"]["learning_rate"] = -1; });
             }),
         {"config.json", "learning rate must be a positive number"}});
    add({"RunConfigUnknownTaskResume",
         Entry::Resume,
         "resuming a run whose config.json names an unknown task",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 editJson(r / "config.json", [](json& j) { j["task"] = "summarise"; });
             }),
         {"config.json", "unknown task 'summarise'"}});
    add({"RunMetricsGarbage",
         Entry::Compare,
         "metrics.csv with a non-numeric step",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 writeText(
                     r / "metrics.csv",
                     "run_id,step,epoch,samples,wall_s,split,metric,value\nlm,two,0,0,0,train,loss,1\n");
             }),
         {"metrics.csv", "step: expected an integer, found 'two'"},
         2});
    add({"RunMetricsGarbageResume",
         Entry::Resume,
         "resuming a run whose metrics.csv is binary garbage",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 writeText(r / "metrics.csv", std::string("\x01\x02\xFF\x00garbage", 11));
             }),
         {"metrics.csv", "expected the header"},
         1});
    add({"RunMetricsMissingColumn",
         Entry::Compare,
         "metrics.csv row with 7 columns",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 const auto text = readText(r / "metrics.csv");
                 writeText(r / "metrics.csv", text + "lm,5,1,40,0.5,train,loss\n");
             }),
         {"metrics.csv", "expected 8 columns"}});
    add({"RunJsonWrongType",
         Entry::Compare,
         "run.json whose status is a number",
         run(Task::LanguageModel,
             [](const fs::path& r) { editJson(r / "run.json", [](json& j) { j["status"] = 3; }); }),
         {"run.json", "status: expected a string"}});
    add({"RunJsonTruncated",
         Entry::Resume,
         "run.json cut off",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 const auto text = readText(r / "run.json");
                 writeText(r / "run.json", text.substr(0, text.size() / 2));
             }),
         {"run.json", "invalid JSON"}});
    add({"RunTruncatedModel",
         Entry::Generate,
         "model.safetensors cut to half its size",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 const auto bytes = readText(r / "model.safetensors");
                 writeText(r / "model.safetensors", bytes.substr(0, bytes.size() / 2));
             }),
         {"model.safetensors", "not a valid safetensors file"}});
    add({"RunTruncatedModelClassify",
         Entry::Classify,
         "a classifier's model.safetensors cut to 5 bytes",
         run(Task::Classifier,
             [](const fs::path& r) {
                 const auto bytes = readText(r / "model.safetensors");
                 writeText(r / "model.safetensors", bytes.substr(0, 5));
             }),
         {"model.safetensors", "shorter than its 8-byte header length"}});
    add({"RunTruncatedOptimizer",
         Entry::Resume,
         "optimizer.safetensors cut to half its size",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 const auto bytes = readText(r / "optimizer.safetensors");
                 writeText(r / "optimizer.safetensors", bytes.substr(0, bytes.size() / 2));
             }),
         {"optimizer.safetensors", "not a valid safetensors file"}});
    add({"RunMissingModel",
         Entry::Classify,
         "a classifier run without model.safetensors",
         run(Task::Classifier, [](const fs::path& r) { fs::remove(r / "model.safetensors"); }),
         {"model.safetensors", "no saved weights"}});
    add({"RunVocabNotJson",
         Entry::Classify,
         "vocab.json that is not JSON (error on line 2)",
         run(Task::Classifier,
             [](const fs::path& r) { writeText(r / "vocab.json", "{\n  \"level\": word\n}\n"); }),
         {"vocab.json", "invalid JSON"},
         2});
    add({"RunVocabNoClasses",
         Entry::Classify,
         "a classifier's vocab.json without classes",
         run(Task::Classifier,
             [](const fs::path& r) { editJson(r / "vocab.json", [](json& j) { j.erase("classes"); }); }),
         {"vocab.json", "at least two classes"}});
    add({"RunBaselineTruncated",
         Entry::Compare,
         "baseline.json cut off",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 writeText(r / "baseline.json", "{\n  \"bits_per_token\": 7.36,\n  \"order\": ");
             }),
         {"baseline.json", "invalid JSON"}});
    add({"RunBaselineBadOrder",
         Entry::Compare,
         "baseline.json of order 40",
         run(Task::LanguageModel,
             [](const fs::path& r) {
                 writeText(r / "baseline.json",
                           R"({"order": 40, "bits_per_token": 7.36, "train_tokens": 10, )"
                           R"("validation_targets": 5, "vocabulary": 4})");
             }),
         {"baseline.json", "order: expected an integer from 1 to 16"}});
    add({"PoemTonesTruncated",
         Entry::GeneratePoem,
         "the corpus's tones.json cut off",
         poemRun([](const fs::path& p) {
             writeText(p / "tones.json",
                       "{\"format\": \"lstm-workbench tones\", \"traditional\": {\"春\": [9,");
         }),
         {"tones.json", "invalid JSON"}});
    add({"PoemTonesIsRhymes",
         Entry::GeneratePoem,
         "tones.json holding a rhyme table",
         poemRun([](const fs::path& p) {
             fs::copy_file(p / "rhymes.json", p / "tones.json", fs::copy_options::overwrite_existing);
         }),
         {"tones.json", "not a lstm-workbench tones file"}});
    add({"PoemTonesNegativeCount",
         Entry::GeneratePoem,
         "tones.json with a negative count",
         poemRun([](const fs::path& p) {
             writeText(p / "tones.json",
                       R"({"format": "lstm-workbench tones", "traditional": {"春": [9, -1, 0]}})");
         }),
         {"tones.json", "expected [level, oblique, either] counts"}});
    add({"PoemRhymesLatinLetter",
         Entry::GeneratePoem,
         "rhymes.json with a Latin letter in a group",
         poemRun([](const fs::path& p) {
             writeText(p / "rhymes.json",
                       R"({"format": "lstm-workbench rhymes", "groups": [{"traditional": "東A"}]})");
         }),
         {"rhymes.json", "'A' is not a Chinese character"}});
    add({"PoemRhymesNoGroups",
         Entry::GeneratePoem,
         "rhymes.json without groups",
         poemRun([](const fs::path& p) {
             writeText(p / "rhymes.json", R"({"format": "lstm-workbench rhymes", "version": 1})");
         }),
         {"rhymes.json", "missing \"groups\""}});
    add({"RunIsAFile",
         Entry::Compare,
         "a file given where a run folder is expected",
         [](const fs::path& dir) {
             writeText(dir / "run.txt", "not a run");
             BadInput in;
             in.path = (dir / "run.txt").string();
             return in;
         },
         {"run.txt", "not a run folder"}});
    add({"ClassifyFileIsFolder",
         Entry::Classify,
         "classify --file given a folder",
         [](const fs::path& dir) {
             copyTinyRun(Task::Classifier, dir / "run");
             fs::create_directory(dir / "texts");
             BadInput in;
             in.path = (dir / "run").string();
             in.classifyFile = (dir / "texts").string();
             return in;
         },
         {"texts", "not a regular file"}});

    // ---------------- sweep folders ----------------
    add({"SweepTruncated",
         Entry::Sweep,
         "sweep.json cut in the middle",
         sweepFolder([](const std::string& whole) { return whole.substr(0, whole.size() / 2); }),
         {"sweep.json", "invalid JSON"}});
    add({"SweepCellsNotAList",
         Entry::Sweep,
         "sweep.json whose cells are a number",
         sweepFolder([](const std::string& whole) {
             json j = json::parse(whole);
             j["cells"] = 7;
             return j.dump(1);
         }),
         {"sweep.json", "cells: expected a list, found an integer"}});
    add({"SweepCellMissesAField",
         Entry::Sweep,
         "a cell without its state",
         sweepFolder([](const std::string& whole) {
             json j = json::parse(whole);
             j["cells"][1].erase("state");
             return j.dump(1);
         }),
         {"sweep.json", "cells[1] misses a field or has one of the wrong type"}});
    add({"SweepRunDirEscapes",
         Entry::Sweep,
         "a cell whose run_dir leaves the sweep's runs/ (the sweep removes it before redoing the cell)",
         sweepFolder([](const std::string& whole) {
             json j = json::parse(whole);
             j["cells"][0]["run_dir"] = "runs/../../outside";
             return j.dump(1);
         }),
         {"sweep.json", "is not inside the sweep's runs/"}});
    return c;
}

}  // namespace

void PrintTo(const BadInputCase& c, std::ostream* os) { *os << c.name; }

const std::vector<BadInputCase>& badInputCatalog() {
    static const std::vector<BadInputCase> catalog = makeCatalog();
    return catalog;
}

}  // namespace wbtest
