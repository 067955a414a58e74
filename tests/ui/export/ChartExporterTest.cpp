// Export: the overlay chart as a PNG that decodes (and SVG/PDF files), all series as a CSV whose rows
// match the run's metrics, a comparison bundle, and the headless compare the CLI uses.
#include <QDate>
#include <QFile>
#include <QFileInfo>
#include <QImage>

#include <gtest/gtest.h>

#include "workbench/graphics/QCustomPlot.h"

#include <cmath>

#include "UiTestSupport.h"
#include "charts/OverlayChart.h"
#include "export/ChartExporter.h"
#include "runs/RunCollection.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/HeadlessExport.h"
#include "workbench/graphics/PlotFiles.h"

using namespace wbui;

namespace {
RunCollection* collectionWith(const QString& dir, QObject* parent) {
    auto* runs = new RunCollection(parent);
    RunEntry e;
    e.key = dir;
    e.record = wb::loadRunFolder(dir.toStdString());
    runs->add(std::move(e));
    return runs;
}
}  // namespace

TEST(ChartExporter, PngDecodesAndSvgPdfAreWritten) {
    QObject owner;
    const QString run = wbuitest::trainedLanguageModelRun();
    RunCollection* runs = collectionWith(run, &owner);
    OverlayChart chart(runs);
    chart.resize(1000, 600);
    chart.flush();
    ASSERT_GT(chart.pointCount(), 0);
    wbtest::TempDir tmp;
    QString error;
    const QString png = QString::fromStdString(tmp.file("overlay.png"));
    ASSERT_TRUE(PlotFiles::savePlot(chart.plot(), png, &error)) << error.toStdString();
    QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), PlotFiles::kWidth);
    for (const char* name : {"overlay.svg", "overlay.pdf"}) {
        const QString path = QString::fromStdString(tmp.file(name));
        ASSERT_TRUE(PlotFiles::savePlot(chart.plot(), path, &error)) << error.toStdString();
        EXPECT_GT(QFileInfo(path).size(), 500);
    }
    EXPECT_FALSE(PlotFiles::savePlot(chart.plot(), QString::fromStdString(tmp.file("x.bmpx")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("x.bmpx")));
}

TEST(ChartExporter, ACaptionNamesTheRunsCorpusAndDateInTheFileOnly) {
    QObject owner;
    const QString run = wbuitest::trainedLanguageModelRun();
    RunCollection* runs = collectionWith(run, &owner);
    OverlayChart chart(runs);
    chart.resize(1000, 600);
    chart.flush();
    const auto records = runs->records();
    const QString caption = PlotFiles::caption(QStringLiteral("Comparison"), records);
    EXPECT_TRUE(caption.startsWith(QStringLiteral("Comparison · pattern.txt · "))) << caption.toStdString();
    EXPECT_TRUE(caption.contains(QDate::currentDate().toString(Qt::ISODate)));
    EXPECT_TRUE(caption.contains(QString::fromStdString(records[0].name()))) << caption.toStdString();

    wbtest::TempDir tmp;
    const QString plain = QString::fromStdString(tmp.file("plain.png")),
                  titled = QString::fromStdString(tmp.file("titled.png"));
    const int elements = chart.plot()->plotLayout()->elementCount();
    QString error;
    ASSERT_TRUE(PlotFiles::savePlot(chart.plot(), plain, &error));
    ASSERT_TRUE(PlotFiles::savePlot(chart.plot(), titled, &error, 1000, 600, caption)) << error.toStdString();
    EXPECT_EQ(chart.plot()->plotLayout()->elementCount(), elements);  // the chart on screen is unchanged
    // The caption is ink in the top band of the titled image, where the plain one has none or less.
    auto inkOnTop = [](const QImage& image) {
        int ink = 0;
        for (int y = 0; y < 28; ++y)
            for (int x = 0; x < image.width(); ++x) ink += qGray(image.pixel(x, y)) < 128;
        return ink;
    };
    const QImage a(plain), b(titled);
    ASSERT_FALSE(a.isNull() || b.isNull());
    EXPECT_GT(inkOnTop(b), inkOnTop(a) + 100);
}

TEST(ChartExporter, CsvRowsMatchMetrics) {
    const QString run = wbuitest::trainedLanguageModelRun();
    const wb::RunRecord record = wb::loadRunFolder(run.toStdString());
    ASSERT_FALSE(record.metrics.empty());
    wbtest::TempDir tmp;
    const QString csv = QString::fromStdString(tmp.file("all.csv"));
    QString error;
    ASSERT_TRUE(PlotFiles::writeRunsCsv({record}, csv, &error)) << error.toStdString();
    const std::string text = wbtest::readText(csv.toStdString());
    std::string runId;
    const auto parsed = wb::parseMetricsCsv(text, "all.csv", &runId);
    ASSERT_EQ(parsed.size(), record.metrics.size());
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        EXPECT_EQ(parsed[i].step, record.metrics[i].step);
        EXPECT_EQ(parsed[i].metric, record.metrics[i].metric);
        const double v = record.metrics[i].value;
        if (std::isfinite(v))
            EXPECT_NEAR(parsed[i].value, v, 1e-6 * (1 + std::abs(v)));
        else
            EXPECT_EQ(std::isinf(parsed[i].value), std::isinf(v));  // e.g. perplexity of an untrained model
    }
}

TEST(HeadlessCompare, WritesPngAndCsv) {
    const QString run = wbuitest::trainedLanguageModelRun();
    wbtest::TempDir tmp;
    std::string error;
    EXPECT_EQ(exportComparison({run.toStdString()}, tmp.file("c.png"), tmp.file("c.csv"), &error), 0)
        << error;
    EXPECT_FALSE(QImage(QString::fromStdString(tmp.file("c.png"))).isNull());
    EXPECT_GT(QFileInfo(QString::fromStdString(tmp.file("c.csv"))).size(), 50);
}

TEST(HeadlessCompare, BadFolderIsExitCode2NamingIt) {
    wbtest::TempDir tmp;
    std::string error;
    EXPECT_EQ(exportComparison({tmp.str()}, tmp.file("c.png"), "", &error), 2);
    EXPECT_NE(error.find(tmp.str()), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos);
    EXPECT_FALSE(QFileInfo::exists(QString::fromStdString(tmp.file("c.png"))));
}
