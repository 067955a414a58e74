// Model loading and inference off the GUI thread.
#include "playground/InferenceWorker.h"

#include <QDir>
#include <QFileInfo>

#include "playground/VerseMarkup.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

InferenceWorker::InferenceWorker() = default;
InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::load(const QString& runDir, bool wantBest) {
    const bool noBestKept =
        wantBest && !QFileInfo::exists(QDir(runDir).filePath(QString::fromUtf8(wb::runfiles::kBestModel)));
    const bool best = wantBest && !noBestKept;
    try {
        m_model = wb::TrainedModel::load(
            toStd(runDir), best ? wb::TrainedModel::Checkpoint::Best : wb::TrainedModel::Checkpoint::Last);
        m_runDir = runDir;
        const auto& config = m_model->config();
        const bool lm = config.task == wb::Task::LanguageModel;
        // Poems are checked with the tone and rhyme tables of the corpus the model learned from.
        m_verse.reset();
        QString verseNote;
        if (lm) {
            try {
                m_verse = wb::verseCheckerForCorpus(config.data.corpus);
                if (m_verse) verseNote = tr(" · poems checked for tone and rhyme");
            } catch (const std::exception& e) {
                verseNote = tr(" · poems not checked: %1").arg(describeError(e));
            }
        }
        const QString description =
            tr("%1 · %2 · %3×%4 LSTM · vocabulary %5")
                .arg(QFileInfo(runDir).fileName(), lm ? tr("language model") : tr("classifier"))
                .arg(config.model.layers)
                .arg(config.model.hidden)
                .arg(m_model->vocabulary().size()) +
            (best         ? tr(" · best checkpoint (lowest validation loss)")
             : noBestKept ? tr(" · last checkpoint (the run kept no best one)")
                          : tr(" · last checkpoint")) +
            verseNote;
        Q_EMIT loaded(runDir, lm, m_verse.has_value(), toQt(m_model->classes()), description);
    } catch (const std::exception& e) {
        m_model.reset();
        Q_EMIT failed(describeError(e));
    }
}

void InferenceWorker::generate(const wb::GenerateOptions& options) {
    try {
        if (!m_model) throw std::runtime_error("No model is loaded: pick a run with a saved model first.");
        if (m_shuttingDown) return;
        wb::GenerateOptions o = options;
        // The window's close ends the generation at its next token, and so does the request's own cancel.
        o.cancelled = [this, own = options.cancelled] {
            return m_shuttingDown.load(std::memory_order_relaxed) || (own && own());
        };
        if (m_verse) o.verse = &*m_verse;
        const auto samples = m_model->generate(o);
        QVariantList verse;
        QVector<double> bits;
        for (const auto& sample : samples) bits << sample.bitsPerToken();
        if (m_verse && options.form != wb::PoemForm::Free)
            for (const auto& sample : samples) {
                const wb::VerseReport report = m_verse->check(sample.text);
                QString summary = toQt(wb::verseSummary(report));
                if (o.meter == wb::Meter::Strict)
                    summary += QStringLiteral(" · %1 (%2)")
                                   .arg(QString::fromUtf8(wb::meterPatternLabel(sample.pattern)),
                                        tr(wb::meterPatternGloss(sample.pattern)));
                summary += tr(" · %1 bits/char").arg(sample.bitsPerToken(), 0, 'f', 2);
                int marks = 0;
                const QString html = verseHtml(toQt(sample.text), report, &marks, summary);
                verse << QVariantMap{{QStringLiteral("html"), html},
                                     {QStringLiteral("summary"), summary},
                                     {QStringLiteral("tooltip"), verseTooltip(report)},
                                     {QStringLiteral("passed"), report.passed},
                                     {QStringLiteral("marks"), marks}};
            }
        Q_EMIT generated(toQt(wb::textsOf(samples)), verse, bits);
    } catch (const std::exception& e) {
        Q_EMIT failed(describeError(e));
    }
}

void InferenceWorker::classify(const QString& text, int topK) {
    try {
        if (!m_model) throw std::runtime_error("No model is loaded: pick a run with a saved model first.");
        const wb::Classification c = m_model->classify(toStd(text), topK, true);
        QStringList labels, tokens;
        QVector<double> probabilities, scores;
        for (const auto& p : c.top) {
            labels << toQt(p.label);
            probabilities << p.probability;
        }
        for (const auto& a : c.attributions) {
            tokens << toQt(a.token);
            scores << a.score;
        }
        Q_EMIT classified(toQt(c.predicted), labels, probabilities, tokens, scores);
    } catch (const std::exception& e) {
        Q_EMIT failed(describeError(e));
    }
}

}  // namespace wbui
