// TrainingSession::describeRun (see TrainingSession.h): what a run says of itself as it starts — in run.json
// the threads it got and the BLAS's caveat, in the log the device, steps, precision, corpus and validation
// split — kept apart from the training loop so that each file holds one idea.
#include "train/TrainingSession.h"

#include <cmath>
#include <sstream>

#include "device/DeviceSetup.h"
#include "workbench/domain/Format.h"
#include "workbench/engine/Devices.h"

namespace wb {

void TrainingSession::describeRun() {
    m_job.info.threads = m_device.is_cpu() ? currentCpuThreads() : 0;
    m_job.info.blasThreads = m_device.is_cpu() ? blasThreads() : 0;
    // Another BLAS does not stop the run (the reference BLAS works, slowly), but it must not go unsaid: the
    // log says it on every CPU run, and run.json keeps it where the thread count recorded is more than the
    // BLAS got (numbers "at N threads" would be LibTorch's N threads around the BLAS's own).
    if (const auto caveat = m_device.is_cpu() ? blasThreadsCaveat() : std::string(); !caveat.empty()) {
        log("warning: " + caveat);
        if (m_job.info.threads > 1)
            m_job.info.warnings.push_back(std::to_string(m_job.info.threads) +
                                          " threads were asked for, but " + caveat);
    }
    m_writer.writeRunInfo(m_job.info);
    std::string where = m_job.info.device;
    if (m_device.is_cpu())
        where += " with " + std::to_string(m_job.info.threads) +
                 (m_job.info.threads == 1 ? " thread" : " threads") +
                 (m_shards ? " (each with its share of the batch)" : "");
    if (dataParallel()) where += " in each of " + std::to_string(m_sync->worldSize()) + " processes (gloo)";
    log("training " + std::to_string(m_plannedSteps) + " steps on " + where + " in " + m_job.info.precision +
        ", " + std::to_string(m_job.data.train.size()) + " training and " +
        std::to_string(m_job.data.validation.size()) + " validation samples");
    if (!m_job.info.precisionChoice.empty()) log("precision " + m_job.info.precisionChoice);
    if (const auto& store = m_job.data.store; store && !store->info().path.empty()) {
        const auto& info = store->info();
        std::ostringstream os;
        os << "corpus: " << store->tokenCount() << " tokens in " << store->documentCount() << " documents, "
           << (info.reused ? "opened from its token store in " : "tokenized into its token store in ")
           << (info.seconds < 1 ? std::to_string(std::lround(info.seconds * 1000)) + " ms"
                                : clockDuration(info.seconds));
        if (!info.reused && info.seconds > 0)
            os << " (" << humanBytes(static_cast<double>(info.sourceBytes) / info.seconds) << "/s)";
        log(os.str());
    }
    if (m_job.data.validation.sampled())
        log("validation: a fixed sample of " + std::to_string(m_job.data.validation.size()) +
            " of the split's " + std::to_string(m_job.data.validation.unsampledSize()) +
            " samples (data.val_size)");
    m_meter = std::make_unique<ThroughputMeter>(m_state, m_tc.warmupSteps, m_device);
}

}  // namespace wb
