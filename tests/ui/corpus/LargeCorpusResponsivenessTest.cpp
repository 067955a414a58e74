// A measurement, not a check (issue #30; scripts/bench-app-large-corpus.sh runs it): how long the window's
// event loop goes without turning while the app reads a large corpus on the Corpus page and then trains on
// it (the run's first tokenization, then its steps). A 10 ms timer ticks throughout; the gaps between ticks
// are the stalls a person would feel. Skipped unless LSTM_WORKBENCH_BENCH_CORPUS names the corpus; writes
// its JSON to LSTM_WORKBENCH_BENCH_OUT (or prints it).
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "TestWindow.h"
#include "UiTestSupport.h"
#include "runs/RunCollection.h"
#include "training/RunScheduler.h"
#include "workbench/domain/RunFolder.h"

namespace {

// The gaps between the ticks of a 10 ms timer while it runs.
class TickRecorder {
public:
    TickRecorder() {
        m_timer.setInterval(10);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            m_gaps.push_back(double(m_clock.nsecsElapsed()) / 1e6);
            m_clock.restart();
        });
    }
    void start() {
        m_gaps.clear();
        m_clock.start();
        m_since.start();
        m_timer.start();
    }
    nlohmann::json stop() {
        m_timer.stop();
        std::vector<double> g = m_gaps;
        std::sort(g.begin(), g.end());
        const auto at = [&g](double q) { return g.empty() ? 0.0 : g[std::size_t(q * double(g.size() - 1))]; };
        return {{"seconds", double(m_since.elapsed()) / 1000},
                {"ticks", g.size()},
                {"median_gap_ms", at(0.5)},
                {"p99_gap_ms", at(0.99)},
                {"max_gap_ms", g.empty() ? 0.0 : g.back()},
                {"gaps_over_100ms", std::count_if(g.begin(), g.end(), [](double x) { return x > 100; })}};
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock, m_since;
    std::vector<double> m_gaps;
};

}  // namespace

TEST(LargeCorpusResponsiveness, TheWindowTurnsWhileALargeCorpusIsReadAndTrainedOn) {
    const QString corpus = qEnvironmentVariable("LSTM_WORKBENCH_BENCH_CORPUS");
    if (corpus.isEmpty()) GTEST_SKIP() << "set LSTM_WORKBENCH_BENCH_CORPUS to a large plain-text corpus";
    wbuitest::TestWindow win;
    TickRecorder ticks;
    nlohmann::json out = {{"corpus", corpus.toStdString()}};

    ticks.start();
    win.w->openPath(corpus);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !win.w->corpusPanel()->isLoading(); }, 1800000));
    out["read"] = ticks.stop();
    ASSERT_TRUE(win.w->corpusPanel()->hasCorpus()) << win.w->errors()->lastError().toStdString();
    out["documents"] = win.w->corpusPanel()->stats().documents;

    // The default model (the test window's page holds a tiny one), 20 steps, on both threads.
    wb::ExperimentConfig config = wb::defaultConfig(wb::Task::LanguageModel);
    config.data.corpus = corpus.toStdString();
    config.data.format = wb::CorpusFormat::Auto;
    config.train.maxSteps = 20;
    config.train.validateEvery = 10;
    win.w->experimentPanel()->setConfig(config);
    win.w->deviceList()->setChecked(0, false);
    win.w->deviceList()->setChecked(1, true);
    win.w->deviceList()->setChecked(2, false);
    ticks.start();
    ASSERT_TRUE(win.w->launcher()->startRuns()) << win.w->errors()->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 1800000));
    out["tokenize_and_train"] = ticks.stop();
    EXPECT_EQ(win.w->errors()->errorCount(), 0) << win.w->errors()->lastError().toStdString();
    ASSERT_EQ(win.w->launcher()->runs()->size(), 1);
    const auto run = wb::loadRunFolder(win.w->launcher()->runs()->at(0).key.toStdString());
    out["config"] = nlohmann::json::parse(run.config.toJson());
    out["run"] = nlohmann::json{{"status", wb::toString(run.info.status)},
                                {"steps", run.info.summary.steps},
                                {"startup_seconds", run.info.summary.startupSeconds},
                                {"validation_seconds", run.info.summary.validationSeconds}};

    const QString path = qEnvironmentVariable("LSTM_WORKBENCH_BENCH_OUT");
    QFile file(path);
    if (!path.isEmpty() && file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(out.dump(2) + "\n"));
    else
        std::printf("%s\n", out.dump(2).c_str());
}
