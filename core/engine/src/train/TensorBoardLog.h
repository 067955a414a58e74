// A training run's TensorBoard event file for one sitting (workbench/domain/TensorBoard.h), as
// TrainingSession feeds it: the settings as hparams, each metric record as a scalar tagged split/metric
// (metrics.csv's rows, step for step) with the n-gram baseline's line beside val/bpc, and each validation's
// samples as text. Event files are a view of the run, never its record: a write that fails drops the file
// with a line in the log, and the run goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Metrics.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/TensorBoard.h"

namespace wb {

class TensorBoardLog {
public:
    using Log = std::function<void(const std::string&)>;
    TensorBoardLog() = default;  // writes nothing
    // A new file in runDir, as TensorFlow's writers make one per process. resumedAt: the checkpoint's step of
    // a resumed sitting (TensorBoard then drops what earlier files hold after it, recorded again here).
    TensorBoardLog(const std::string& runDir, const ExperimentConfig& config,
                   std::optional<std::int64_t> resumedAt, Log log);

    bool enabled() const { return m_file != nullptr; }
    void setBaselineBits(double bits) { m_baselineBits = bits; }
    void records(const std::vector<MetricRecord>& records);
    // Generated samples, each as a code block (poems keep their line breaks).
    void samples(std::int64_t step, const std::vector<std::string>& texts);
    // How the sitting ended, as the HParams page's session status: success or failure (see the .cpp).
    void end(RunStatus status);

private:
    void dropAfter(const std::exception& e);
    std::unique_ptr<TensorBoardWriter> m_file;
    std::optional<double> m_baselineBits;
    Log m_log;
};

}  // namespace wb
