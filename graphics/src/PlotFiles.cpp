// Charts and tables as files.
#include "workbench/graphics/PlotFiles.h"

#include <QDate>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QSysInfo>

#include "workbench/graphics/QCustomPlot.h"

#include <algorithm>
#include <cmath>

#include "workbench/engine/Devices.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

bool PlotFiles::fail(QString* error, const QString& path, const QString& why) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, why);
    return false;
}

bool PlotFiles::writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    // QSaveFile writes a temporary file and renames it: no half-written export is ever left behind.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(error, path, file.errorString());
    file.write(bytes);
    if (!file.commit()) return fail(error, path, file.errorString());
    return true;
}

bool PlotFiles::copyFile(const QString& from, const QString& to, QString* error) {
    QFile::remove(to);
    if (QFile::copy(from, to)) return true;
    if (error) *error = QObject::tr("%1: cannot copy to %2").arg(from, to);
    return false;
}

QString PlotFiles::caption(const QString& what, const std::vector<wb::RunRecord>& runs) {
    QStringList corpora, labels;
    for (const auto& r : runs) {
        const QString corpus = QFileInfo(toQt(r.config.data.corpus)).fileName();
        if (!corpus.isEmpty() && !corpora.contains(corpus)) corpora << corpus;
        labels << toQt(r.name());
    }
    constexpr int kShown = 4;  // a long list would cover the chart
    if (labels.size() > kShown) {
        const auto more = labels.size() - kShown;
        labels = labels.mid(0, kShown);
        labels << QObject::tr("and %1 more").arg(more);
    }
    QStringList head{what};
    if (!corpora.isEmpty()) head << corpora.join(QStringLiteral(", "));
    head << QDate::currentDate().toString(Qt::ISODate);
    // The runs on lines of at most ~130 characters: one line of long run ids runs off a 1200-pixel image.
    QStringList lines{head.join(QStringLiteral(" · "))};
    QString line;
    for (const auto& label : labels) {
        if (!line.isEmpty() && line.size() + 2 + label.size() > 130) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral("; ")) + label;
    }
    if (!line.isEmpty()) lines << line;
    return lines.join(QLatin1Char('\n'));
}

bool PlotFiles::savePlot(QCustomPlot* plot, const QString& path, QString* error, int width, int height,
                         const QString& caption) {
    // The caption is a title row for the export only, taken out again afterwards.
    QCPTextElement* title = nullptr;
    if (!caption.isEmpty()) {
        plot->plotLayout()->insertRow(0);
        title = new QCPTextElement(plot, caption, QFont(plot->font().family(), 10, QFont::Bold));
        plot->plotLayout()->addElement(0, 0, title);
    }
    struct RemoveTitle {
        QCustomPlot* plot;
        QCPTextElement* title;
        ~RemoveTitle() {
            if (!title) return;
            plot->plotLayout()->remove(title);
            plot->plotLayout()->simplify();
            plot->replot();
        }
    } removeTitle{plot, title};
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, width, height, 1.0, -1, 96);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(QStringLiteral("LSTM Workbench chart"));
        QCPPainter painter;
        if (painter.begin(&svg)) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        return fail(error, path, QStringLiteral("unknown image type; use .png, .svg or .pdf"));
    }
    if (!ok || !QFileInfo::exists(path))
        return fail(error, path, QStringLiteral("could not write the image"));
    return true;
}

bool PlotFiles::writeRunsCsv(const std::vector<wb::RunRecord>& runs, const QString& path, QString* error) {
    try {
        return writeFile(path, QByteArray::fromStdString(wb::comparisonCsv(runs)), error);
    } catch (const std::exception& e) {
        return fail(error, path, toQt(e.what()));
    }
}

bool PlotFiles::writeComparisonTableCsv(const std::vector<wb::ComparisonRow>& rows, const QString& path,
                                        QString* error) {
    QByteArray csv =
        "run_id,name,device,group,group_label,samples_per_s,us_per_sample,target,seconds_to_target,"
        "best_val_loss,best_val_accuracy,speedup,baseline,note\n";
    const auto quote = [](const std::string& s) {
        QByteArray q = QByteArray::fromStdString(s);
        q.replace('"', "\"\"");
        return '"' + q + '"';
    };
    // Never validated: the best val cells are empty (the table's "–", the CLI's "none"), not 0.
    for (const auto& r : rows) {
        csv += quote(r.runId) + ',' + quote(r.label) + ',' + quote(r.device) + ',' +
               QByteArray::number(r.group + 1) + ',' + quote(r.groupLabel) + ',' +
               QByteArray::number(r.samplesPerSecond, 'g', 8) + ',' +
               QByteArray::number(r.usPerSample, 'g', 8) + ',' + quote(r.target) + ',' +
               QByteArray::number(r.secondsToTarget, 'g', 8) + ',' +
               (r.validated ? QByteArray::number(r.bestValLoss, 'g', 8) : QByteArray()) + ',' +
               (r.validated ? QByteArray::number(r.bestValAccuracy, 'g', 8) : QByteArray()) + ',' +
               QByteArray::number(r.speedup, 'g', 6) + ',' + (r.baseline ? "true" : "false") + ',' +
               quote(r.note) + '\n';
    }
    return writeFile(path, csv, error);
}

QByteArray PlotFiles::environmentJson() {
    QJsonObject env;
    env[QStringLiteral("app")] = QStringLiteral("lstm-workbench " WORKBENCH_VERSION);
    env[QStringLiteral("qt")] = QString::fromLatin1(qVersion());
    env[QStringLiteral("qcustomplot")] = QStringLiteral(QCUSTOMPLOT_VERSION_STR);
    env[QStringLiteral("host")] = QSysInfo::machineHostName();
    env[QStringLiteral("os")] = QSysInfo::prettyProductName();
    env[QStringLiteral("cpu_architecture")] = QSysInfo::currentCpuArchitecture();
    try {
        env[QStringLiteral("libtorch")] = toQt(wb::libtorchVersion());
        env[QStringLiteral("blas")] = toQt(wb::blasLibrary());
        env[QStringLiteral("hardware_threads")] = wb::hardwareThreads();
        QJsonArray devices;
        for (const auto& d : wb::listDevices()) {
            QJsonObject o;
            o[QStringLiteral("id")] = toQt(d.id());
            o[QStringLiteral("name")] = toQt(d.name);
            o[QStringLiteral("kind")] = toQt(d.kind());
            o[QStringLiteral("threads")] = d.threads;
            o[QStringLiteral("memory_bytes")] = double(d.memoryBytes);
            devices.append(o);
        }
        env[QStringLiteral("devices")] = devices;
    } catch (const std::exception& e) {
        env[QStringLiteral("devices_error")] = toQt(e.what());
    }
    return QJsonDocument(env).toJson(QJsonDocument::Indented);
}

}  // namespace wbui
