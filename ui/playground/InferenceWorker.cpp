// Model loading and inference off the GUI thread.
#include "playground/InferenceWorker.h"

#include <QFileInfo>

#include "common/QtConversions.h"

namespace wbui {

InferenceWorker::InferenceWorker() = default;
InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::load(const QString& runDir, bool best) {
    try {
        m_model = wb::TrainedModel::load(
            toStd(runDir), best ? wb::TrainedModel::Checkpoint::Best : wb::TrainedModel::Checkpoint::Last);
        m_runDir = runDir;
        const auto& config = m_model->config();
        const bool lm = config.task == wb::Task::LanguageModel;
        const QString description =
            tr("%1 · %2 · %3×%4 LSTM · vocabulary %5")
                .arg(QFileInfo(runDir).fileName(), lm ? tr("language model") : tr("classifier"))
                .arg(config.model.layers)
                .arg(config.model.hidden)
                .arg(m_model->vocabulary().size()) +
            (best ? tr(" · best checkpoint (lowest validation loss)") : tr(" · last checkpoint"));
        Q_EMIT loaded(runDir, lm, toQt(m_model->classes()), description);
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
        Q_EMIT generated(toQt(m_model->generate(o)));
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
