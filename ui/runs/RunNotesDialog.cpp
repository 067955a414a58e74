#include "runs/RunNotesDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

RunNotesDialog::RunNotesDialog(const wb::RunRecord& run, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Name and notes of %1").arg(toQt(run.name())));
    auto* form = new QFormLayout(this);
    m_name = new QLineEdit(toQt(run.annotations.name), this);
    m_name->setPlaceholderText(toQt(run.defaultName()));
    m_name->setToolTip(tr("Shown in every legend, table and list; empty: the default name"));
    m_name->setMinimumWidth(m_name->fontMetrics().horizontalAdvance(m_name->placeholderText()) + 40);
    m_tags = new QLineEdit(toQt(run.annotations.tags).join(QStringLiteral(", ")), this);
    m_tags->setPlaceholderText(tr("baseline, bf16, night run"));
    m_tags->setToolTip(tr("Words to find and group runs by, separated by commas"));
    m_notes = new QPlainTextEdit(toQt(run.annotations.notes), this);
    m_notes->setPlaceholderText(tr("What this run tried, and what it showed"));
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Tags:"), m_tags);
    form->addRow(tr("Notes:"), m_notes);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

wb::RunAnnotations RunNotesDialog::annotations() const {
    wb::RunAnnotations a;
    a.name = toStd(m_name->text().simplified());
    a.notes = toStd(m_notes->toPlainText().trimmed());
    for (const QString& tag : m_tags->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const std::string t = toStd(tag.simplified());
        if (!t.empty() && std::find(a.tags.begin(), a.tags.end(), t) == a.tags.end()) a.tags.push_back(t);
    }
    return a;
}

}  // namespace wbui
