// TensorBoardLog (see TensorBoardLog.h).
#include "train/TensorBoardLog.h"

#include <cstdlib>

#include "workbench/domain/ConfigFields.h"

namespace wb {

namespace {
std::vector<std::pair<std::string, TensorBoardWriter::HParam>> hparamsOf(const ExperimentConfig& config) {
    std::vector<std::pair<std::string, TensorBoardWriter::HParam>> out;
    for (const auto& field : configFields()) {
        const auto value = field.get(config);
        if (field.type == FieldType::Boolean)
            out.emplace_back(field.path(), value == "true");
        else if (field.type == FieldType::Choice || field.type == FieldType::Text)
            out.emplace_back(field.path(), value);
        else
            out.emplace_back(field.path(), std::strtod(value.c_str(), nullptr));
    }
    return out;
}
}  // namespace

TensorBoardLog::TensorBoardLog(const std::string& runDir, const ExperimentConfig& config,
                               std::optional<std::int64_t> resumedAt, Log log)
    : m_log(std::move(log)) {
    try {
        m_file = std::make_unique<TensorBoardWriter>(runDir);
        if (resumedAt) m_file->sessionStart(*resumedAt + 1);
        m_file->hparams(hparamsOf(config));
    } catch (const std::exception& e) {
        m_file.reset();
        if (m_log) m_log(std::string("warning: no TensorBoard event file: ") + e.what());
    }
}

void TensorBoardLog::records(const std::vector<MetricRecord>& records) {
    if (!m_file) return;
    try {
        for (const auto& r : records) {
            m_file->scalar(r.split + "/" + r.metric, r.step, r.value);
            if (m_baselineBits && r.split == "val" && r.metric == "bpc")
                m_file->scalar("val/bpc_5gram", r.step, *m_baselineBits);
        }
    } catch (const std::exception& e) {
        dropAfter(e);
    }
}

void TensorBoardLog::end(RunStatus status) {
    // TensorBoard keeps the first status a run's event files give (a tag's summary metadata is read from its
    // first event), so a status is written once, when it is final: success or failure. A sitting stopped by
    // its user may be resumed, and its resumed sitting says how the run ended; until then it reads unknown,
    // as a running one does (a "running" written at the start would never be replaced).
    if (!m_file || (status != RunStatus::Completed && status != RunStatus::Failed)) return;
    try {
        m_file->sessionStatus(status == RunStatus::Completed ? TensorBoardWriter::SessionStatus::Success
                                                             : TensorBoardWriter::SessionStatus::Failure);
    } catch (const std::exception& e) {
        dropAfter(e);
    }
}

void TensorBoardLog::samples(std::int64_t step, const std::vector<std::string>& texts) {
    if (!m_file) return;
    std::string markdown;
    for (const auto& text : texts) markdown += "```\n" + text + "\n```\n\n";
    try {
        m_file->text("val/samples", step, markdown);
    } catch (const std::exception& e) {
        dropAfter(e);
    }
}

void TensorBoardLog::dropAfter(const std::exception& e) {
    m_file.reset();
    if (m_log) m_log(std::string("warning: TensorBoard event file dropped: ") + e.what());
}

}  // namespace wb
