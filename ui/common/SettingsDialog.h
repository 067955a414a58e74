// File → Settings…: the app's own settings, those that belong to no experiment. For now the runs folder,
// where new runs and sweeps go. $LSTM_WORKBENCH_RUNS, when set, still decides it for the session that has it
// (scripts and tests set it); the dialog then says so, and what is chosen here applies once it is unset.
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;

namespace wbui {

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // runsFolder: the setting (or its default); environmentFolder: $LSTM_WORKBENCH_RUNS, "" when unset.
    SettingsDialog(const QString& runsFolder, const QString& environmentFolder, QWidget* parent = nullptr);
    QString runsFolder() const;

    // The runs folder kept in the app's settings, or its default under the app's data folder.
    static QString savedRunsFolder();
    // Keeps dir as the runs folder once it is made if missing and can be written to: a folder the runs could
    // not be saved in is refused here, not at the next run's start. False with *error set, nothing kept.
    static bool saveRunsFolder(const QString& dir, QString* error);

    QLineEdit* runsFolderEdit() const { return m_runsFolder; }
    QLabel* runsFolderNote() const { return m_note; }

private:
    QLineEdit* m_runsFolder = nullptr;
    QLabel* m_note = nullptr;
};

}  // namespace wbui
