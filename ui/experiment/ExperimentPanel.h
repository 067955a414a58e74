// The experiment page: a form built from the config table (every field with a form group, with the table's
// range, default, choices and help; workbench/domain/ConfigFields.h), defaults per task (wb::defaultConfig),
// the reference presets (wb::presets), a live model summary and the problems ExperimentConfig::validate()
// finds, updated as values change. The LR and batch-size finder buttons ask
// the main window to run them (they need the corpus and a worker thread).
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/CorpusOverview.h"

class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QVBoxLayout;

namespace wbui {

class ModelSummaryView;

class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentPanel(QWidget* parent = nullptr);

    // The config as edited, with the corpus set by setCorpus().
    wb::ExperimentConfig config() const;
    // Shows a config in the widgets (presets, a saved run's config.json).
    void setConfig(const wb::ExperimentConfig& config);
    void applyPreset(const QString& name);
    // The config saved in the settings (ExperimentConfig::toJson); one that no longer reads (an older
    // version's) leaves the form as it is, and false is returned.
    bool restoreConfigJson(const QByteArray& json);
    // The presets as menu actions that apply them (Experiment → Presets).
    void addPresetActions(QMenu* menu);
    // Switches the experiment to another task and keeps what the user set: a field still at the old task's
    // default takes the new task's default, a field the user changed keeps its value. Returns what changed,
    // one "label: old → new" per field (empty when the task was already this one).
    QStringList switchTask(wb::Task task);
    void setLearningRate(double rate);
    void setBatchSize(std::int64_t size);
    // The first run fitted to the machine (RunControls): its max steps, and the steps its learning-rate
    // schedule spans.
    void setRunLength(std::int64_t maxSteps, std::int64_t lrScheduleSteps);

    // The loaded corpus: path for DataConfig::corpus, and what the summary needs to size the vocabulary.
    void setCorpus(const QString& path, wb::CorpusFormat format, std::int64_t distinctChars,
                   std::int64_t distinctWords, std::int64_t classes);
    // A corpus was loaded: takes it (setCorpus) and, when its kind does not fit the task, switches the task
    // (a labelled corpus is for a classifier, plain text for a language model; settings still at the old
    // task's defaults follow, the user's own stay). Returns a sentence saying what switched, else "".
    QString followCorpus(const QString& path, const wb::CorpusOverview& corpus);

    QStringList problems() const { return m_problems; }
    // The form's widget of a config-table field, by its key ("seq_len"); also its objectName.
    QWidget* formWidget(const QString& key) const;
    ModelSummaryView* summaryView() const { return m_summary; }

Q_SIGNALS:
    void configChanged();
    void lrFinderRequested();
    void batchSizeFinderRequested();

private:
    void buildForm(QVBoxLayout* layout);
    void readWidgets();
    void writeWidgets();
    void refresh();
    std::int64_t estimatedVocabulary(QString* note) const;

    wb::ExperimentConfig m_config = wb::defaultConfig(wb::Task::LanguageModel);
    std::int64_t m_distinctChars = 0, m_distinctWords = 0, m_classes = 0;
    QStringList m_problems;
    bool m_updating = false;

    QComboBox* m_preset = nullptr;
    // The form, built from the config table: one widget per field that has a form group.
    struct FormField {
        const wb::ConfigField* field;
        QWidget* widget;
    };
    std::vector<FormField> m_form;
    QLabel* m_problemsLabel = nullptr;
    QPushButton* m_lrFinder = nullptr;
    QPushButton* m_batchFinder = nullptr;
    ModelSummaryView* m_summary = nullptr;
};

}  // namespace wbui
