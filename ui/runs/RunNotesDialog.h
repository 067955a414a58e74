// A run's name, tags and notes, edited in one small dialog (the Runs list's "Name & notes…", F2). An empty
// name goes back to the default, which the field shows as its placeholder.
#pragma once

#include <QDialog>

#include "workbench/domain/RunFolder.h"

class QLineEdit;
class QPlainTextEdit;

namespace wbui {

class RunNotesDialog : public QDialog {
    Q_OBJECT
public:
    RunNotesDialog(const wb::RunRecord& run, QWidget* parent = nullptr);
    wb::RunAnnotations annotations() const;

    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* tagsEdit() const { return m_tags; }
    QPlainTextEdit* notesEdit() const { return m_notes; }

private:
    QLineEdit* m_name = nullptr;
    QLineEdit* m_tags = nullptr;
    QPlainTextEdit* m_notes = nullptr;
};

}  // namespace wbui
