// Loads a trained model from a run folder and generates or classifies on its own thread, so that loading
// weights or sampling a long text never freezes the window. Requests arrive as queued calls; results leave
// as signals with plain Qt types.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <QVector>

#include <atomic>
#include <memory>
#include <optional>

#include "workbench/domain/Verse.h"
#include "workbench/engine/Inference.h"

namespace wbui {

class InferenceWorker : public QObject {
    Q_OBJECT
public:
    InferenceWorker();
    ~InferenceWorker() override;

    // Called through QMetaObject::invokeMethod on the worker's thread.
    // best: the weights of the lowest validation loss (best-model.safetensors) instead of the last, where the
    // run kept them; the last where it kept none (the model line says so).
    void load(const QString& runDir, bool best = false);
    void generate(const wb::GenerateOptions& options);
    void classify(const QString& text, int topK);

    // From any thread: the generation in progress ends at its next token and none starts after it (the
    // window is closing). Thread-safe.
    void shutDown() { m_shuttingDown = true; }

Q_SIGNALS:
    // isLanguageModel, whether this machine has the tone and rhyme tables of the run's corpus (poems are
    // checked, strict meter is possible), the model's classes (classifier) and a one-line description.
    void loaded(const QString& runDir, bool isLanguageModel, bool hasVerseTables, const QStringList& classes,
                const QString& description);
    // verse: for each sample a map of html, summary, tooltip, passed and marks (VerseMarkup.h) when the
    // poems were checked against the corpus's tone and rhyme tables; empty otherwise. bitsPerToken: what
    // the model thinks of each sample (GeneratedText::bitsPerToken).
    void generated(const QStringList& samples, const QVariantList& verse,
                   const QVector<double>& bitsPerToken);
    void classified(const QString& predicted, const QStringList& labels, const QVector<double>& probabilities,
                    const QStringList& tokens, const QVector<double>& scores);
    void failed(const QString& message);

private:
    std::unique_ptr<wb::TrainedModel> m_model;
    std::optional<wb::VerseChecker> m_verse;  // the run's corpus's tables, when this machine has them
    std::atomic<bool> m_shuttingDown{false};
    QString m_runDir;
};

}  // namespace wbui
