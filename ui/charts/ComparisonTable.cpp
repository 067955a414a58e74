// The comparison table.
#include "charts/ComparisonTable.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "charts/ReplotThrottle.h"
#include "runs/RunCollection.h"
#include "runs/RunNameDelegate.h"
#include "workbench/domain/Format.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
QTableWidgetItem* numberItem(double value, int decimals, const QString& suffix = {}) {
    auto* item = new QTableWidgetItem(value > 0 ? QString::number(value, 'f', decimals) + suffix
                                                : QStringLiteral("–"));
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}
// "2.314 (2.520)": a character model's bits per character with its 5-gram baseline's, and in words which is
// lower. Empty for a classifier.
QTableWidgetItem* bitsItem(const wb::ComparisonRow& r) {
    auto* item = new QTableWidgetItem;
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (r.bestValBpc < 0 && r.baselineBpc < 0) return item;
    const QString bits = r.bestValBpc >= 0 ? QString::number(r.bestValBpc, 'f', 3) : QStringLiteral("–");
    item->setData(Qt::UserRole, r.bestValBpc);
    if (r.baselineBpc < 0) {
        item->setText(bits);
        return item;
    }
    item->setText(QStringLiteral("%1 (%2)").arg(bits, QString::number(r.baselineBpc, 'f', 3)));
    const auto say = [](const char* text) { return QCoreApplication::translate("ComparisonTable", text); };
    item->setToolTip(
        r.bestValBpc < 0
            ? say("Not validated yet; the 5-gram scores %1 bits per character").arg(r.baselineBpc, 0, 'f', 3)
            : say("LSTM %1 vs 5-gram %2 bits per character: %3")
                  .arg(r.bestValBpc, 0, 'f', 3)
                  .arg(r.baselineBpc, 0, 'f', 3)
                  .arg(r.bestValBpc < r.baselineBpc
                           ? say("the network has learned more than n-gram statistics")
                           : say("not yet better than n-gram statistics")));
    return item;
}
}  // namespace

enum Column {
    kRun,
    kDevice,
    kGroup,
    kSpeed,
    kUs,
    kTarget,
    kToTarget,
    kBestLoss,
    kBits,
    kBestAcc,
    kSpeedup,
    kColumns
};

ComparisonTable::ComparisonTable(RunCollection* runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_target = new QDoubleSpinBox(this);
    m_target->setRange(0.0, 100.0);
    m_target->setDecimals(3);
    m_target->setSingleStep(0.1);
    m_target->setSpecialValueText(tr("per group"));
    m_target->setValue(0.0);
    m_target->setToolTip(
        tr("Time to target: wall-clock seconds until a run first reaches the target.\n"
           "Per group (the default): for language models the val loss the slowest-learning run "
           "of the group reached, for classifiers the val accuracy every run of the group "
           "reached.\nA loss here: that val loss (train loss when never validated) for every "
           "run."));
    m_baseline = new QComboBox(this);
    m_baseline->setToolTip(tr("The run whose samples/s the speed-ups of its group are relative to"));
    m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    bar->addWidget(new QLabel(tr("Target loss:"), this));
    bar->addWidget(m_target);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Speed-up against:"), this));
    bar->addWidget(m_baseline);
    bar->addStretch(1);
    layout->addLayout(bar);

    m_table = new QTableWidget(0, kColumns, this);
    m_table->setHorizontalHeaderLabels(
        // Two lines where a header is wider than its numbers: the table must fit a 1280-pixel screen.
        {tr("Run"), tr("Device"), tr("Group"), tr("samples/s"), tr("µs/\nsample"), tr("target"),
         tr("time to\ntarget"), tr("best\nval loss"), tr("bits/char\n(5-gram)"), tr("val\nacc"),
         tr("speed-up")});
    m_table->horizontalHeaderItem(kSpeedup)->setToolTip(
        tr("Throughput against the group's baseline run: how much faster it processes samples. "
           "How much sooner it learns is the time to target."));
    m_table->horizontalHeaderItem(kBits)->setToolTip(
        tr("Character models: the best val loss in bits per character, and in brackets an interpolated "
           "Kneser-Ney 5-gram model's on the same validation split. Below it, the network has learned more "
           "than n-gram statistics."));
    // The numbers take what they need; the run's name takes what is left and is shortened in the middle
    // (whole in its tooltip), so the table never needs a sideways scroll bar for a long name.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(kRun, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(60);
    m_table->setTextElideMode(Qt::ElideMiddle);
    // The runs' names with what they all share elided first, as in the Runs list (issue #63).
    m_table->setItemDelegateForColumn(kRun, new RunNameDelegate(m_table));
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    layout->addWidget(m_table, 1);
    m_groups = new QLabel(this);
    m_groups->setWordWrap(true);
    m_groups->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_groups);

    m_throttle = new ReplotThrottle(this, 250);  // numbers, not curves: 4 Hz reads better
    connect(m_throttle, &ReplotThrottle::due, this, &ComparisonTable::refresh);
    connect(m_target, &QDoubleSpinBox::valueChanged, this, &ComparisonTable::refresh);
    connect(m_baseline, &QComboBox::activated, this, &ComparisonTable::refresh);
    for (auto signal : {&RunCollection::runAdded, &RunCollection::runRemoved, &RunCollection::metricsAppended,
                        &RunCollection::runUpdated})
        connect(m_runs, signal, m_throttle, &ReplotThrottle::request);
    connect(m_runs, &RunCollection::cleared, this, &ComparisonTable::refresh);
    // The baseline box lists the runs by name: it changes when a run comes, goes or is renamed, never with
    // the metrics that stream in during training (rebuilding it then would also close its open list).
    for (auto signal : {&RunCollection::runAdded, &RunCollection::runRemoved, &RunCollection::runUpdated})
        connect(m_runs, signal, this, &ComparisonTable::refillBaselines);
    connect(m_runs, &RunCollection::cleared, this, &ComparisonTable::refillBaselines);
    refillBaselines();
}

double ComparisonTable::targetLoss() const { return m_target->value(); }
void ComparisonTable::setTargetLoss(double loss) { m_target->setValue(loss); }

void ComparisonTable::setBaseline(int index) {
    refillBaselines();
    const int i =
        m_baseline->findData(index >= 0 && index < m_runs->size() ? m_runs->at(index).key : QString());
    m_baseline->setCurrentIndex(std::max(i, 0));
    refresh();
}

QString ComparisonTable::groupsText() const { return m_groups->text(); }

void ComparisonTable::refillBaselines() {
    const QString chosen = m_baseline->currentData().toString();
    const QSignalBlocker quiet(m_baseline);
    m_baseline->clear();
    m_baseline->addItem(tr("the slowest run of each group"), QString());
    for (int i = 0; i < m_runs->size(); ++i) m_baseline->addItem(m_runs->at(i).label, m_runs->at(i).key);
    m_baseline->setCurrentIndex(std::max(0, m_baseline->findData(chosen)));
}

void ComparisonTable::refresh() {
    wb::CompareOptions options;
    options.targetLoss = targetLoss();
    options.baseline = m_runs->indexOf(m_baseline->currentData().toString());
    try {
        m_rows = wb::compareRuns(m_runs->records(), options);
    } catch (const std::exception&) {
        m_rows.clear();
    }
    // One row per run, in the collection's order: name them as the chart panels and the legend do (the
    // host too, for a run from another machine).
    for (int i = 0; i < int(m_rows.size()) && i < m_runs->size(); ++i)
        if (!m_runs->at(i).label.isEmpty()) m_rows[std::size_t(i)].label = toStd(m_runs->at(i).label);
    m_table->setSortingEnabled(false);
    m_table->setRowCount(int(m_rows.size()));
    bool anyBits = false;
    int groups = 0;
    for (const auto& r : m_rows) groups = std::max(groups, r.group + 1);
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const auto& r = m_rows[std::size_t(i)];
        fillRow(i, r);
        anyBits = anyBits || r.bestValBpc >= 0 || r.baselineBpc >= 0;
    }
    showColumns(groups, anyBits);
    showNotes(groups);
    Q_EMIT rowsChanged();
}

// Row i's cells, its run named and coloured as the chart panels and the throughput bars show it.
void ComparisonTable::fillRow(int i, const wb::ComparisonRow& r) {
    // Tagged as the throughput bars name them.
    const QString tag = i < m_runs->size() ? m_runs->comparisonTag(i) : QStringLiteral("#%1").arg(i + 1);
    auto* run = new QTableWidgetItem(tag + QLatin1Char(' ') + toQt(r.label.empty() ? r.runId : r.label));
    if (i < m_runs->size()) run->setForeground(m_runs->at(i).color);
    run->setToolTip(run->text() + QLatin1Char('\n') + toQt(r.runId));
    m_table->setItem(i, kRun, run);
    m_table->setItem(
        i, kDevice,
        new QTableWidgetItem(i < m_runs->size() ? RunCollection::deviceLabelFor(m_runs->at(i).record)
                                                : toQt(r.device)));
    auto* group = new QTableWidgetItem(QString::number(r.group + 1));
    group->setToolTip(toQt(r.groupLabel));
    group->setTextAlignment(Qt::AlignCenter);
    m_table->setItem(i, kGroup, group);
    auto* speed = numberItem(r.samplesPerSecond, 1);
    if (!r.note.empty()) {
        speed->setText(speed->text() + QStringLiteral(" ⚠"));
        speed->setToolTip(toQt(r.note));
    }
    m_table->setItem(i, kSpeed, speed);
    m_table->setItem(i, kUs, numberItem(r.usPerSample, 1));
    m_table->setItem(i, kTarget,
                     new QTableWidgetItem(r.target.empty() ? QStringLiteral("–") : toQt(r.target)));
    // Why there is no time, in the words of the footnote: not reached, or no validation to reach it on.
    auto* target = new QTableWidgetItem(r.secondsToTarget >= 0 ? toQt(wb::clockDuration(r.secondsToTarget))
                                        : r.missed.empty()     ? QStringLiteral("–")
                                        : r.missed == "not validated" ? tr("not validated")
                                                                      : tr("not reached"));
    target->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(i, kToTarget, target);
    m_table->setItem(i, kBestLoss, numberItem(r.bestValLoss, 4));
    m_table->setItem(i, kBits, bitsItem(r));
    // Never validated: "–", as the CLI's "none" and the CSV's empty cell; a validated 0 % is a number.
    auto* accuracy = numberItem(r.validated ? r.bestValAccuracy * 100.0 : 0, 1, QStringLiteral(" %"));
    if (r.validated && r.bestValAccuracy <= 0) accuracy->setText(QStringLiteral("0.0 %"));
    m_table->setItem(i, kBestAcc, accuracy);
    auto* speedup = numberItem(r.speedup, 2, QStringLiteral("×"));
    if (r.baseline) {
        speedup->setText(tr("baseline"));  // 1.00× by definition
        speedup->setToolTip(tr("The run the group's speed-ups are relative to"));
    }
    m_table->setItem(i, kSpeedup, speedup);
}

// The group column only with several groups, bits per character only when a run has them.
void ComparisonTable::showColumns(int groups, bool anyBits) {
    m_table->setColumnHidden(kGroup, groups < 2);
    m_table->setColumnHidden(kBits, !anyBits);
    // One target for every row (the usual case): it goes into the header, and its column is not needed.
    bool oneTarget = !m_rows.empty();
    for (const auto& r : m_rows) oneTarget = oneTarget && r.target == m_rows.front().target;
    m_table->setColumnHidden(kTarget, oneTarget);
    m_table->horizontalHeaderItem(kToTarget)->setText(oneTarget && !m_rows.front().target.empty()
                                                          ? tr("time to\n%1").arg(toQt(m_rows.front().target))
                                                          : tr("time to\ntarget"));
}

// Under the table: the groups that cannot be compared, each run's note, and what the two kinds of "faster"
// are.
void ComparisonTable::showNotes(int groups) {
    QStringList lines;
    if (groups > 1) {
        lines << tr("<b>These runs form %1 groups that cannot be compared with each other</b> (another task, "
                    "corpus or model): speed-ups and targets are computed within each group.")
                     .arg(groups);
        for (int g = 0; g < groups; ++g)
            for (const auto& r : m_rows)
                if (r.group == g) {
                    lines << tr("Group %1: %2").arg(g + 1).arg(toQt(r.groupLabel).toHtmlEscaped());
                    break;
                }
    }
    for (const auto& r : m_rows)
        if (!r.note.empty())
            lines << tr("⚠ %1: %2").arg(toQt(r.label).toHtmlEscaped(), toQt(r.note).toHtmlEscaped());
    // What the two kinds of "faster" are: a run can process samples faster and still learn no sooner.
    if (m_rows.size() > 1)
        lines << (targetLoss() > 0
                      ? tr("<i>Speed-up: samples per second against the group's baseline run (throughput). "
                           "Time to target: how soon each run reached the loss you set (learning); \"not "
                           "reached\": it never got there.</i>")
                      : tr("<i>Speed-up: samples per second against the group's baseline run (throughput). "
                           "Time to target: how soon each run reached the level every validated run of its "
                           "group reached (learning); \"not validated\": the run has no validation to reach "
                           "it on.</i>"));
    m_groups->setText(lines.join(QStringLiteral("<br>")));
    m_groups->setVisible(!lines.isEmpty());
}

}  // namespace wbui
