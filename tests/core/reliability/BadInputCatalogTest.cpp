// The bad-input catalogue (tests/support/BadInputs.h) driven through the core API: every malformed input
// gives one InputError, on one line, naming the file (and line), and leaves its folder exactly as it was;
// the inputs a user expects to work (BOM, CRLF, a 100 MB line, …) load and give the documents meant.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/CorpusOverview.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Sweep.h"
#include "workbench/domain/Verse.h"
#include "workbench/engine/Inference.h"
#include "workbench/engine/Training.h"

namespace fs = std::filesystem;
using wbtest::BadInput;
using wbtest::BadInputCase;
using wbtest::Entry;

namespace {

// What the API did: the error (when it threw an InputError) and, for corpus entries, what it loaded.
struct Outcome {
    bool threw = false;
    std::string what;
    std::int64_t line = 0;
    std::string file;
    wb::CorpusOverview corpus;  // what `inspect` and the Corpus page read
};

void callApi(const BadInputCase& c, const BadInput& in, Outcome& o) {
    switch (c.entry) {
        case Entry::Inspect: {
            o.corpus =
                wb::readCorpusOverview(wb::resolveCorpusPath(in.path), wb::CorpusFormat::Auto, 20, 200);
            break;
        }
        case Entry::Train: {
            wb::TrainingJob job(wbtest::tinyTrainConfig(in.path, c.task), in.out);
            job.run();
            break;
        }
        case Entry::TrainConfig: {
            auto config = wb::ExperimentConfig::fromJson(wb::readFile(in.path), in.path);
            config.data.corpus = in.corpus;
            config.ensureValid(in.path);
            wb::TrainingJob job(config, in.out);
            job.run();
            break;
        }
        case Entry::Resume:
            wb::TrainingJob::resume(in.path)->run();
            break;
        case Entry::Generate: {
            wb::GenerateOptions g;
            g.length = 5;
            (void)wb::TrainedModel::load(in.path)->generate(g);
            break;
        }
        case Entry::GeneratePoem: {
            const auto model = wb::TrainedModel::load(in.path);
            const auto verse = wb::verseCheckerForCorpus(model->config().data.corpus);
            wb::GenerateOptions g;
            g.form = wb::PoemForm::Quatrain7;
            g.meter = wb::Meter::Strict;
            g.verse = verse ? &*verse : nullptr;
            (void)model->generate(g);
            break;
        }
        case Entry::Classify: {
            const auto model = wb::TrainedModel::load(in.path);
            const std::string text = in.classifyFile.empty() ? "a good film" : wb::readFile(in.classifyFile);
            (void)model->classify(text);
            break;
        }
        case Entry::Compare: {
            std::vector<wb::RunRecord> runs{wb::loadRunFolder(in.path)};
            (void)wb::compareRuns(runs, 0);
            break;
        }
        case Entry::Sweep:
            (void)wb::loadSweep(in.path);
            break;
    }
}

class BadInputCatalog : public ::testing::TestWithParam<BadInputCase> {};

TEST_P(BadInputCatalog, ThroughTheApi) {
    const BadInputCase& c = GetParam();
    wbtest::TempDir dir;
    const BadInput in = c.write(dir.path());
    const auto before = wbtest::snapshotTree(dir.path());
    wbtest::ScopedEnv env(c.env);

    // A call that blocks (a FIFO read, a symlink loop followed) hangs here until ctest's timeout ends the
    // test: that is the hang guard. How long a call takes is not asserted.
    Outcome o;
    try {
        callApi(c, in, o);
    } catch (const wb::InputError& e) {
        o.threw = true;
        o.what = e.what();
        o.line = e.line();
        o.file = e.file();
    } catch (const std::exception& e) {
        FAIL() << c.name << ": expected an InputError, got another exception: " << e.what();
    }

    if (c.accepted()) {
        ASSERT_FALSE(o.threw) << c.name << ": expected the input to be accepted, got: " << o.what;
        if (c.documents >= 0) {
            ASSERT_EQ(o.corpus.stats.documents, c.documents) << c.name;
            ASSERT_FALSE(o.corpus.preview.empty()) << c.name;
            EXPECT_EQ(o.corpus.preview[0].text.rfind(c.firstText, 0), 0u)
                << c.name << ": first document starts with '" << o.corpus.preview[0].text.substr(0, 40)
                << "'";
            for (const auto& d : o.corpus.preview) {
                EXPECT_EQ(d.text.find('\r'), std::string::npos) << c.name;
                EXPECT_EQ(d.label.find('\r'), std::string::npos) << c.name;
                EXPECT_EQ(d.text.rfind("\xEF\xBB\xBF", 0), std::string::npos) << c.name << ": BOM kept";
            }
            EXPECT_EQ(o.corpus.classes, c.classes) << c.name;
        }
        return;
    }
    ASSERT_TRUE(o.threw) << c.name << ": expected an InputError, the call succeeded";
    EXPECT_EQ(o.what.find('\n'), std::string::npos) << c.name << ": not one line: " << o.what;
    EXPECT_EQ(o.what.find('\r'), std::string::npos) << c.name << ": not one line: " << o.what;
    for (const auto& fragment : c.expected)
        EXPECT_NE(o.what.find(fragment), std::string::npos)
            << c.name << ": '" << fragment << "' not in: " << o.what;
    EXPECT_FALSE(o.file.empty()) << c.name << ": the error names no file: " << o.what;
    EXPECT_NE(o.file.find(c.expected.front()), std::string::npos)
        << c.name << ": the error's file is '" << o.file << "': " << o.what;
    if (c.line > 0) {
        EXPECT_EQ(o.line, c.line) << c.name << ": " << o.what;
        EXPECT_NE(o.what.find(":" + std::to_string(c.line) + ": "), std::string::npos)
            << c.name << ": " << o.what;
    }
    EXPECT_EQ(wbtest::snapshotTree(dir.path()), before) << c.name << ": the call changed or left files";
    if (!in.out.empty()) {
        EXPECT_FALSE(fs::exists(in.out)) << c.name << ": a run folder was left behind";
    }
}

INSTANTIATE_TEST_SUITE_P(Catalog, BadInputCatalog, ::testing::ValuesIn(wbtest::badInputCatalog()),
                         [](const ::testing::TestParamInfo<BadInputCase>& info) { return info.param.name; });

TEST(BadInputCatalogSize, HasTheCasesTheDocsCountWithUniqueNames) {
    const auto& all = wbtest::badInputCatalog();
    EXPECT_EQ(all.size(), 99u) << "docs/reliability.md counts 99 cases: update it with the catalogue";
    std::set<std::string> names;
    for (const auto& c : all) EXPECT_TRUE(names.insert(c.name).second) << c.name;
    // BAD_INPUT_TABLE=FILE writes the catalogue as the Markdown table of docs/reliability.md.
    if (const char* out = std::getenv("BAD_INPUT_TABLE")) {
        std::ofstream md(out);
        md << "| # | Entry point (CLI / API) | Case | Expected behaviour |\n|---|---|---|---|\n";
        int n = 0;
        for (const auto& c : all) {
            std::string expected;
            if (c.accepted()) {
                expected = "accepted";
                if (c.documents >= 0) expected += ": " + std::to_string(c.documents) + " document(s)";
            } else {
                expected = "exit 2 / InputError naming `" + c.expected.front() + "`";
                if (c.line > 0) expected += " line " + std::to_string(c.line);
                for (std::size_t k = 1; k < c.expected.size(); ++k)
                    expected += (k == 1 ? ": \"" : "\", \"") + c.expected[k];
                if (c.expected.size() > 1) expected += "\"";
            }
            for (auto& ch : expected)
                if (ch == '|') ch = '/';
            md << "| " << ++n << " | `" << wbtest::cliCommand(c.entry) << "` / `" << wbtest::apiCall(c.entry)
               << "` | " << c.name << ": " << c.description << (c.env.empty() ? "" : " (memory limit set)")
               << " | " << expected << " |\n";
        }
    }
}

}  // namespace
