// Checkpointer (see Checkpointer.h).
#include "train/Checkpointer.h"

#include "workbench/domain/Errors.h"

namespace wb {

void Checkpointer::save(double wall) {
    for (const auto& p : m_setup.model->parameters())
        if (!torch::isfinite(p).all().item<bool>())
            throw TrainingError("the weights became NaN or infinite at step " + std::to_string(m_state.step) +
                                ": lower the learning rate; the last good checkpoint is kept");
    m_state.wallSeconds = wall;
    m_state.optimizerSteps = m_setup.optimizer->steps();
    m_writer.writeMetrics(m_sink.records());
    m_writer.writeCheckpoint(namedParameters(m_setup.model),
                             {{"format", "lstm-workbench"},
                              {"step", std::to_string(m_state.step)},
                              {"task", toString(m_config.task)}},
                             m_setup.optimizer->state(), m_state.toMetadata(m_config));
    writeSummary();
}

void Checkpointer::saveBest(double valLoss) {
    m_writer.writeBestModel(namedParameters(m_setup.model), {{"format", "lstm-workbench"},
                                                             {"step", std::to_string(m_state.step)},
                                                             {"val_loss", std::to_string(valLoss)},
                                                             {"task", toString(m_config.task)}});
}

void Checkpointer::writeSummary() {
    const auto startup = m_info.summary.startupSeconds, validation = m_info.summary.validationSeconds;
    m_info.summary = m_state.summary(m_info.summary.parameters, m_tokensPerSample);
    m_info.summary.startupSeconds = startup;
    m_info.summary.validationSeconds = validation;
    m_info.summary.epochs = static_cast<double>(m_state.step) / static_cast<double>(m_stepsPerEpoch);
    m_writer.writeRunInfo(m_info);
}

}  // namespace wb
