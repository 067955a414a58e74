// The playground on saved runs: a language model generates samples, a classifier gives class
// probabilities and token attributions; both load on the inference thread.
#include <QComboBox>
#include <QFileInfo>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <QThread>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "UiTestSupport.h"
#include "playground/InferenceWorker.h"
#include "playground/PlaygroundPanel.h"
#include "support/TestSupport.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Inference.h"
#include "workbench/engine/Training.h"

using namespace wbui;

TEST(PlaygroundPanel, GeneratesFromSavedLanguageModel) {
    const QString run = wbuitest::trainedLanguageModelRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_TRUE(panel.isLanguageModel());
    panel.setSeedText(QStringLiteral("ab"));
    panel.setLength(20);
    panel.setSamples(2);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    ASSERT_EQ(panel.results().size(), 2);
    EXPECT_TRUE(panel.results()[0].startsWith(QStringLiteral("ab")));
}

// A model of a corpus with verse tables beside it: each generated poem is checked, the characters that break
// a rule are marked, and the panel says how many poems pass.
TEST(PlaygroundPanel, ChecksGeneratedPoemsAndMarksTheCharactersThatBreakARule) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(80));
    wbtest::writeVerseTables(dir.path());
    auto config = wbuitest::tinyConfig(wb::Task::LanguageModel, dir.file("poems.json"), 20);
    wb::TrainingJob(config, dir.file("run")).run({});

    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(QString::fromStdString(dir.file("run")));
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_TRUE(panel.modelText().contains(QStringLiteral("checked for tone and rhyme")))
        << panel.modelText().toStdString();
    panel.setForm(2);  // 7-character quatrain
    panel.setSamples(4);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    ASSERT_EQ(panel.results().size(), 4);
    const QStringList summaries = panel.verseSummaries();
    ASSERT_EQ(summaries.size(), 4);
    int passed = 0, marked = 0;
    for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(summaries[i].startsWith(QStringLiteral("七绝 · "))) << summaries[i].toStdString();
        passed += summaries[i].contains(QStringLiteral("passes every rule"));
        EXPECT_TRUE(summaries[i].endsWith(QStringLiteral(" bits/char"))) << "and what the model thinks of it";
        const QString html = panel.verseText(i);
        EXPECT_TRUE(html.contains(summaries[i].toHtmlEscaped())) << "the summary is under the poem";
        // Each marked character is a character of the poem, in the mark's colour.
        EXPECT_EQ(html.count(QStringLiteral("#ffd5cc")), panel.verseMarks(i));
        marked += panel.verseMarks(i);
    }
    EXPECT_GT(marked, 0) << "with four oblique characters of sixteen, some poem breaks a rule at a character";
    EXPECT_TRUE(panel.timingText().contains(QStringLiteral("%1 of 4 pass every rule").arg(passed)))
        << panel.timingText().toStdString();

    // Strict meter: every poem passes, and says which pattern it follows.
    ASSERT_TRUE(panel.strictMeterAvailable());
    panel.setStrictMeter(true, wb::MeterPattern::Auto);
    ready.clear();
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    for (const QString& summary : panel.verseSummaries()) {
        EXPECT_TRUE(summary.startsWith(QStringLiteral("七绝 · passes every rule · ")))
            << summary.toStdString();
        EXPECT_TRUE(summary.contains(QStringLiteral("首句"))) << summary.toStdString();
    }
    EXPECT_TRUE(panel.timingText().contains(QStringLiteral("4 of 4 pass every rule")))
        << panel.timingText().toStdString();

    // Free text is not checked, and strict meter is not offered for it.
    panel.setForm(0);
    EXPECT_FALSE(panel.strictMeterAvailable());
    panel.setLength(10);
    ready.clear();
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    ASSERT_EQ(panel.results().size(), 4) << "free text was generated";
    EXPECT_TRUE(panel.verseSummaries().isEmpty());
    EXPECT_FALSE(panel.timingText().contains(QStringLiteral("pass every rule")))
        << panel.timingText().toStdString();
}

// A model whose corpus has no tone and rhyme tables on this machine offers no strict meter, and says why.
TEST(PlaygroundPanel, StrictMeterNeedsTheCorpusTables) {
    const QString run = wbuitest::trainedLanguageModelRun();
    wbtest::TempDir cache;  // with no shared tables in it
    const QByteArray saved = qgetenv("LSTM_WORKBENCH_DATA");
    qputenv("LSTM_WORKBENCH_DATA", QByteArray::fromStdString(cache.str()));
    const auto restore = qScopeGuard([&] {
        if (saved.isNull())
            qunsetenv("LSTM_WORKBENCH_DATA");
        else
            qputenv("LSTM_WORKBENCH_DATA", saved);
    });
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    panel.setForm(2);
    EXPECT_FALSE(panel.strictMeterAvailable());
    EXPECT_TRUE(panel.strictMeterToolTip().contains(QStringLiteral("tones.json")))
        << panel.strictMeterToolTip().toStdString();
}

// A model of the user's own poems JSON, with no tables beside it: once a Tang corpus has left the shared
// tables in the corpus cache, its poems are checked and strict meter is offered, as for a Tang corpus.
TEST(PlaygroundPanel, AUsersPoemCorpusGetsTheSharedTables) {
    wbtest::TempDir dir, cache;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(80));
    wbtest::writeVerseTables(cache.path() / "verse-tables");
    const QByteArray saved = qgetenv("LSTM_WORKBENCH_DATA");
    qputenv("LSTM_WORKBENCH_DATA", QByteArray::fromStdString(cache.str()));
    const auto restore = qScopeGuard([&] {
        if (saved.isNull())
            qunsetenv("LSTM_WORKBENCH_DATA");
        else
            qputenv("LSTM_WORKBENCH_DATA", saved);
    });
    auto config = wbuitest::tinyConfig(wb::Task::LanguageModel, dir.file("poems.json"), 20);
    wb::TrainingJob(config, dir.file("run")).run({});

    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(QString::fromStdString(dir.file("run")));
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_TRUE(panel.modelText().contains(QStringLiteral("checked for tone and rhyme")))
        << panel.modelText().toStdString();
    panel.setForm(2);
    ASSERT_TRUE(panel.strictMeterAvailable()) << panel.strictMeterToolTip().toStdString();
    panel.setStrictMeter(true, wb::MeterPattern::Auto);
    panel.setSamples(3);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    ASSERT_EQ(panel.verseSummaries().size(), 3);
    for (const QString& summary : panel.verseSummaries())
        EXPECT_TRUE(summary.startsWith(QStringLiteral("七绝 · passes every rule"))) << summary.toStdString();
}

TEST(PlaygroundPanel, ClassifiesWithSavedClassifier) {
    const QString run = wbuitest::trainedClassifierRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_FALSE(panel.isLanguageModel());
    panel.setClassifierText(QStringLiteral("a good great fine text"));
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.classify();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_EQ(panel.classLabels().size(), 2);
    EXPECT_TRUE(panel.attributionHtml().contains(QStringLiteral("background-color")));
}

TEST(PlaygroundPanel, SaysHowLongAGenerationTookAndForgetsItWhenAnotherModelLoads) {
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(wbuitest::trainedLanguageModelRun());
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    EXPECT_TRUE(panel.timingText().isEmpty());
    panel.setLength(10);
    panel.setSamples(3);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(panel.results().size(), 3);
    EXPECT_TRUE(panel.timingText().startsWith(QStringLiteral("3 samples in ")))
        << panel.timingText().toStdString();
    EXPECT_TRUE(panel.timingText().endsWith(QStringLiteral(" ms")));

    // Another model: the first one's samples and timing are gone, not shown as if the new one wrote them.
    const QString classifier = wbuitest::trainedClassifierRun();
    panel.loadRun(classifier);
    ASSERT_TRUE(wbuitest::waitFor([&] { return panel.loadedRun() == classifier || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_TRUE(panel.results().isEmpty());
    EXPECT_TRUE(panel.timingText().isEmpty());
}

TEST(PlaygroundPanel, MissingRunReportsError) {
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(QStringLiteral("/nonexistent/run"));
    ASSERT_TRUE(wbuitest::waitFor([&] { return errors.count() > 0; }));
    EXPECT_TRUE(panel.loadedRun().isEmpty());
}

// A poem's options that contradict each other are said in the panel's words, with what to change, before
// anything reaches the engine (whose own message names no box: "give either a seed text or an acrostic").
TEST(PlaygroundPanel, ContradictoryPoemOptionsSayWhichBoxToChange) {
    const QString run = wbuitest::trainedLanguageModelRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    const auto adviceFor = [&](int form, const QString& seed, const QString& acrostic) {
        panel.setForm(form);
        panel.setSeedText(seed);
        panel.setAcrostic(acrostic);
        errors.clear();
        panel.generate();
        return errors.count() == 1 ? errors.at(0).at(1).toString() : QStringLiteral("(no message)");
    };
    const QString both = adviceFor(2, QStringLiteral("春"), QStringLiteral("春江"));
    EXPECT_TRUE(both.contains(QStringLiteral("Seed box")) && both.contains(QStringLiteral("Acrostic box")))
        << both.toStdString();
    const QString acrostic = adviceFor(1, QString(), QStringLiteral("春江花月夜"));
    EXPECT_TRUE(acrostic.contains(QStringLiteral("at most 4 characters in the Acrostic box")))
        << acrostic.toStdString();
    const QString seed = adviceFor(3, QStringLiteral("春江花月夜春"), QString());
    EXPECT_TRUE(seed.contains(QStringLiteral("to 5 characters"))) << seed.toStdString();
    EXPECT_EQ(ready.count(), 0);  // none of them was sent to the model
}

TEST(PlaygroundPanel, ClosingDuringALongGenerationEndsAtOnce) {
    // Trained long enough that <eos> is rare: each sample runs to thousands of characters.
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("pattern.txt"), wbtest::patternText(200));
    wb::TrainingJob(wbuitest::tinyConfig(wb::Task::LanguageModel, tmp.file("pattern.txt"), 150),
                    tmp.file("run"))
        .run();
    const QString run = QString::fromStdString(tmp.file("run"));
    auto panel = std::make_unique<PlaygroundPanel>();
    QSignalSpy errors(panel.get(), &PlaygroundPanel::errorOccurred);
    panel->loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel->loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0);
    // Greedy on the learnt pattern never picks <eos>: 50 samples of 100,000 characters each, the most the
    // panel allows (seconds of work even on the fp16 path).
    panel->setTemperature(0);
    panel->setLength(100000);
    panel->setSamples(50);
    QSignalSpy ready(panel.get(), &PlaygroundPanel::resultsReady);
    panel->generate();
    // Close with the request queued or running on the inference thread (no event is processed in
    // between, so no result can have arrived). The destructor asks the worker to end at its next token and
    // waits for its thread: this returns, nothing is delivered, nothing crashes. How fast the close is
    // belongs in a benchmark; a close that waited for all 50 samples would still pass here.
    panel.reset();  // what closing the window does
    EXPECT_EQ(ready.count(), 0);
    EXPECT_EQ(errors.count(), 0);
    QCoreApplication::processEvents();  // a result queued by the worker would be delivered to a dead panel
}

// What closing the window relies on (the test above cannot see it: the panel is gone): a worker shut down
// during a generation ends it at the next token. The request's own cancel callback, polled before every
// token on the worker's thread, shuts the worker down the first time it is polled, so the shut-down
// arrives mid-generation for sure; a worker that ignored it would finish all five samples.
TEST(InferenceWorker, AShutDownEndsTheGenerationInProgressAtItsNextToken) {
    const QString run = wbuitest::trainedLanguageModelRun();
    QThread thread;
    auto* worker = new InferenceWorker;
    worker->moveToThread(&thread);
    thread.start();
    QSignalSpy loaded(worker, &InferenceWorker::loaded);
    QSignalSpy generated(worker, &InferenceWorker::generated);
    QSignalSpy failed(worker, &InferenceWorker::failed);
    QMetaObject::invokeMethod(
        worker, [&] { worker->load(run); }, Qt::BlockingQueuedConnection);
    ASSERT_EQ(loaded.count(), 1);
    wb::GenerateOptions o;
    o.length = 2000;
    o.samples = 5;
    o.temperature = 0;
    std::atomic<int> polls{0};
    o.cancelled = [&] {
        if (polls++ == 0) worker->shutDown();
        return false;
    };
    QMetaObject::invokeMethod(
        worker, [&] { worker->generate(o); }, Qt::BlockingQueuedConnection);
    EXPECT_EQ(failed.count(), 0);
    ASSERT_EQ(generated.count(), 1);
    EXPECT_TRUE(generated.at(0).at(0).toStringList().isEmpty()) << "samples finished after the shut-down";
    EXPECT_EQ(polls.load(), 1);  // the next token saw the shut-down
    thread.quit();
    thread.wait();
    delete worker;
}

// The app answers as every other way of asking does: what the Playground's worker gives a text alone equals
// what the model gives it padded by 2 and by 16 tokens in a batch beside a longer text (as validation and
// `classify --lines` batch texts), within 1e-5, for bidirectional and forward classifiers of every pooling.
TEST(InferenceWorker, ClassifiesATextAsPaddedBatchesDo) {
    for (bool bidirectional : {true, false})
        for (auto pooling : {wb::Pooling::Last, wb::Pooling::Mean, wb::Pooling::Max}) {
            const QString run = wbuitest::trainedClassifierRun(bidirectional, pooling);
            const auto model = wb::TrainedModel::load(run.toStdString());
            ASSERT_EQ(model->config().model.bidirectional, bidirectional);
            ASSERT_EQ(model->config().model.pooling, pooling);
            QThread thread;
            auto* worker = new InferenceWorker;
            worker->moveToThread(&thread);
            thread.start();
            const auto stop = qScopeGuard([&] {
                thread.quit();
                thread.wait();
                delete worker;
            });
            QSignalSpy classified(worker, &InferenceWorker::classified);
            QSignalSpy failed(worker, &InferenceWorker::failed);
            QMetaObject::invokeMethod(
                worker, [&] { worker->load(run); }, Qt::BlockingQueuedConnection);
            for (const std::string text : {"great", "the movie was dull", "a lovely plot and it was sad"}) {
                const auto what = text + (bidirectional ? " (bidirectional, " : " (forward, ") +
                                  wb::toString(pooling) + ")";
                classified.clear();
                QMetaObject::invokeMethod(
                    worker, [&] { worker->classify(QString::fromStdString(text), 0); },
                    Qt::BlockingQueuedConnection);
                ASSERT_EQ(failed.count(), 0) << failed.value(0).value(0).toString().toStdString();
                ASSERT_EQ(classified.count(), 1);
                const auto labels = classified.at(0).at(1).toStringList();
                const auto probabilities = classified.at(0).at(2).value<QVector<double>>();
                ASSERT_EQ(labels.size(), static_cast<qsizetype>(model->classes().size()));
                const auto words = static_cast<std::size_t>(std::count(text.begin(), text.end(), ' ') + 1);
                for (std::size_t pads : {0, 2, 16}) {
                    std::string longer;
                    for (std::size_t w = 0; w < words + pads; ++w) longer += w ? " movie" : "movie";
                    const auto batch = model->classifyBatch({text, longer}, 0, 2);
                    for (const auto& c : batch[0].top) {
                        const auto at = labels.indexOf(QString::fromStdString(c.label));
                        ASSERT_GE(at, 0);
                        EXPECT_NEAR(probabilities[at], c.probability, 1e-5)
                            << what << " + " << pads << " pads";
                    }
                }
            }
        }
}

// The best weights (lowest validation loss) answer by default, as Export Model takes them (#63: the
// Playground answered with the last while the export took the best); the last load on request; a run that
// kept no best weights answers with its last, and the model line says which weights answer.
TEST(PlaygroundPanel, AnswersWithTheBestCheckpointLikeTheExportAndTheLastOnRequest) {
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    QSignalSpy loaded(&panel, &PlaygroundPanel::modelLoaded);
    const QString run = wbuitest::trainedLanguageModelRun();
    ASSERT_TRUE(QFileInfo::exists(run + QStringLiteral("/best-model.safetensors")));
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return loaded.count() == 1 || errors.count() > 0; }));
    EXPECT_TRUE(panel.modelText().contains(QStringLiteral("best checkpoint")))
        << panel.modelText().toStdString();
    panel.setBestCheckpoint(false);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return loaded.count() == 2 || errors.count() > 0; }));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_TRUE(panel.modelText().contains(QStringLiteral("last checkpoint")))
        << panel.modelText().toStdString();

    // A copy of the run without its best weights: the last answer, said as such.
    wbtest::TempDir tmp;
    const auto copy = tmp.path() / "no-best";
    std::filesystem::copy(run.toStdString(), copy, std::filesystem::copy_options::recursive);
    std::filesystem::remove(copy / "best-model.safetensors");
    panel.setBestCheckpoint(true);
    panel.loadRun(QString::fromStdString(copy.string()));
    ASSERT_TRUE(wbuitest::waitFor([&] { return loaded.count() == 3 || errors.count() > 0; }));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_TRUE(panel.modelText().contains(QStringLiteral("last checkpoint (the run kept no best one)")))
        << panel.modelText().toStdString();
}

// The run box names runs as every list does: by their name, not their folder's.
TEST(PlaygroundPanel, TheRunBoxShowsRunNames) {
    const QString run = wbuitest::trainedLanguageModelRun();
    PlaygroundPanel panel;
    panel.setRuns({run});
    const auto record = wb::loadRunFolder(run.toStdString());
    ASSERT_EQ(panel.findChild<QComboBox*>()->count(), 1);
    EXPECT_EQ(panel.findChild<QComboBox*>()->itemText(0).toStdString(), record.name());
}
