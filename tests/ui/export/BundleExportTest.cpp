// File → Export → Comparison bundle: the folder holds the overlay in each x-axis mode, each run's chart,
// the throughput bars, every series as CSV, the comparison table as CSV, each run's config and the
// environment; a folder that cannot be made is reported (no dialog) and nothing is claimed written.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include "MainWindow.h"
#include "UiTestSupport.h"
#include "charts/ThroughputChart.h"
#include "common/ErrorPresenter.h"
#include "export/ComparisonExport.h"
#include "runs/RunCollection.h"
#include "training/RunLauncher.h"

using namespace wbui;

namespace {

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

TEST(BundleExport, WritesChartsTablesConfigsAndEnvironment) {
    wbtest::TempDir tmp;
    MainWindow w;
    w.errors()->setDialogsEnabled(false);
    w.setRunsDirectory(QString::fromStdString(tmp.file("runs")));
    w.resize(1400, 900);
    const QString run = wbuitest::trainedLanguageModelRun();
    ASSERT_TRUE(w.openPath(run));
    ASSERT_EQ(w.launcher()->runs()->size(), 1);
    const QString id = QFileInfo(run).fileName();

    const QString dir = QString::fromStdString(tmp.file("bundle"));
    ASSERT_TRUE(w.comparisonExport()->exportBundle(dir));
    EXPECT_EQ(w.errors()->errorCount(), 0);

    for (const char* name : {"overlay-step.png", "overlay-wall-seconds.png", "overlay-samples.png"}) {
        const QImage image(dir + QLatin1Char('/') + QLatin1String(name));
        EXPECT_FALSE(image.isNull()) << name;
    }
    EXPECT_FALSE(QImage(dir + QStringLiteral("/run-%1.png").arg(id)).isNull());
    // The run finished, so it has a throughput and the bars are drawn at (at least) the export size.
    ASSERT_GT(w.throughputChart()->barCount(), 0);
    const QImage bars(dir + QStringLiteral("/throughput.png"));
    ASSERT_FALSE(bars.isNull());
    EXPECT_GE(bars.width(), 800);
    EXPECT_GE(bars.height(), 300);
    // Laid out at the export size even though the Compare tab was never shown: the chart reaches into the
    // image's bottom-right quarter instead of sitting squashed in its top-left corner.
    int inked = 0;
    for (int y = bars.height() / 2; y < bars.height(); ++y)
        for (int x = bars.width() / 2; x < bars.width(); ++x) inked += qGray(bars.pixel(x, y)) < 200;
    EXPECT_GT(inked, 50);

    const QString metrics = readAll(dir + QStringLiteral("/metrics.csv"));
    EXPECT_TRUE(metrics.startsWith(QStringLiteral("run_id,"))) << metrics.left(80).toStdString();
    EXPECT_TRUE(metrics.contains(id));
    const QStringList table =
        readAll(dir + QStringLiteral("/comparison.csv")).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(table.size(), 2);  // header and the one run
    EXPECT_TRUE(table[1].contains(id));
    // Named as the window names it (the panels, the legend, the table).
    EXPECT_TRUE(table[1].contains(w.launcher()->runs()->at(0).label)) << table[1].toStdString();

    const QJsonDocument config =
        QJsonDocument::fromJson(readAll(dir + QStringLiteral("/configs/%1.json").arg(id)).toUtf8());
    ASSERT_TRUE(config.isObject());
    const QJsonDocument env =
        QJsonDocument::fromJson(readAll(dir + QStringLiteral("/environment.json")).toUtf8());
    ASSERT_TRUE(env.isObject());
    EXPECT_TRUE(env.object().contains(QStringLiteral("libtorch")));
}

TEST(BundleExport, FolderThatCannotBeMadeIsReported) {
    wbtest::TempDir tmp;
    MainWindow w;
    w.errors()->setDialogsEnabled(false);
    w.setRunsDirectory(QString::fromStdString(tmp.file("runs")));
    ASSERT_TRUE(w.openPath(wbuitest::trainedLanguageModelRun()));
    wbtest::writeText(tmp.file("a-file"), "not a folder\n");
    EXPECT_FALSE(w.comparisonExport()->exportBundle(QString::fromStdString(tmp.file("a-file")) +
                                                    QStringLiteral("/bundle")));
    EXPECT_EQ(w.errors()->errorCount(), 1);
}
