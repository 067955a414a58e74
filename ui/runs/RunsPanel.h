// The Runs list: this session's runs and every run folder under the user's runs folder, plus run folders
// opened from elsewhere (made by lstm-workbench-cli on another machine). The check box puts a run into the
// comparison (charts, table, export); reading a run needs no tensors, so listing is cheap.
#pragma once

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>

#include "training/TrainingWorker.h"
#include "workbench/domain/RunFolder.h"

class QGridLayout;
class QTreeWidget;
class QTreeWidgetItem;

namespace wbui {

class RunCollection;
class RunOwnerWatch;

// The steps a run was planned to train in all: its max steps, or its epochs at the steps per epoch it
// trained (0 when neither says). What Resume offers to continue to.
std::int64_t plannedSteps(const wb::RunRecord& record);

class RunsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunsPanel(RunCollection* runs, QWidget* parent = nullptr);

    void setRunsRoot(const QString& dir);
    QString runsRoot() const { return m_root; }
    // Rescans the runs folder and the opened folders.
    void refresh();
    // Adds a run folder from anywhere and puts it into the comparison. False (and loadFailed) when it is not
    // a readable run folder.
    bool openRunFolder(const QString& dir);
    QStringList openedFolders() const { return m_opened; }
    void setOpenedFolders(const QStringList& dirs);
    int runCount() const;
    QString selectedRun() const;
    // Run folders with a checkpoint, newest first: what the playground can load.
    QStringList runsWithModel() const;
    void selectRun(const QString& dir);
    QString runName(const QString& dir) const;    // what the Run column shows
    QString runStatus(const QString& dir) const;  // what the Status column shows ("running", "completed")

    // Writes a run's name, notes and tags to its folder; every view renames it. False (and loadFailed) when
    // the folder cannot be written. base: what the editor started from (the dialog's run as it opened);
    // only what differs from it is saved, merged with what another process saved meanwhile
    // (wb::saveRunAnnotations). Without base, what the folder holds now.
    bool annotate(const QString& dir, const wb::RunAnnotations& annotations,
                  const std::optional<wb::RunAnnotations>& base = std::nullopt);
    // After annotate: what the user was told because another writer's name or notes were replaced; "" if
    // none.
    QString lastSaveNotice() const { return m_lastSaveNotice; }
    // After exportSelectedModel: where the model went and how to run it.
    QString lastExportNotice() const { return m_lastExportNotice; }
    // Opens the name/notes/tags dialog for the selected run.
    void editSelected();
    // Deletes a run folder after asking (unless confirmations are off, for tests); a run still training is
    // refused. False when nothing was deleted.
    bool deleteRun(const QString& dir);
    void setConfirmations(bool on) { m_confirm = on; }
    // The settings of the runs in the comparison side by side (SettingsDiffDialog).
    void showSettingsDiff();
    // Asks for new totals (more epochs or steps, a new learning rate) and requests the selected run's resume.
    void resumeSelected();
    // Writes the selected run's network as an ONNX model (its best checkpoint when it has one) with its
    // vocabulary beside it (wb::TrainedModel::exportOnnx), asking where unless onnxPath is given, and says
    // where it went and how to run it. False (and loadFailed) when nothing was written.
    bool exportSelectedModel(const QString& onnxPath = {});

Q_SIGNALS:
    void loadFailed(const QString& title, const QString& message);
    void openFolderRequested();
    void playgroundRequested(const QString& dir);
    void resumeRequested(const QString& dir, const wbui::ResumeRequest& request);
    void configRequested(const QString& dir);
    void listChanged();

private:
    QTreeWidgetItem* itemFor(const QString& dir) const;
    // The selected run's folder read whole; nullopt (and loadFailed when unreadable) otherwise.
    std::optional<wb::RunRecord> loadSelected();
    QTreeWidget* buildTree();
    QGridLayout* buildButtons();
    void followCollection();
    void addOrUpdate(const QString& dir);
    // A run folder changed on disk (another process's checkpoint, end or death): its row, and its entry in
    // the comparison when it is there and not this app's live run, are read again.
    void reloadRun(const QString& dir);
    void setInComparison(QTreeWidgetItem* item, bool on);

    RunCollection* m_runs = nullptr;
    RunOwnerWatch* m_owners = nullptr;
    QTreeWidget* m_tree = nullptr;
    QString m_root;
    QStringList m_opened;
    bool m_updating = false;
    bool m_confirm = true;
    QString m_lastSaveNotice, m_lastExportNotice;
};

}  // namespace wbui
