// The Sweep tab.
#include "sweep/SweepPanel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <csignal>
#include <map>

#include "common/ElidedLabel.h"
#include "common/QtConversions.h"
#include "export/ChartExporter.h"
#include "export/SweepExport.h"
#include "sweep/SweepChart.h"
#include "workbench/ConfigFields.h"
#include "workbench/Distributed.h"
#include "workbench/Format.h"
#include "workbench/RunFolder.h"

namespace wbui {

namespace {

// A table cell that sorts by its number, not its text ("1,204 ± 9" after "987 ± 3").
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) { setData(Qt::UserRole, value); }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QString measureText(const wb::SweepMeasure& m, int decimals) {
    if (!m.present) return QStringLiteral("—");
    const QString mean = QString::number(m.mean, 'f', decimals);
    return m.std > 0 ? mean + QStringLiteral(" ± ") + QString::number(m.std, 'f', decimals) : mean;
}

QTableWidgetItem* measureItem(const wb::SweepMeasure& m, int decimals) {
    auto* item = new NumberItem(measureText(m, decimals), m.present ? m.mean : -1);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QColor stateColor(wb::CellState s) {
    switch (s) {
        case wb::CellState::Running:
            return QColor(200, 220, 255);
        case wb::CellState::Done:
            return QColor(205, 240, 205);
        case wb::CellState::Failed:
            return QColor(250, 200, 200);
        default:
            return QColor(236, 236, 236);
    }
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent), m_cli(toQt(wb::defaultWorkerExecutable())), m_poll(new QTimer(this)) {
    auto* outer = new QVBoxLayout(this);

    // The grid: one row per axis, the repeats, the steps per cell, the plan.
    auto* gridBox = new QGroupBox(tr("Grid"), this);
    auto* gridLayout = new QVBoxLayout(gridBox);
    m_axisRows = new QVBoxLayout;
    gridLayout->addLayout(m_axisRows);
    auto* settings = new QHBoxLayout;
    auto* addAxis = new QPushButton(tr("Add Axis"), gridBox);
    addAxis->setToolTip(tr("Another config field to vary: every combination of the axes' values is a cell"));
    connect(addAxis, &QPushButton::clicked, this, [this] {
        addAxisRow(QStringLiteral("lr"), QString());
        replan();
    });
    m_repeats = new QSpinBox(gridBox);
    m_repeats->setRange(1, 100);
    m_repeats->setToolTip(tr("Runs per cell, with seeds base, base + 1, …: the table shows mean ± std"));
    m_steps = new QSpinBox(gridBox);
    m_steps->setRange(0, 10000000);
    m_steps->setValue(200);
    m_steps->setSpecialValueText(tr("the experiment's epochs"));
    m_steps->setToolTip(tr("Training steps of every cell (0: the epochs set on the Experiment page)"));
    settings->addWidget(addAxis);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Repeats"), gridBox));
    settings->addWidget(m_repeats);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Steps per cell"), gridBox));
    settings->addWidget(m_steps);
    settings->addStretch(1);
    gridLayout->addLayout(settings);
    auto* planRow = new QHBoxLayout;
    m_plan = new QLabel(gridBox);
    m_plan->setWordWrap(true);
    m_estimate = new QLabel(gridBox);
    m_estimateButton = new QPushButton(tr("Estimate Time"), gridBox);
    m_estimateButton->setToolTip(
        tr("Time a few steps of the first cell and scale by each cell's FLOPs and samples"));
    planRow->addWidget(m_plan, 1);
    planRow->addWidget(m_estimate);
    planRow->addWidget(m_estimateButton);
    gridLayout->addLayout(planRow);
    connect(m_repeats, qOverload<int>(&QSpinBox::valueChanged), this, [this] { replan(); });
    connect(m_steps, qOverload<int>(&QSpinBox::valueChanged), this, [this] { replan(); });
    connect(m_estimateButton, &QPushButton::clicked, this, &SweepPanel::estimate);

    // Controls and the folder.
    auto* controls = new QHBoxLayout;
    m_startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start Sweep"), this);
    m_pauseButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this);
    m_pauseButton->setToolTip(tr("Let the running cell finish, then stop; Resume goes on"));
    m_resumeButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Resume"), this);
    m_resumeButton->setToolTip(tr("Train the cells not done yet"));
    m_cancelButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"), this);
    m_cancelButton->setToolTip(tr("Stop now; the running cell is redone on Resume"));
    m_exportButton = new QPushButton(tr("Export Bundle…"), this);
    m_exportButton->setToolTip(
        tr("sweep.json, results.csv, the plots (PNG and CSV) and every cell's run files"));
    m_folder = new ElidedLabel(this);
    m_folder->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_progress = new QLabel(this);
    for (auto* b : {m_startButton, m_pauseButton, m_resumeButton, m_cancelButton, m_exportButton})
        controls->addWidget(b);
    controls->addSpacing(12);
    controls->addWidget(m_progress);
    controls->addWidget(m_folder, 1);
    connect(m_startButton, &QPushButton::clicked, this, [this] { start(); });
    connect(m_pauseButton, &QPushButton::clicked, this, &SweepPanel::pause);
    connect(m_resumeButton, &QPushButton::clicked, this, [this] { resume(); });
    connect(m_cancelButton, &QPushButton::clicked, this, &SweepPanel::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        const QString dir = ChartExporter::askForNewFolder(this, tr("Save the sweep bundle as a new folder"),
                                                           m_dir + QStringLiteral("-bundle"));
        QString why;
        if (!dir.isEmpty() && !exportBundle(dir, &why)) m_progress->setText(why);
    });

    // The cells (live), the results (sortable) and the plots.
    auto* split = new QSplitter(Qt::Vertical, this);
    auto* tables = new QSplitter(Qt::Horizontal, split);
    m_cells = new QTableWidget(0, 5, tables);
    m_cells->setHorizontalHeaderLabels(
        {tr("Cell"), tr("State"), tr("samples/s"), tr("Peak RSS, MB"), tr("Run folder")});
    m_cells->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_cells->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_cells->verticalHeader()->setVisible(false);
    m_cells->horizontalHeader()->setStretchLastSection(true);
    m_cells->setToolTip(tr("Every run of the grid; double-click a finished one to open it for comparison"));
    connect(m_cells, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (!m_sweep || row < 0 || row >= int(m_sweep->cells.size())) return;
        const auto& cell = m_sweep->cells[std::size_t(row)];
        if (cell.state == wb::CellState::Done) emit openRunRequested(QDir(m_dir).filePath(toQt(cell.runDir)));
    });
    m_results = new QTableWidget(0, 0, tables);
    m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_results->setSortingEnabled(true);
    m_results->verticalHeader()->setVisible(false);
    m_results->setToolTip(
        tr("One row per cell: mean ± standard deviation over its repeats. Click a header to sort."));
    tables->addWidget(m_cells);
    tables->addWidget(m_results);
    tables->setSizes({420, 700});

    // One plot at a time, each at full width: four side by side were too small to read.
    m_plotTabs = new QTabWidget(split);
    const QStringList names{tr("Throughput × batch"), tr("Time × data size"), tr("Speed-up"),
                            tr("Loss × time (Pareto)")};
    for (int i = 0; i < 4; ++i) {
        auto* chart = new SweepChart(m_plotTabs);
        m_charts.push_back(chart);
        if (i != 2) {
            m_plotTabs->addTab(chart, names[i]);
            continue;
        }
        auto* page = new QWidget(m_plotTabs);
        auto* pageLayout = new QVBoxLayout(page);
        pageLayout->setContentsMargins(0, 0, 0, 0);
        m_baseline = new QComboBox(page);
        m_baseline->setToolTip(tr("The device the speed-up divides by"));
        auto* baselineRow = new QHBoxLayout;
        baselineRow->addStretch(1);
        baselineRow->addWidget(new QLabel(tr("Baseline device"), page));
        baselineRow->addWidget(m_baseline);
        pageLayout->addLayout(baselineRow);
        pageLayout->addWidget(chart, 1);
        m_plotTabs->addTab(page, names[i]);
    }
    connect(m_baseline, &QComboBox::currentTextChanged, this, [this] { fillPlots(); });
    const char* titles[] = {"Throughput against batch size", "Training time against dataset size",
                            "Speed-up against a baseline device",
                            "Best validation loss against training time"};
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        wb::SweepPlot empty;
        empty.title = titles[i];
        empty.unavailable =
            "Start a sweep above, or open a sweep folder (File → Open Sweep Folder, or drop it here)";
        m_charts[i]->setPlot(empty, QString());
    }
    split->addWidget(tables);
    split->addWidget(m_plotTabs);
    split->setSizes({250, 520});

    outer->addWidget(gridBox);
    outer->addLayout(controls);
    outer->addWidget(split, 1);

    // The question the reference write-ups ask first: devices against batch size.
    addAxisRow(QStringLiteral("device"), QStringLiteral("cpu:1,cpu:2"));
    addAxisRow(QStringLiteral("batch_size"), QStringLiteral("16,32,64"));

    m_poll->setInterval(500);
    connect(m_poll, &QTimer::timeout, this, &SweepPanel::refresh);
    setState(State::Idle);
    replan();
}

SweepPanel::~SweepPanel() {
    // A sweep keeps running without the app only if asked to; closing the app stops it at once (its running
    // cell is redone on resume).
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        ::kill(static_cast<pid_t>(m_process->processId()), SIGINT);
        if (!m_process->waitForFinished(10000)) m_process->kill();
        m_process->waitForFinished(2000);
    }
    if (m_estimator && m_estimator->state() != QProcess::NotRunning) {
        m_estimator->disconnect(this);
        m_estimator->kill();
        m_estimator->waitForFinished(2000);
    }
}

void SweepPanel::setBaseProvider(BaseProvider provider) {
    m_provider = std::move(provider);
    replan();
}

void SweepPanel::addAxisRow(const QString& field, const QString& values) {
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* fieldBox = new QComboBox(row);
    fieldBox->setObjectName(QStringLiteral("axisField"));
    for (const auto& f : wb::configFields()) {
        if (f.key == "corpus" || f.key == "format" || f.key == "task" || f.key == "name") continue;
        fieldBox->addItem(toQt(f.key));
        fieldBox->setItemData(fieldBox->count() - 1, toQt(f.label + ": " + f.help), Qt::ToolTipRole);
    }
    fieldBox->addItem(QString::fromLatin1(wb::kLinkAxis));
    fieldBox->setItemData(fieldBox->count() - 1, toQt(wb::kLinkAxisHelp), Qt::ToolTipRole);
    // A field by key, path or flag name ("lr" is learning_rate).
    const auto* known = wb::findConfigField(toStd(field));
    fieldBox->setCurrentText(known ? toQt(known->key) : field);
    auto* valuesEdit = new QLineEdit(values, row);
    valuesEdit->setObjectName(QStringLiteral("axisValues"));
    valuesEdit->setPlaceholderText(tr("values, separated by commas"));
    auto updateHint = [fieldBox, valuesEdit] {
        if (const auto* f = wb::findConfigField(toStd(fieldBox->currentText())))
            valuesEdit->setToolTip(toQt(f->help));
        else if (fieldBox->currentText() == QLatin1String(wb::kLinkAxis))
            valuesEdit->setToolTip(toQt(wb::kLinkAxisHelp));
    };
    updateHint();
    auto* remove = new QToolButton(row);
    remove->setText(QStringLiteral("✕"));
    remove->setToolTip(tr("Remove this axis"));
    layout->addWidget(fieldBox);
    layout->addWidget(valuesEdit, 1);
    layout->addWidget(remove);
    m_axisRows->addWidget(row);
    connect(fieldBox, &QComboBox::currentTextChanged, this, [this, updateHint] {
        updateHint();
        replan();
    });
    connect(valuesEdit, &QLineEdit::textChanged, this, [this] { replan(); });
    connect(remove, &QToolButton::clicked, this, [this, row] {
        row->hide();
        row->deleteLater();
        m_axisRows->removeWidget(row);
        replan();
    });
}

void SweepPanel::setAxes(const std::vector<wb::SweepAxis>& axes) {
    while (auto* item = m_axisRows->takeAt(0)) {
        if (auto* w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    for (const auto& a : axes) {
        QStringList values;
        for (const auto& v : a.values) values << toQt(v);
        addAxisRow(toQt(a.field), values.join(QLatin1Char(',')));
    }
    replan();
}

std::vector<wb::SweepAxis> SweepPanel::axes() const {
    std::vector<wb::SweepAxis> out;
    for (int i = 0; i < m_axisRows->count(); ++i) {
        auto* row = m_axisRows->itemAt(i)->widget();
        if (!row) continue;
        auto* field = row->findChild<QComboBox*>(QStringLiteral("axisField"));
        auto* values = row->findChild<QLineEdit*>(QStringLiteral("axisValues"));
        if (!field || !values) continue;
        const QString text = values->text().simplified().remove(QLatin1Char(' '));
        if (text.isEmpty()) continue;
        wb::SweepAxis axis;
        axis.field = toStd(field->currentText());
        for (const auto& v : text.split(QLatin1Char(','))) axis.values.push_back(toStd(v));
        out.push_back(axis);
    }
    return out;
}

void SweepPanel::setRepeats(int repeats) { m_repeats->setValue(repeats); }
void SweepPanel::setStepsPerCell(int steps) { m_steps->setValue(steps); }

std::optional<wb::ExperimentConfig> SweepPanel::baseConfig(QString* why) const {
    wb::ExperimentConfig config;
    if (!m_provider) {
        *why = tr("No experiment to sweep");
        return std::nullopt;
    }
    if (!m_provider(&config, why)) return std::nullopt;
    if (m_steps->value() > 0) {
        config.train.epochs = 0;
        config.train.maxSteps = m_steps->value();
    }
    return config;
}

bool SweepPanel::replan() {
    m_estimate->clear();
    QString why;
    const auto base = baseConfig(&why);
    bool ok = false;
    if (!base) {
        m_planText = why;
    } else {
        try {
            std::vector<wb::SweepAxis> checked;
            for (const auto& a : axes()) {
                std::string text = a.field + "=";
                for (std::size_t i = 0; i < a.values.size(); ++i) text += (i ? "," : "") + a.values[i];
                checked.push_back(wb::parseSweepAxis(text));
            }
            const auto plan = wb::Sweep::plan(*base, checked, m_repeats->value(), 0);
            QStringList dims;
            for (const auto& a : plan.axes)
                dims << QStringLiteral("%1: %2").arg(toQt(a.field)).arg(a.values.size());
            m_planText = (plan.cells.size() == 1 ? tr("1 run") : tr("%1 runs").arg(plan.cells.size())) +
                         QStringLiteral(" (") + dims.join(QStringLiteral(" × ")) +
                         (plan.repeats > 1 ? tr(" × %1 repeats").arg(plan.repeats) : QString()) +
                         QStringLiteral(")");
            ok = true;
        } catch (const std::exception& e) {
            m_planText = toQt(e.what());
            // A sweep on show (an opened folder, say one over links) was made from another experiment: the
            // plan is for Start, which would run its grid on the Experiment page's.
            if (m_sweep)
                m_planText =
                    tr("Start would run this grid on the Experiment page's experiment, which cannot: %1")
                        .arg(m_planText);
        }
    }
    m_plan->setText(m_planText);
    m_plan->setStyleSheet(ok ? QString() : QStringLiteral("color: #b00020"));
    m_startButton->setEnabled(ok && !isRunning());
    m_estimateButton->setEnabled(ok && !isRunning() &&
                                 !(m_estimator && m_estimator->state() != QProcess::NotRunning));
    return ok;
}

QString SweepPanel::planText() const { return m_planText; }

void SweepPanel::estimate() {
    QString why;
    const auto base = baseConfig(&why);
    if (!base || !replan()) return;
    if (!m_scratch) m_scratch = std::make_unique<QTemporaryDir>();
    const QString configFile = m_scratch->filePath(QStringLiteral("estimate-config.json"));
    QSaveFile f(configFile);
    if (!f.open(QIODevice::WriteOnly)) return;
    f.write(QByteArray::fromStdString(base->toJson()));
    if (!f.commit()) return;
    QStringList args{QStringLiteral("sweep"),     toQt(base->data.corpus),
                     QStringLiteral("--out"),     m_scratch->filePath(QStringLiteral("never-created")),
                     QStringLiteral("--config"),  configFile,
                     QStringLiteral("--repeats"), QString::number(m_repeats->value()),
                     QStringLiteral("--plan"),    QStringLiteral("--json")};
    for (const auto& a : axes()) {
        QStringList values;
        for (const auto& v : a.values) values << toQt(v);
        args << QStringLiteral("--grid") << toQt(a.field) + QLatin1Char('=') + values.join(QLatin1Char(','));
    }
    if (!m_estimator) {
        m_estimator = new QProcess(this);
        connect(m_estimator, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
            const auto out = QJsonDocument::fromJson(m_estimator->readAllStandardOutput()).object();
            if (code == 0 && out.contains(QStringLiteral("estimated_seconds")))
                m_estimate->setText(tr("about %1")
                                        .arg(toQt(wb::humanSeconds(
                                            out.value(QStringLiteral("estimated_seconds")).toDouble()))));
            else
                m_estimate->setText(tr("no estimate: %1")
                                        .arg(QString::fromUtf8(m_estimator->readAllStandardError())
                                                 .section(QLatin1Char('\n'), 0, 0)));
            m_estimateButton->setEnabled(!isRunning());
        });
    }
    m_estimate->setText(tr("estimating…"));
    m_estimateButton->setEnabled(false);
    m_estimator->start(m_cli, args);
}

bool SweepPanel::start(const QString& requestedDir) {
    m_lastError.clear();
    if (isRunning()) {
        m_lastError = tr("A sweep is running");
        return false;
    }
    QString why;
    const auto base = baseConfig(&why);
    if (!base || !replan()) {
        m_lastError = base ? m_planText : why;
        return false;
    }
    QString dir = requestedDir;
    if (dir.isEmpty()) {
        const QString root = m_sweepsRoot.isEmpty()
                                 ? QDir::homePath() + QStringLiteral("/lstm-workbench-sweeps")
                                 : m_sweepsRoot;
        const QString stem = root + QStringLiteral("/sweep-") +
                             QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        dir = stem;
        for (int n = 2; QFileInfo::exists(dir); ++n) dir = stem + QStringLiteral("-%1").arg(n);
        QDir().mkpath(root);
    }
    m_scratch = std::make_unique<QTemporaryDir>();
    const QString configFile = m_scratch->filePath(QStringLiteral("base-config.json"));
    QSaveFile f(configFile);
    if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(base->toJson())) < 0 ||
        !f.commit()) {
        m_lastError = tr("Cannot write the sweep's base config to %1").arg(configFile);
        return false;
    }
    QStringList args{QStringLiteral("sweep"),     toQt(base->data.corpus),
                     QStringLiteral("--out"),     dir,
                     QStringLiteral("--config"),  configFile,
                     QStringLiteral("--repeats"), QString::number(m_repeats->value())};
    for (const auto& a : axes()) {
        QStringList values;
        for (const auto& v : a.values) values << toQt(v);
        args << QStringLiteral("--grid") << toQt(a.field) + QLatin1Char('=') + values.join(QLatin1Char(','));
    }
    m_dir = dir;
    m_sweep.reset();
    m_shownDone = -1;
    m_resultsData = {};
    m_cells->setRowCount(0);
    m_results->setRowCount(0);
    return launch(args);
}

bool SweepPanel::launch(const QStringList& arguments) {
    if (!QFileInfo(m_cli).isExecutable()) {
        m_lastError = tr("%1 is not an executable program: the sweep runs in lstm-workbench-cli").arg(m_cli);
        return false;
    }
    if (!m_process) {
        m_process = new QProcess(this);
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        m_process->setStandardOutputFile(QProcess::nullDevice());
        connect(m_process, &QProcess::readyReadStandardError, this, [this] {
            m_stderr += m_process->readAllStandardError();
            if (m_stderr.size() > 65536) m_stderr = m_stderr.right(65536);
        });
        connect(m_process, &QProcess::finished, this, &SweepPanel::onFinished);
    }
    m_stderr.clear();
    m_cancelRequested = false;
    m_doneAtLaunch = 0;
    if (m_sweep)
        for (const auto& c : m_sweep->cells) m_doneAtLaunch += c.state == wb::CellState::Done;
    m_process->start(m_cli, arguments);
    if (!m_process->waitForStarted(10000)) {
        m_lastError = tr("Cannot start %1: %2").arg(m_cli, m_process->errorString());
        return false;
    }
    m_clock.start();
    m_folder->setFullText(m_dir);
    setState(State::Running);
    m_poll->start();
    return true;
}

void SweepPanel::pause() {
    if (m_state != State::Running) return;
    ::kill(static_cast<pid_t>(m_process->processId()), SIGUSR1);
    setState(State::Pausing);
}

bool SweepPanel::resume() {
    m_lastError.clear();
    if (isRunning() || m_dir.isEmpty()) return false;
    return launch({QStringLiteral("sweep"), m_dir});
}

void SweepPanel::cancel() {
    if (!isRunning()) return;
    m_cancelRequested = true;
    ::kill(static_cast<pid_t>(m_process->processId()), SIGINT);
}

void SweepPanel::onFinished(int exitCode, QProcess::ExitStatus status) {
    m_poll->stop();
    refresh();
    bool allDone = m_sweep.has_value();
    if (m_sweep)
        for (const auto& c : m_sweep->cells) allDone = allDone && c.state == wb::CellState::Done;
    // The first error line the CLI printed, without its prefix.
    QString error;
    for (const auto& line : QString::fromUtf8(m_stderr).split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("lstm-workbench-cli: error: "))) {
            error = line.mid(27);
            break;
        }
    }
    // SIGINT before the CLI set its handler ends it by the signal: still the cancel that was asked for.
    if (status != QProcess::NormalExit && !m_cancelRequested)
        error = tr("the sweep process ended unexpectedly (%1)").arg(m_process->errorString());
    m_cancelRequested = false;
    if (!error.isEmpty()) m_lastError = error;
    setState(allDone ? State::Finished : (m_sweep ? State::Stopped : State::Idle));
    if (!error.isEmpty())
        m_progress->setText(tr("Stopped: %1").arg(error));
    else if (exitCode == 1)
        m_progress->setText(m_progress->text() + tr(" · some cells failed (see their tooltips)"));
}

void SweepPanel::setState(State s) {
    m_state = s;
    const bool running = isRunning();
    bool incomplete = false;
    if (m_sweep)
        for (const auto& c : m_sweep->cells) incomplete = incomplete || c.state != wb::CellState::Done;
    m_pauseButton->setEnabled(s == State::Running);
    m_cancelButton->setEnabled(running);
    m_resumeButton->setEnabled(!running && m_sweep && incomplete);
    m_exportButton->setEnabled(!running && m_sweep.has_value());
    for (int i = 0; i < m_axisRows->count(); ++i)
        if (auto* w = m_axisRows->itemAt(i)->widget()) w->setEnabled(!running);
    m_repeats->setEnabled(!running);
    m_steps->setEnabled(!running);
    replan();
    updateProgress();
    emit stateChanged(s);
}

bool SweepPanel::openSweep(const QString& dir, QString* error) {
    if (isRunning()) {
        if (error) *error = tr("A sweep is running: pause or cancel it first");
        return false;
    }
    if (!wb::isSweepFolder(toStd(dir))) {
        if (error) *error = tr("%1: not a sweep folder (no sweep.json)").arg(dir);
        return false;
    }
    try {
        m_sweep = wb::loadSweep(toStd(dir));
    } catch (const std::exception& e) {
        if (error) *error = toQt(e.what());
        return false;
    }
    m_dir = QFileInfo(dir).absoluteFilePath();
    m_folder->setFullText(m_dir);
    m_shownDone = -1;
    // The grid it was made with, so that a similar one is one edit away.
    const auto loaded = *m_sweep;
    setAxes(loaded.axes);
    m_repeats->setValue(loaded.repeats);
    fillCells();
    fillResults();
    fillPlots();
    // A cell left "running" by a sweep that was killed is waiting for Resume.
    bool allDone = true;
    for (const auto& c : m_sweep->cells) allDone = allDone && c.state == wb::CellState::Done;
    setState(allDone ? State::Finished : State::Stopped);
    return true;
}

void SweepPanel::refresh() {
    if (m_dir.isEmpty() || !wb::isSweepFolder(toStd(m_dir))) return;
    try {
        m_sweep = wb::loadSweep(toStd(m_dir));
    } catch (const std::exception&) {
        return;  // written atomically, so only a foreign file gets here; the next poll tries again
    }
    fillCells();
    int done = 0;
    for (const auto& c : m_sweep->cells) done += c.state == wb::CellState::Done;
    if (done != m_shownDone) {
        fillResults();
        fillPlots();
    }
    updateProgress();
}

void SweepPanel::fillCells() {
    if (!m_sweep) return;
    const auto& cells = m_sweep->cells;
    m_cells->setRowCount(int(cells.size()));
    std::map<int, const wb::SweepResultRow*> rowOf;  // by cell index and repeat
    for (const auto& r : m_resultsData.runs) rowOf[r.cell * 1000 + r.repeat] = &r;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& c = cells[i];
        const int row = int(i);
        auto set = [&](int col, const QString& text) {
            auto* item = m_cells->item(row, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_cells->setItem(row, col, item);
            }
            item->setText(text);
            return item;
        };
        set(0, toQt(m_sweep->describe(c)))->setToolTip(toQt(m_sweep->describe(c)));
        auto* state = set(1, toQt(wb::toString(c.state)));
        state->setBackground(stateColor(c.state));
        state->setToolTip(c.error.empty() ? QString() : toQt(c.error));
        const auto it = rowOf.find(c.index * 1000 + c.repeat + 1);
        set(2, it != rowOf.end() ? QString::number(it->second->samplesPerSecond.mean, 'f', 0) : QString());
        set(3, c.peakRssBytes > 0 ? QString::number(double(c.peakRssBytes) / (1024.0 * 1024.0), 'f', 0)
                                  : QString());
        set(4, toQt(c.runDir));
    }
    if (m_cells->columnWidth(0) < 60 || m_cells->rowCount() != m_cellsSized) {
        m_cells->resizeColumnsToContents();
        m_cellsSized = m_cells->rowCount();
    }
}

void SweepPanel::fillResults() {
    if (!m_sweep) return;
    try {
        m_resultsData = wb::sweepResults(toStd(m_dir), *m_sweep);
    } catch (const std::exception& e) {
        m_progress->setText(tr("Cannot read the results: %1").arg(toQt(e.what())));
        return;
    }
    int done = 0;
    for (const auto& c : m_sweep->cells) done += c.state == wb::CellState::Done;
    m_shownDone = done;
    fillCells();  // samples/s per run
    QStringList headers;
    for (const auto& a : m_resultsData.axes) headers << toQt(a);
    const QStringList measures{
        tr("runs"),          tr("samples/s"),
        tr("µs/sample"),     tr("s to loss %1").arg(m_resultsData.targetLoss, 0, 'g', 3),
        tr("best val loss"), tr("best val acc"),
        tr("val bits/char"), tr("5-gram bits/char"),
        tr("train s"),       tr("peak RSS, MB"),
        tr("threads"),       tr("processes")};
    headers << measures;
    m_results->setSortingEnabled(false);
    m_results->clear();
    m_results->setColumnCount(int(headers.size()));
    m_results->setHorizontalHeaderLabels(headers);
    m_results->setRowCount(int(m_resultsData.cells.size()));
    int row = 0;
    for (const auto& r : m_resultsData.cells) {
        int col = 0;
        for (const auto& v : r.values) {
            bool numeric = false;
            const double x = toQt(v).toDouble(&numeric);
            m_results->setItem(row, col++,
                               numeric ? new NumberItem(toQt(v), x) : new QTableWidgetItem(toQt(v)));
        }
        m_results->setItem(row, col++, new NumberItem(QString::number(r.runs), r.runs));
        auto* speed = measureItem(r.samplesPerSecond, 0);
        if (!r.overlap
                 .empty()) {  // a cell that shared the machine with another run is flagged, as in Compare
            speed->setText(QStringLiteral("⚠ ") + speed->text());
            speed->setToolTip(toQt(r.overlap));
        }
        m_results->setItem(row, col++, speed);
        m_results->setItem(row, col++, measureItem(r.usPerSample, 0));
        m_results->setItem(row, col++, measureItem(r.secondsToTarget, 1));
        m_results->setItem(row, col++, measureItem(r.bestValLoss, 3));
        m_results->setItem(row, col++, measureItem(r.bestValAccuracy, 3));
        m_results->setItem(row, col++, measureItem(r.bestValBpc, 3));
        m_results->setItem(row, col++, measureItem(r.baselineBpc, 3));
        m_results->setItem(row, col++, measureItem(r.trainSeconds, 1));
        m_results->setItem(row, col++, measureItem({r.peakRssMb, 0, r.runs > 0}, 0));
        m_results->setItem(row, col++, measureItem({double(r.threads), 0, r.runs > 0}, 0));
        m_results->setItem(row, col++, measureItem({double(r.processes), 0, r.runs > 0}, 0));
        ++row;
    }
    m_results->setSortingEnabled(true);
    m_results->resizeColumnsToContents();

    // The devices the speed-up can be measured against.
    const QString current = m_baseline->currentText();
    QSignalBlocker block(m_baseline);
    m_baseline->clear();
    for (const auto& d : wb::sweepDevices(*m_sweep)) m_baseline->addItem(toQt(d));
    if (!current.isEmpty() && m_baseline->findText(current) >= 0) m_baseline->setCurrentText(current);
}

void SweepPanel::fillPlots() {
    if (!m_sweep) return;
    const auto plots = wb::sweepPlots(*m_sweep, m_resultsData, toStd(m_baseline->currentText()));
    const QString subtitle = sweepSubtitle(*m_sweep);
    for (std::size_t i = 0; i < plots.size() && i < m_charts.size(); ++i) {
        m_charts[i]->setPlot(plots[i], subtitle);
        // A plot this grid cannot draw says why, on its greyed tab.
        const int tab = int(i);
        m_plotTabs->setTabEnabled(tab, plots[i].unavailable.empty());
        m_plotTabs->setTabToolTip(tab, plots[i].unavailable.empty() ? QString() : toQt(plots[i].unavailable));
    }
    if (!m_plotTabs->isTabEnabled(m_plotTabs->currentIndex()))
        for (int t = 0; t < m_plotTabs->count(); ++t)
            if (m_plotTabs->isTabEnabled(t)) {
                m_plotTabs->setCurrentIndex(t);
                break;
            }
}

void SweepPanel::updateProgress() {
    if (!m_sweep) {
        m_progress->setText(m_state == State::Running ? tr("Starting…") : QString());
        return;
    }
    int done = 0, failed = 0;
    for (const auto& c : m_sweep->cells) {
        done += c.state == wb::CellState::Done;
        failed += c.state == wb::CellState::Failed;
    }
    const int total = int(m_sweep->cells.size());
    QString text = tr("%1 of %2 runs done").arg(done).arg(total);
    if (failed) text += tr(", %1 failed").arg(failed);
    if (isRunning() && done > m_doneAtLaunch && done < total) {
        // Wall time per finished cell so far, times the cells left.
        const double perCell = double(m_clock.elapsed()) / 1000.0 / double(done - m_doneAtLaunch);
        text += tr(" · about %1 left").arg(toQt(wb::humanSeconds(perCell * double(total - done - failed))));
    }
    if (m_state == State::Pausing) text += tr(" · pausing after the running cell");
    if (m_state == State::Stopped) text += tr(" · stopped: Resume trains the rest");
    m_progress->setText(text);
}

bool SweepPanel::exportBundle(const QString& dir, QString* error) {
    if (!m_sweep) {
        if (error) *error = tr("No sweep to export");
        return false;
    }
    if (!writeSweepBundle(*m_sweep, m_dir, m_resultsData, toStd(m_baseline->currentText()), dir, error))
        return false;
    m_progress->setText(tr("Exported the sweep to %1").arg(dir));
    return true;
}

}  // namespace wbui
