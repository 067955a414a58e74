// The Settings dialog: one row per setting, each with what it does said beside it.
#include "common/SettingsDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace wbui {

SettingsDialog::SettingsDialog(const QString& runsFolder, const QString& environmentFolder, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Settings"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    auto* row = new QHBoxLayout;
    m_runsFolder = new QLineEdit(QDir::toNativeSeparators(runsFolder), this);
    m_runsFolder->setMinimumWidth(360);
    auto* choose = new QPushButton(tr("Choose…"), this);
    row->addWidget(m_runsFolder, 1);
    row->addWidget(choose);
    form->addRow(tr("Runs folder"), row);
    layout->addLayout(form);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    if (environmentFolder.isEmpty()) {
        m_note->setText(
            tr("New runs and sweeps (sweeps/) go here, and the Runs list shows the runs in it. "
               "Runs already training stay where they are."));
    } else {
        m_note->setText(tr("LSTM_WORKBENCH_RUNS is set (%1): it decides the runs folder while it is set. The "
                           "folder chosen here is kept and used once it is unset.")
                            .arg(QDir::toNativeSeparators(environmentFolder)));
    }
    layout->addWidget(m_note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(choose, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Runs folder"), this->runsFolder());
        if (!dir.isEmpty()) m_runsFolder->setText(QDir::toNativeSeparators(dir));
    });
}

QString SettingsDialog::runsFolder() const {
    const QString text = m_runsFolder->text().trimmed();
    if (text.isEmpty()) return {};
    QString path = QDir::fromNativeSeparators(text);
    if (path == QStringLiteral("~") || path.startsWith(QStringLiteral("~/")))
        path.replace(0, 1, QDir::homePath());
    return QDir::cleanPath(path);  // a relative path stays one, and saveRunsFolder refuses it
}

QString SettingsDialog::savedRunsFolder() {
    return QSettings()
        .value(QStringLiteral("runsDirectory"),
               QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs"))
        .toString();
}

bool SettingsDialog::saveRunsFolder(const QString& dir, QString* error) {
    if (dir.isEmpty() || !QFileInfo(dir).isAbsolute()) {
        *error = tr("Choose a folder for the runs (a full path)");
        return false;
    }
    if (!QDir().mkpath(dir) || !QFileInfo(dir).isDir() || !QFileInfo(dir).isWritable()) {
        *error =
            tr("Cannot write to %1: choose a folder you can write to").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    QSettings().setValue(QStringLiteral("runsDirectory"), dir);
    return true;
}

}  // namespace wbui
