// Every corpus case of the bad-input catalogue (tests/support/BadInputs.cpp) dropped on the main window
// after a good corpus: the app reports one error naming the file, keeps the corpus it had, and the folder
// of the bad input is left as it was. Inputs the catalogue expects to load must load. Cases the catalogue
// marks as refused only at training (FailsAt::Training) must load at the drop and fail when run.
#include <gtest/gtest.h>

#include "TestWindow.h"
#include "UiTestSupport.h"
#include "support/BadInputs.h"
#include "training/DeviceList.h"
#include "training/RunScheduler.h"

using namespace wbui;

namespace {
std::vector<wbtest::BadInputCase> corpusCases() {
    std::vector<wbtest::BadInputCase> out;
    for (const auto& c : wbtest::badInputCatalog())
        // Inspect and Train read the corpus first; the 100 MB line is accepted and covered by the core
        // suites.
        if ((c.entry == wbtest::Entry::Inspect || c.entry == wbtest::Entry::Train) &&
            c.name != "HundredMegabyteLine")
            out.push_back(c);
    return out;
}
}  // namespace

class BadCorpusDrop : public ::testing::TestWithParam<wbtest::BadInputCase> {};

TEST_P(BadCorpusDrop, ReportsAndKeepsThePreviousCorpus) {
    const auto& c = GetParam();
    wbuitest::TestWindow win;
    const QString good = win.write("good.txt", wbtest::patternText(50));
    wbuitest::dropFiles(win.w.get(), {good});
    ASSERT_EQ(win.w->corpusPanel()->corpusPath(), good);

    wbtest::TempDir dir;
    const wbtest::ScopedEnv env(c.env);
    const auto input = c.write(dir.path());
    const auto before = wbtest::snapshotTree(dir.path());
    const int errorsBefore = win.w->errors()->errorCount();
    wbuitest::dropFiles(win.w.get(), {QString::fromStdString(input.path)});

    if (c.accepted()) {
        EXPECT_EQ(win.w->errors()->errorCount(), errorsBefore) << win.w->errors()->lastError().toStdString();
        EXPECT_EQ(win.w->corpusPanel()->corpusPath().toStdString(), input.path);
        return;
    }
    if (c.failsAt == wbtest::FailsAt::Training) {
        // The loader accepts it: the drop loads it without a word…
        ASSERT_EQ(win.w->errors()->errorCount(), errorsBefore) << win.w->errors()->lastError().toStdString();
        ASSERT_EQ(win.w->corpusPanel()->corpusPath().toStdString(), input.path);
        // …and Run on the case's tiny experiment fails with the catalogue's error.
        win.w->experimentPanel()->setConfig(wbuitest::tinyConfig(c.task, input.path, 2));
        win.w->deviceList()->setChecked(0, true);
        win.w->deviceList()->setChecked(1, false);
        win.w->deviceList()->setChecked(2, false);
        win.w->launcher()->startRuns();  // refused at once, or the run fails on its thread
        ASSERT_TRUE(wbuitest::waitFor([&] { return win.w->errors()->errorCount() > errorsBefore; }, 60000))
            << "no error when training on it";
        EXPECT_EQ(win.w->errors()->errorCount(), errorsBefore + 1);
        const std::string error = win.w->errors()->lastError().toStdString();
        for (const auto& fragment : c.expected)
            EXPECT_NE(error.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << error;
        ASSERT_TRUE(wbuitest::waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 60000));
        return;
    }
    // Refused by the loader: the drop reports it.
    ASSERT_EQ(win.w->errors()->errorCount(), errorsBefore + 1);
    const std::string error = win.w->errors()->lastError().toStdString();
    EXPECT_NE(error.find(c.expected.front()), std::string::npos) << error;
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), good) << "the previous corpus must stay";
    EXPECT_TRUE(win.w->corpusPanel()->hasCorpus());
    EXPECT_EQ(wbtest::snapshotTree(dir.path()), before) << "the bad input's folder changed";
}

INSTANTIATE_TEST_SUITE_P(Catalog, BadCorpusDrop, ::testing::ValuesIn(corpusCases()),
                         [](const ::testing::TestParamInfo<wbtest::BadInputCase>& info) {
                             return info.param.name;
                         });
