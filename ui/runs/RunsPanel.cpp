// The Runs list.
#include "runs/RunsPanel.h"
#include "workbench/graphics/LossCurves.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "runs/RunCollection.h"
#include "runs/RunNameDelegate.h"
#include "runs/RunNotesDialog.h"
#include "runs/RunOwnerWatch.h"
#include "runs/SettingsDiffDialog.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Inference.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
// Tags and notes next to the name: what tells runs apart comes first in a narrow side panel.
// What tells runs apart first (state, device, progress), then the rest: a narrow side panel shows the
// first columns, and the Device column was off it.
enum Column { kRun, kStatus, kDevice, kSteps, kSpeed, kTask, kTags, kNotes, kColumns };
constexpr int kDirRole = Qt::UserRole + 1;
constexpr int kModelRole = Qt::UserRole + 2;
QString canonical(const QString& dir) {
    const QString c = QFileInfo(dir).canonicalFilePath();
    return c.isEmpty() ? QFileInfo(dir).absoluteFilePath() : c;
}
}  // namespace

RunsPanel::RunsPanel(RunCollection* runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildTree(), 1);
    layout->addLayout(buildButtons());
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        Q_EMIT playgroundRequested(item->data(kRun, kDirRole).toString());
    });
    connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (m_updating || column != kRun) return;
        setInComparison(item, item->checkState(kRun) == Qt::Checked);
    });
    followCollection();
    // This app's runs change their rows through the collection (the launcher's signals); runs of other
    // processes through the files they rename into place and the lock their owner lets go of.
    m_owners = new RunOwnerWatch(this);
    connect(m_owners, &RunOwnerWatch::rootChanged, this, &RunsPanel::refresh);
    connect(m_owners, &RunOwnerWatch::runChanged, this, &RunsPanel::reloadRun);
}

// One row a run, ticked when it is in the comparison.
QTreeWidget* RunsPanel::buildTree() {
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(kColumns);
    m_tree->setHeaderLabels({tr("Run"), tr("Status"), tr("Device"), tr("Steps"), tr("samples/s"), tr("Task"),
                             tr("Tags"), tr("Notes")});
    m_tree->setRootIsDecorated(false);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(kRun, Qt::DescendingOrder);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Names are short ("11-27 00:13:05 · tang-quatrains-7"); a user's own may be long: the whole name is in
    // the tooltip and the column can be widened.
    m_tree->header()->setSectionResizeMode(kRun, QHeaderView::Interactive);
    m_tree->header()->resizeSection(kRun, 230);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    m_tree->setItemDelegateForColumn(kRun, new RunNameDelegate(m_tree));
    m_tree->setToolTip(tr("Tick a run to compare it; double-click to try it in the playground"));
    return m_tree;
}

// What can be done with the selected run (or the ticked ones), each button wired to it.
QGridLayout* RunsPanel::buildButtons() {
    auto* open = new QPushButton(tr("Open run folder…"), this);
    open->setToolTip(
        tr("Open a run folder made here or by lstm-workbench-cli elsewhere (Ctrl+Shift+O); "
           "dropping it on the window works too"));
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    auto* playground = new QPushButton(tr("Playground"), this);
    playground->setToolTip(tr("Generate or classify with the selected run's model"));
    auto* useConfig = new QPushButton(tr("Use config"), this);
    useConfig->setToolTip(tr("Load the selected run's experiment settings"));
    auto* show = new QPushButton(tr("Show folder"), this);
    auto* edit = new QPushButton(tr("Name && notes…"), this);
    edit->setToolTip(tr("Rename the selected run, and give it notes and tags (F2)"));
    edit->setShortcut(QKeySequence(Qt::Key_F2));
    auto* remove = new QPushButton(tr("Delete…"), this);
    remove->setToolTip(tr("Delete the selected run's folder (asks first)"));
    auto* resume = new QPushButton(tr("Resume…"), this);
    resume->setToolTip(
        tr("Continue the selected run from its last checkpoint: more epochs or steps, a new "
           "learning rate"));
    auto* settings = new QPushButton(tr("Compare settings…"), this);
    settings->setToolTip(tr("The settings of the ticked runs side by side, differences highlighted"));
    auto* exportModel = new QPushButton(tr("Export model…"), this);
    exportModel->setToolTip(
        tr("Write the selected run's network as an ONNX model (token ids in, logits out) with its "
           "vocabulary, for ONNX Runtime and other tools"));
    // Rows of three: the side panel stays narrow enough for the charts and the comparison table beside it
    // (two rows made it 477 px wide at the least).
    auto* buttons = new QGridLayout;
    const QList<QPushButton*> order{open,        refreshButton, show, useConfig, playground,
                                    exportModel, resume,        edit, remove,    settings};
    for (int i = 0; i < order.size(); ++i) buttons->addWidget(order[i], i / 3, i % 3);

    connect(open, &QPushButton::clicked, this, &RunsPanel::openFolderRequested);
    connect(edit, &QPushButton::clicked, this, &RunsPanel::editSelected);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (!selectedRun().isEmpty()) deleteRun(selectedRun());
    });
    connect(settings, &QPushButton::clicked, this, &RunsPanel::showSettingsDiff);
    connect(resume, &QPushButton::clicked, this, &RunsPanel::resumeSelected);
    connect(exportModel, &QPushButton::clicked, this, [this] { exportSelectedModel(); });
    connect(refreshButton, &QPushButton::clicked, this, &RunsPanel::refresh);
    connect(playground, &QPushButton::clicked, this, [this] {
        if (!selectedRun().isEmpty()) Q_EMIT playgroundRequested(selectedRun());
    });
    connect(useConfig, &QPushButton::clicked, this, [this] {
        if (!selectedRun().isEmpty()) Q_EMIT configRequested(selectedRun());
    });
    connect(show, &QPushButton::clicked, this, [this] {
        if (!selectedRun().isEmpty()) QDesktopServices::openUrl(QUrl::fromLocalFile(selectedRun()));
    });
    return buttons;
}

void RunsPanel::followCollection() {
    // Live runs appear as soon as they start and are ticked; their rows refresh when they end.
    connect(m_runs, &RunCollection::runAdded, this, [this](const QString& key) { addOrUpdate(key); });
    connect(m_runs, &RunCollection::runUpdated, this, [this](const QString& key) { addOrUpdate(key); });
    connect(m_runs, &RunCollection::liveProgressChanged, this,
            [this](const QString& key) { addOrUpdate(key); });
    connect(m_runs, &RunCollection::runRemoved, this, [this](const QString& key) {
        if (auto* item = itemFor(key)) {
            m_updating = true;
            item->setCheckState(kRun, Qt::Unchecked);
            m_updating = false;
        }
    });
}

void RunsPanel::setRunsRoot(const QString& dir) {
    m_root = dir;
    m_owners->setRoot(dir);
    refresh();
}

void RunsPanel::reloadRun(const QString& dir) {
    const int index = m_runs->indexOf(dir);
    if (index >= 0 && !m_runs->at(index).live)
        m_runs->reloadFromDisk(dir);  // its row follows through runUpdated
    else
        addOrUpdate(dir);
}

void RunsPanel::setOpenedFolders(const QStringList& dirs) {
    m_opened = dirs;
    refresh();
}

int RunsPanel::runCount() const { return m_tree->topLevelItemCount(); }

QString RunsPanel::selectedRun() const {
    auto* item = m_tree->currentItem();
    return item ? item->data(kRun, kDirRole).toString() : QString();
}

QStringList RunsPanel::runsWithModel() const {
    QStringList out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        auto* item = m_tree->topLevelItem(i);
        if (item->data(kRun, kModelRole).toBool()) out << item->data(kRun, kDirRole).toString();
    }
    std::sort(out.begin(), out.end(), [](const QString& a, const QString& b) {
        return QFileInfo(a).fileName() > QFileInfo(b).fileName();
    });
    return out;
}

QTreeWidgetItem* RunsPanel::itemFor(const QString& dir) const {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(kRun, kDirRole).toString() == dir) return m_tree->topLevelItem(i);
    return nullptr;
}

void RunsPanel::refresh() {
    QStringList dirs;
    if (!m_root.isEmpty()) {
        const QDir root(m_root);
        for (const QFileInfo& info : root.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            if (wb::isRunFolder(toStd(info.absoluteFilePath()))) dirs << canonical(info.absoluteFilePath());
    }
    for (const QString& d : std::as_const(m_opened))
        if (wb::isRunFolder(toStd(d))) dirs << canonical(d);
    for (int i = 0; i < m_runs->size(); ++i) dirs << m_runs->at(i).key;
    dirs.removeDuplicates();
    // Drop rows whose folder went away (deleted outside the app).
    for (int i = m_tree->topLevelItemCount() - 1; i >= 0; --i)
        if (!dirs.contains(m_tree->topLevelItem(i)->data(kRun, kDirRole).toString()))
            delete m_tree->takeTopLevelItem(i);
    for (const QString& d : std::as_const(dirs)) addOrUpdate(d);
    Q_EMIT listChanged();
}

void RunsPanel::addOrUpdate(const QString& dir) {
    m_updating = true;
    QTreeWidgetItem* item = itemFor(dir);
    const bool isNew = item == nullptr;
    if (isNew) {
        item = new QTreeWidgetItem(m_tree);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setData(kRun, kDirRole, dir);
    }
    const int index = m_runs->indexOf(dir);
    wb::RunRecord record;
    bool readable = true;
    if (index >= 0) {
        record = m_runs->at(index).record;
        item->setForeground(kRun, m_runs->at(index).color);
    } else {
        try {
            record = wb::loadRunFolder(toStd(dir));
        } catch (const std::exception& e) {
            readable = false;
            item->setText(kStatus, tr("unreadable"));
            item->setToolTip(kStatus, toQt(e.what()));
        }
    }
    item->setText(kRun, QFileInfo(dir).fileName());
    item->setToolTip(kRun, dir);
    if (readable) {
        // Short and distinct (the start to the second, the corpus; the device, task and state have their own
        // columns); the legend's whole name in the tooltip.
        item->setText(kRun, toQt(record.shortName()) + runHostSuffix(record));
        item->setToolTip(kRun, QStringLiteral("%1\n%2\n%3")
                                   .arg(runLegendLabel(record), dir, toQt(record.annotations.notes))
                                   .trimmed());
        item->setText(kTags, toQt(record.annotations.tags).join(QStringLiteral(", ")));
        const QString notes = toQt(record.annotations.notes);
        item->setText(kNotes, notes.section(QLatin1Char('\n'), 0, 0));
        item->setToolTip(kNotes, notes);
        // Derived from the folder and its owner: "interrupted at step 154" when nobody trains it any more.
        item->setText(kStatus, toQt(record.statusText()));
        item->setToolTip(kStatus, toQt(record.statusDetail()));
        item->setText(kDevice, RunCollection::deviceLabelFor(record));
        item->setText(kTask, toQt(wb::toString(record.config.task)));
        item->setText(kSteps, QString::number(record.info.summary.steps));
        item->setText(kSpeed, record.info.summary.samplesPerSecond > 0
                                  ? QString::number(record.info.summary.samplesPerSecond, 'f', 1)
                                  : QStringLiteral("–"));
    }
    // A run that reads running but is not this app's own is trained by another process: follow it.
    if (readable && record.info.status == wb::RunStatus::Running && !(index >= 0 && m_runs->at(index).live))
        m_owners->watch(dir);
    else
        m_owners->unwatch(dir);
    const bool hasModel = QFileInfo::exists(dir + QLatin1Char('/') + QLatin1String(wb::runfiles::kModel));
    item->setData(kRun, kModelRole, hasModel);
    item->setCheckState(kRun, index >= 0 ? Qt::Checked : Qt::Unchecked);
    m_updating = false;
    if (isNew) Q_EMIT listChanged();
}

void RunsPanel::setInComparison(QTreeWidgetItem* item, bool on) {
    const QString dir = item->data(kRun, kDirRole).toString();
    if (!on) {
        m_runs->remove(dir);
        return;
    }
    if (m_runs->contains(dir)) return;
    try {
        RunEntry entry;
        entry.key = dir;
        entry.record = wb::loadRunFolder(toStd(dir));
        m_runs->add(std::move(entry));
    } catch (const std::exception& e) {
        m_updating = true;
        item->setCheckState(kRun, Qt::Unchecked);
        m_updating = false;
        Q_EMIT loadFailed(tr("Could not open the run"), toQt(e.what()));
    }
}

bool RunsPanel::openRunFolder(const QString& path) {
    const QString dir = canonical(path);
    if (!wb::isRunFolder(toStd(dir))) {
        Q_EMIT loadFailed(tr("Not a run folder"),
                          tr("%1 is not a run folder: config.json and run.json were expected in it.\n\n"
                             "Open the folder that lstm-workbench-cli train --out … wrote.")
                              .arg(dir));
        return false;
    }
    RunEntry entry;
    entry.key = dir;
    try {
        entry.record = wb::loadRunFolder(toStd(dir));
    } catch (const std::exception& e) {
        Q_EMIT loadFailed(tr("Could not open the run"), toQt(e.what()));
        return false;
    }
    if (!m_opened.contains(dir) && (m_root.isEmpty() || !dir.startsWith(canonical(m_root)))) m_opened << dir;
    m_runs->add(std::move(entry));
    addOrUpdate(dir);
    return true;
}

void RunsPanel::selectRun(const QString& dir) {
    if (auto* item = itemFor(dir)) m_tree->setCurrentItem(item);
}

QString RunsPanel::runName(const QString& dir) const {
    auto* item = itemFor(dir);
    return item ? item->text(kRun) : QString();
}

QString RunsPanel::runStatus(const QString& dir) const {
    auto* item = itemFor(dir);
    return item ? item->text(kStatus) : QString();
}

bool RunsPanel::annotate(const QString& dir, const wb::RunAnnotations& annotations,
                         const std::optional<wb::RunAnnotations>& base) {
    wb::AnnotationsSaved saved;
    m_lastSaveNotice.clear();
    try {
        // Merged under the file's lock with what another window or process saved since base was read.
        saved = wb::saveRunAnnotations(toStd(dir), base ? *base : wb::readRunAnnotations(toStd(dir)),
                                       annotations);
    } catch (const std::exception& e) {
        Q_EMIT loadFailed(tr("Could not save the run's name and notes"), toQt(e.what()));
        return false;
    }
    // Renames it in the charts and tables when it is compared.
    m_runs->setAnnotations(dir, saved.annotations);
    addOrUpdate(dir);
    if (!saved.overwritten.empty()) {
        QStringList replaced;
        for (const auto& field : saved.overwritten)
            replaced << (field == "name" ? tr("the name (it was \"%1\")").arg(toQt(saved.theirs.name))
                                         : tr("the notes (they were: %1)").arg(toQt(saved.theirs.notes)));
        m_lastSaveNotice = tr("%1 was also edited elsewhere since this dialog opened; yours replaced %2. "
                              "Everything else saved there is kept.")
                               .arg(runName(dir), replaced.join(tr(" and ")));
        if (m_confirm) QMessageBox::information(this, tr("Saved over another change"), m_lastSaveNotice);
    }
    return true;
}

std::optional<wb::RunRecord> RunsPanel::loadSelected() {
    const QString dir = selectedRun();
    if (dir.isEmpty()) return std::nullopt;
    try {
        return wb::loadRunFolder(toStd(dir));
    } catch (const std::exception& e) {
        Q_EMIT loadFailed(tr("Could not open the run"), toQt(e.what()));
        return std::nullopt;
    }
}

void RunsPanel::editSelected() {
    const auto record = loadSelected();
    if (!record) return;
    RunNotesDialog dialog(*record, this);
    // What the dialog opened with is the base of the merge: only what the user changed in it is saved.
    if (dialog.exec() == QDialog::Accepted)
        annotate(toQt(record->dir), dialog.annotations(), record->annotations);
}

bool RunsPanel::deleteRun(const QString& dir) {
    const int index = m_runs->indexOf(dir);
    if (index >= 0 && m_runs->at(index).live) {
        Q_EMIT loadFailed(tr("The run is still training"),
                          tr("Stop %1 before deleting it.").arg(runName(dir)));
        return false;
    }
    if (m_confirm) {
        QMessageBox ask(
            QMessageBox::Warning, tr("Delete run"),
            tr("Delete the run \"%1\" and its folder?\n\n%2\n\nIts checkpoint, metrics and settings "
               "are removed from the disk; this cannot be undone.")
                .arg(runName(dir), dir),
            QMessageBox::Cancel, this);
        QAbstractButton* confirm = ask.addButton(tr("Delete"), QMessageBox::DestructiveRole);
        ask.setDefaultButton(QMessageBox::Cancel);
        ask.exec();
        if (ask.clickedButton() != confirm) return false;
    }
    try {
        wb::removeRunFolder(toStd(dir));
    } catch (const std::exception& e) {
        Q_EMIT loadFailed(tr("Could not delete the run"), toQt(e.what()));
        return false;
    }
    m_runs->remove(dir);
    m_opened.removeAll(dir);
    delete itemFor(dir);
    Q_EMIT listChanged();
    return true;
}

void RunsPanel::showSettingsDiff() {
    auto* dialog = new SettingsDiffDialog(m_runs->records(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

bool RunsPanel::exportSelectedModel(const QString& onnxPath) {
    const auto loaded = loadSelected();
    if (!loaded) return false;
    const QString dir = toQt(loaded->dir);
    const bool best = QFileInfo::exists(QDir(dir).filePath(QString::fromUtf8(wb::runfiles::kBestModel)));
    if (!best && !QFileInfo::exists(QDir(dir).filePath(QString::fromUtf8(wb::runfiles::kModel)))) {
        Q_EMIT loadFailed(
            tr("Nothing to export"),
            tr("%1 has no saved weights yet (it stopped before its first checkpoint).").arg(runName(dir)));
        return false;
    }
    QString path = onnxPath;
    if (path.isEmpty()) {
        path = QFileDialog::getSaveFileName(this, tr("Export %1 as ONNX").arg(runName(dir)),
                                            QDir(dir).filePath(QStringLiteral("model.onnx")),
                                            tr("ONNX models (*.onnx)"));
        if (path.isEmpty()) return false;
    }
    try {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        const auto model = wb::TrainedModel::load(
            loaded->dir, best ? wb::TrainedModel::Checkpoint::Best : wb::TrainedModel::Checkpoint::Last);
        const auto out = model->exportOnnx(path.toStdString());
        QApplication::restoreOverrideCursor();
        m_lastExportNotice =
            tr("%1 (the %2 checkpoint) is in %3, its vocabulary and a check batch in %4.\n\nRun it with "
               "ONNX Runtime:\n%5")
                .arg(runName(dir), best ? tr("best") : tr("last"), toQt(out.modelPath),
                     toQt(out.vocabularyPath), toQt(out.howToRun));
        if (m_confirm) QMessageBox::information(this, tr("Model exported"), m_lastExportNotice);
        return true;
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        Q_EMIT loadFailed(tr("Could not export the model"), toQt(e.what()));
        return false;
    }
}

std::int64_t plannedSteps(const wb::RunRecord& record) {
    const auto& train = record.config.train;
    const auto& summary = record.info.summary;
    // Steps per epoch from what was done: the epochs' share of the planned total.
    std::int64_t byEpochs = 0;
    if (train.epochs > 0 && summary.epochs > 0 && summary.steps > 0)
        byEpochs = std::llround(static_cast<double>(train.epochs) * static_cast<double>(summary.steps) /
                                summary.epochs);
    if (train.maxSteps > 0) return byEpochs > 0 ? std::min(train.maxSteps, byEpochs) : train.maxSteps;
    return byEpochs;
}

void RunsPanel::resumeSelected() {
    const auto loaded = loadSelected();
    if (!loaded) return;
    const wb::RunRecord& record = *loaded;
    const QString dir = toQt(record.dir);
    if (!record.hasCheckpoint) {
        Q_EMIT loadFailed(
            tr("Nothing to resume"),
            tr("%1 has no checkpoint yet (it stopped before its first validation).").arg(runName(dir)));
        return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Resume %1").arg(runName(dir)));
    auto* form = new QFormLayout(&dialog);
    const auto& summary = record.info.summary;
    const auto planned = plannedSteps(record);
    form->addRow(
        new QLabel(tr("Trained so far: %1 of %2 steps, %3 epochs. New totals (the run's own plan as shown):")
                       .arg(summary.steps)
                       .arg(planned > 0 ? QString::number(planned) : tr("the planned"))
                       .arg(summary.epochs, 0, 'f', 2)));
    // The run's own plan, so that OK continues it to its planned end (a crash at step 308 of 500 resumes to
    // 500, not to twice the steps done).
    auto* epochs = new QSpinBox(&dialog);
    epochs->setRange(0, 100000);
    epochs->setValue(int(record.config.train.epochs));
    auto* steps = new QSpinBox(&dialog);
    steps->setRange(0, 100000000);
    steps->setValue(int(record.config.train.maxSteps));
    steps->setSpecialValueText(tr("as the epochs make it"));
    auto* lr = new QDoubleSpinBox(&dialog);
    lr->setDecimals(6);
    lr->setRange(0, 10);
    lr->setSingleStep(0.0001);
    lr->setSpecialValueText(tr("the same"));
    form->addRow(tr("Epochs in total:"), epochs);
    form->addRow(tr("Steps in total:"), steps);
    form->addRow(tr("Learning rate:"), lr);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Resume"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return;
    Q_EMIT resumeRequested(dir, ResumeRequest{epochs->value(), steps->value(), lr->value()});
}

}  // namespace wbui
