// See SlurmSettingsDialog.h.
#include "sweep/SlurmSettingsDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

SlurmSettingsDialog::SlurmSettingsDialog(const wb::SlurmSettings& settings, QWidget* parent)
    : QDialog(parent),
      m_partition(new QLineEdit(toQt(settings.partition), this)),
      m_account(new QLineEdit(toQt(settings.account), this)),
      m_timeLimit(new QLineEdit(toQt(settings.timeLimit), this)),
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Slurm Settings"));
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_account->setPlaceholderText(tr("your default account"));
    m_timeLimit->setPlaceholderText(tr("the partition's limit"));
    m_timeLimit->setToolTip(
        tr("As sbatch's --time: minutes (90), hours:minutes:seconds (1:30:00) or "
           "days-hours (2-0)"));
    auto* form = new QFormLayout;
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("Account"), m_account);
    form->addRow(tr("Time limit per cell"), m_timeLimit);
    auto* note = new QLabel(
        tr("Each cell is a batch job of its own, asking for its device's CPUs or a GPU. Near its time limit "
           "(%1 s before it) a cell saves its checkpoint and queues itself again; Slurm holds a requeued job "
           "about two minutes, and it then continues where it stopped.")
            .arg(wb::kTimeLimitWarningSeconds),
        this);
    note->setWordWrap(true);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (auto* edit : {m_partition, m_account, m_timeLimit})
        connect(edit, &QLineEdit::textChanged, this, &SlurmSettingsDialog::recheck);
    recheck();
}

wb::SlurmSettings SlurmSettingsDialog::settings() const {
    return {toStd(m_partition->text().trimmed()), toStd(m_account->text().trimmed()),
            toStd(m_timeLimit->text().trimmed())};
}

void SlurmSettingsDialog::recheck() {
    QString problem;
    try {
        wb::checkSlurmSettings(settings());
    } catch (const std::exception& e) {
        problem = toQt(e.what());
    }
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

wb::SlurmSettings SlurmSettingsDialog::saved() {
    QSettings s;
    wb::SlurmSettings out{toStd(s.value(QStringLiteral("slurm/partition")).toString()),
                          toStd(s.value(QStringLiteral("slurm/account")).toString()),
                          toStd(s.value(QStringLiteral("slurm/timeLimit")).toString())};
    try {
        wb::checkSlurmSettings(out);  // a settings file edited by hand: the cluster's defaults instead
    } catch (const std::exception&) {
        return {};
    }
    return out;
}

void SlurmSettingsDialog::save(const wb::SlurmSettings& settings) {
    QSettings s;
    s.setValue(QStringLiteral("slurm/partition"), toQt(settings.partition));
    s.setValue(QStringLiteral("slurm/account"), toQt(settings.account));
    s.setValue(QStringLiteral("slurm/timeLimit"), toQt(settings.timeLimit));
}

QString SlurmSettingsDialog::describe(const wb::SlurmSettings& settings) {
    QStringList parts;
    if (!settings.partition.empty()) parts << tr("partition %1").arg(toQt(settings.partition));
    if (!settings.account.empty()) parts << tr("account %1").arg(toQt(settings.account));
    if (!settings.timeLimit.empty()) parts << tr("%1 per cell").arg(toQt(settings.timeLimit));
    return parts.isEmpty() ? tr("the cluster's defaults") : parts.join(QStringLiteral(" · "));
}

}  // namespace wbui
