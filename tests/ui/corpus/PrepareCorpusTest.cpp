// The Prepare flow of the corpus panel, run for real: the source tree's preparer (what a build finds)
// prepares tang-quatrains-7 from a local fixture package ($LSTM_WORKBENCH_OFFLINE_SOURCE, no network) with
// progress and loads it; a registry that cannot be reached (a stand-in npm that fails as npm does offline) is
// said in words that tell the user what to do; Cancel stops a preparation and leaves nothing behind.
#include <QPushButton>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "UiTestSupport.h"
#include "corpus/CorpusPanel.h"
#include "corpus/CorpusPreparer.h"
#include "support/BadInputs.h"

using namespace wbui;
namespace fs = std::filesystem;

namespace {

// Everything in the cache a reader could take for a corpus, or that a cancelled run left behind.
std::vector<std::string> visibleOrLeftover(const fs::path& cache) {
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name[0] != '.' || name.find(".tmp-") != std::string::npos ||
            name.find(".old-") != std::string::npos)
            found.push_back(name);
    }
    return found;
}

// A stand-in `npm` first on PATH: `body` is its shell script.
std::string fakeNpm(const wbtest::TempDir& tmp, const std::string& body) {
    const fs::path bin = tmp.path() / "fake-bin";
    fs::create_directories(bin);
    std::ofstream(bin / "npm") << "#!/bin/sh\n" << body << "\n";
    fs::permissions(bin / "npm", fs::perms::owner_all, fs::perm_options::add);
    return bin.string() + ":" + std::getenv("PATH");
}

class PrepareCorpus : public ::testing::Test {
protected:
    wbtest::TempDir tmp;
    fs::path cache = tmp.path() / "cache";
    void clickPrepare(CorpusPanel& panel) {
        ASSERT_TRUE(panel.canPrepare());
        // The preparer lists what it can fetch without blocking the window.
        ASSERT_TRUE(
            wbuitest::waitFor([&] { return panel.catalogButtonText() == QStringLiteral("Prepare"); }, 30000))
            << panel.catalogButtonText().toStdString();
        panel.selectReadyCorpus(QStringLiteral("tang-quatrains-7"));
        ASSERT_EQ(panel.catalogSelection(), QStringLiteral("tang-quatrains-7"));
        QPushButton* button = nullptr;
        for (auto* b : panel.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Prepare")) button = b;
        ASSERT_NE(button, nullptr);
        ASSERT_TRUE(button->isEnabled());
        button->click();
    }
};

TEST_F(PrepareCorpus, FromAPackageWithProgressThenLoaded) {
    const std::string packages = tmp.file("packages");
    const std::string script = wbtest::sourcePath("tests/support/fixture_packages.py");
    ASSERT_EQ(std::system(("/usr/bin/python3 " + script + " " + packages + " >/dev/null").c_str()), 0);
    const wbtest::ScopedEnv env{
        {{"LSTM_WORKBENCH_DATA", cache.string()}, {"LSTM_WORKBENCH_OFFLINE_SOURCE", packages}}};
    CorpusPanel panel;
    QSignalSpy progress(panel.preparer(), &CorpusPreparer::progress);
    QSignalSpy prepared(&panel, &CorpusPanel::prepared);
    QSignalSpy loaded(&panel, &CorpusPanel::corpusLoaded);
    clickPrepare(panel);
    ASSERT_TRUE(wbuitest::waitFor([&] { return prepared.count() == 1; }, 120000))
        << panel.messageText().toStdString();
    // The fixture package was read with a known length: at least one step of the bar was a real fraction.
    bool determinate = false;
    for (const auto& call : progress) determinate = determinate || call[2].toLongLong() > 0;
    EXPECT_TRUE(determinate);
    ASSERT_TRUE(wbuitest::waitFor([&] { return loaded.count() == 1; }, 30000));  // read on its own thread
    EXPECT_EQ(panel.displayName(), QStringLiteral("tang-quatrains-7"));
    EXPECT_EQ(panel.stats().documents, 48);
    EXPECT_EQ(panel.catalogButtonText(), QStringLiteral("Load"));
    EXPECT_TRUE(panel.messageText().contains(QStringLiteral("Prepared and loaded tang-quatrains-7")));
    EXPECT_TRUE(fs::is_regular_file(cache / "tang-quatrains-7" / "manifest.json"));
}

TEST_F(PrepareCorpus, UnreachableRegistryIsSaidWithWhatToDo) {
    const wbtest::ScopedEnv env{
        {{"LSTM_WORKBENCH_DATA", cache.string()},
         {"LSTM_WORKBENCH_OFFLINE_SOURCE", ""},
         {"PATH", fakeNpm(tmp,
                          "echo 'npm error code ENOTFOUND' >&2\n"
                          "echo 'npm error network request to https://registry.npmjs.org "
                          "failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org' >&2\n"
                          "exit 1")}}};
    CorpusPanel panel;
    QSignalSpy failed(&panel, &CorpusPanel::prepareFailed);
    QSignalSpy errors(&panel, &CorpusPanel::loadFailed);
    clickPrepare(panel);
    ASSERT_TRUE(wbuitest::waitFor([&] { return failed.count() == 1; }, 60000));
    const QString message = failed[0][1].toString();
    EXPECT_TRUE(message.contains(QStringLiteral("could not be reached"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("press Prepare again"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("ENOTFOUND"))) << message.toStdString();
    EXPECT_EQ(errors.count(), 1);
    EXPECT_FALSE(panel.hasCorpus());
    EXPECT_EQ(visibleOrLeftover(cache), std::vector<std::string>{});
    EXPECT_TRUE(
        wbuitest::waitFor([&] { return panel.catalogButtonText() == QStringLiteral("Prepare"); }, 30000));
}

TEST_F(PrepareCorpus, CancelStopsAndLeavesNothingBehind) {
    const std::string started = tmp.file("npm-started");
    const wbtest::ScopedEnv env{{{"LSTM_WORKBENCH_DATA", cache.string()},
                                 {"LSTM_WORKBENCH_OFFLINE_SOURCE", ""},
                                 {"PATH", fakeNpm(tmp, "touch " + started + "\nexec sleep 60")}}};
    CorpusPanel panel;
    QSignalSpy failed(&panel, &CorpusPanel::prepareFailed);
    QSignalSpy errors(&panel, &CorpusPanel::loadFailed);
    clickPrepare(panel);
    // Cancel while the preparer waits on the registry, its half-built folder in the cache.
    ASSERT_TRUE(wbuitest::waitFor([&] { return fs::exists(started); }, 60000));
    EXPECT_TRUE(panel.preparer()->busy());
    panel.preparer()->cancel();
    ASSERT_TRUE(wbuitest::waitFor([&] { return failed.count() == 1; }, 30000));
    EXPECT_TRUE(failed[0][1].toString().contains(QStringLiteral("cancelled")))
        << failed[0][1].toString().toStdString();
    EXPECT_EQ(errors.count(), 0);  // the user asked for it: no error dialog
    EXPECT_EQ(visibleOrLeftover(cache), std::vector<std::string>{});
    EXPECT_FALSE(panel.preparer()->busy());
}

}  // namespace
