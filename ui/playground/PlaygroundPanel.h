// The playground: try a trained run. Language models: seed text, temperature, top-k/top-p, length, form
// (free, 5- or 7-character quatrain, acrostic) and number of samples; results listed and copyable.
// Classifiers: a text box, class probabilities as bars, and the tokens that pushed the decision highlighted;
// beside them the run's evaluation on its validation split (confusion matrix, per-class scores, baseline).
// Works on the run just trained or any saved run; the model lives on an InferenceWorker thread.
#pragma once

#include <QElapsedTimer>
#include <QStringList>
#include <QThread>
#include <QWidget>

namespace wb {
struct GenerateOptions;
enum class MeterPattern;
}  // namespace wb

class QCheckBox;
class QComboBox;
class QGroupBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTextBrowser;

namespace wbui {

class EvaluationView;
class InferenceWorker;

class PlaygroundPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlaygroundPanel(QWidget* parent = nullptr);
    ~PlaygroundPanel() override;

    // Run folders with a model, newest first; keeps the current choice when it is still there.
    void setRuns(const QStringList& runDirs);
    // Loads a run's model (asynchronously; modelLoaded or errorOccurred follow).
    void loadRun(const QString& runDir);
    // Which weights Load model takes: the last (default) or those of the lowest validation loss.
    void setBestCheckpoint(bool best);
    QString modelText() const;  // the "Model: …" line
    QString loadedRun() const { return m_loadedRun; }
    bool isLanguageModel() const { return m_isLanguageModel; }

    // Triggers what the buttons trigger (tests, shortcuts).
    void generate();
    void classify();
    void setSeedText(const QString& text);
    void setClassifierText(const QString& text);
    void setForm(int index);  // 0 free, 1 quatrain5, 2 quatrain7, 3 regulated5, 4 regulated7
    void setAcrostic(const QString& text);
    // The Meter row: strict meter (and its pattern) for the next generation, when the form is a poem and
    // the model's corpus has tone and rhyme tables (strictMeterAvailable).
    void setStrictMeter(bool strict, wb::MeterPattern pattern);
    bool strictMeterAvailable() const;
    QString strictMeterToolTip() const;  // why it is not, or what it does
    void setSamples(int n);
    void setLength(int n);
    void setTemperature(double t);  // 0 = greedy

    QStringList results() const;
    // Each result's verse check ("七绝 · passes every rule"); empty when the poems were not checked.
    QStringList verseSummaries() const;
    QString verseText(int result) const;  // the marked-up poem (HTML)
    int verseMarks(int result) const;     // characters marked in it
    QStringList classLabels() const;
    QString attributionHtml() const;
    QString timingText() const;  // "2 samples in 35 ms" after a generation; "" before any
    const EvaluationView* evaluationView() const { return m_evaluation; }

Q_SIGNALS:
    void modelLoaded(const QString& runDir);
    void resultsReady();
    void errorOccurred(const QString& title, const QString& message);

private:
    QWidget* buildGeneratePage();
    QGroupBox* buildGenerateOptions(QWidget* page);
    QGroupBox* buildResultsBox(QWidget* page);
    QWidget* buildClassifyPage();
    void startWorker();
    // "" when the poem options are consistent, else what the user should change in the panel.
    QString formAdvice(const wb::GenerateOptions& options) const;
    void onLoaded(const QString& runDir, bool isLanguageModel, bool hasVerseTables,
                  const QStringList& classes, const QString& description);
    void onGenerated(const QStringList& samples, const QVariantList& verse,
                     const QVector<double>& bitsPerToken);
    void updateMeter();  // the Meter row follows the form and the model's tables
    void onClassified(const QString& predicted, const QStringList& labels,
                      const QVector<double>& probabilities, const QStringList& tokens,
                      const QVector<double>& scores);
    void setBusy(bool busy);

    QThread m_thread;
    InferenceWorker* m_worker = nullptr;
    QString m_loadedRun;
    bool m_isLanguageModel = true;
    bool m_hasVerseTables = false;
    bool m_busyCursor = false;

    QComboBox* m_run = nullptr;
    QPushButton* m_load = nullptr;
    QComboBox* m_checkpoint = nullptr;  // last or best weights
    QLabel* m_model = nullptr;
    QLabel* m_timing = nullptr;  // how long the last generation or classification took
    QElapsedTimer m_clock;
    QStackedWidget* m_pages = nullptr;
    // language model
    QLineEdit* m_seed = nullptr;
    QDoubleSpinBox* m_temperature = nullptr;
    QSpinBox* m_topK = nullptr;
    QDoubleSpinBox* m_topP = nullptr;
    QSpinBox* m_length = nullptr;
    QComboBox* m_form = nullptr;
    QCheckBox* m_strict = nullptr;
    QComboBox* m_pattern = nullptr;
    QLineEdit* m_acrostic = nullptr;
    QSpinBox* m_samples = nullptr;
    QPushButton* m_generate = nullptr;
    QListWidget* m_results = nullptr;
    // classifier
    QPlainTextEdit* m_text = nullptr;
    QSpinBox* m_classTopK = nullptr;
    QPushButton* m_classify = nullptr;
    QLabel* m_predicted = nullptr;
    QTableWidget* m_probabilities = nullptr;
    QTextBrowser* m_attributions = nullptr;
    EvaluationView* m_evaluation = nullptr;
};

}  // namespace wbui
