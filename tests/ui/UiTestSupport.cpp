// Helpers shared by the ui tests.
#include "UiTestSupport.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QTest>
#include <QUrl>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

#include "corpus/CorpusPanel.h"
#include "training/RunController.h"
#include "workbench/domain/Corpus.h"

namespace wbuitest {

wb::ExperimentConfig tinyConfig(wb::Task task, const std::string& corpus, long long maxSteps) {
    wb::ExperimentConfig c = wb::defaultConfig(task);
    c.data.corpus = corpus;
    c.data.format = wb::CorpusFormat::Auto;
    c.data.seqLen = 16;
    c.data.valFraction = 0.2;
    if (task == wb::Task::Classifier) {
        c.data.vocabSize = 200;
        c.data.minCount = 1;
    }
    c.model.embedding = 8;
    c.model.hidden = 16;
    c.model.layers = 1;
    c.model.dropout = 0.0;
    c.train.batchSize = 8;
    // A constant rate: the default schedule's 100 warm-up steps would be most of a tiny run.
    c.train.lrSchedule = wb::LrSchedule::Constant;
    c.train.lrWarmupSteps = 0;
    c.train.weightDecay = 0;
    c.train.epochs = 50;
    c.train.maxSteps = maxSteps;
    c.train.validateEvery = 4;
    c.train.logEvery = 1;
    c.train.warmupSteps = 1;
    c.device.spec = wb::DeviceSpec::parse("cpu:1");
    return c;
}

bool waitFor(const std::function<bool()>& pred, int timeoutMs) { return QTest::qWaitFor(pred, timeoutMs); }

void dropFiles(QWidget* target, const QStringList& paths) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    const QPoint pos(target->width() / 2, target->height() / 2);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) return;
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    waitForCorpusReads(target);
}

void waitForCorpusReads(QWidget* target) {
    for (auto* panel : target->window()->findChildren<wbui::CorpusPanel*>())
        waitFor([panel] { return !panel->isLoading(); });
}

bool readCorpus(wbui::CorpusPanel& panel, const QString& path) {
    panel.loadPath(path);
    waitFor([&] { return !panel.isLoading(); });
    return panel.hasCorpus() && panel.corpusPath() == path;
}

const wbtest::TempDir& sharedTempDir() {
    static wbtest::TempDir dir;
    return dir;
}

namespace {
// A tiny run of the task trained in this process through RunController, as the app trains; `adjust` changes
// its experiment, `name` its folder.
QString train(wb::Task task, const std::string& name = "",
              const std::function<void(wb::ExperimentConfig&)>& adjust = {}) {
    const auto& tmp = sharedTempDir();
    const std::string corpusPath =
        task == wb::Task::LanguageModel ? tmp.file("pattern.txt") : tmp.file("labels.tsv");
    if (!std::filesystem::exists(corpusPath))
        wbtest::writeText(corpusPath, task == wb::Task::LanguageModel ? wbtest::patternText(200)
                                                                      : wbtest::separableTsv(160));
    const QString dir = QString::fromStdString(tmp.file(!name.empty()                     ? name
                                                        : task == wb::Task::LanguageModel ? "run-lm"
                                                                                          : "run-cls"));
    auto corpus = std::make_shared<wb::Corpus>(wb::loadCorpus(corpusPath));
    auto config = tinyConfig(task, corpusPath);
    if (adjust) adjust(config);
    wbui::RunController controller(config, dir, QStringLiteral("test"), corpus);
    bool done = false;
    QObject::connect(&controller, &wbui::RunController::finished, [&] { done = true; });
    controller.start();
    // Every test that uses this run depends on it: a run that did not finish says so here, not later.
    if (!waitFor([&] { return done; }, 240000))
        throw std::runtime_error("the shared test run did not finish within 240 s");
    if (controller.state() != wbui::RunController::State::Completed)
        throw std::runtime_error("the shared test run did not complete: " +
                                 controller.lastError().toStdString());
    return dir;
}
}  // namespace

QString trainedLanguageModelRun() {
    static const QString dir = train(wb::Task::LanguageModel);
    return dir;
}

QString trainedClassifierRun() {
    static const QString dir = train(wb::Task::Classifier);
    return dir;
}

QString trainedClassifierRun(bool bidirectional, wb::Pooling pooling) {
    static std::map<std::pair<bool, wb::Pooling>, QString> runs;
    auto& dir = runs[{bidirectional, pooling}];
    if (dir.isEmpty())
        dir = train(wb::Task::Classifier,
                    "run-cls-" + std::string(bidirectional ? "bi-" : "uni-") + wb::toString(pooling),
                    [&](wb::ExperimentConfig& c) {
                        c.model.bidirectional = bidirectional;
                        c.model.pooling = pooling;
                    });
    return dir;
}

}  // namespace wbuitest
