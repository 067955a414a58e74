// `lstm-workbench-cli worker`: rank r > 0 of a data-parallel job, which trains its shards quietly.
#include <exception>
#include <string>

#include "Commands.h"
#include "TrainingRun.h"
#include "workbench/domain/Errors.h"

namespace {

// A worker's errors say which rank they come from (most of the scale-out's own messages already do).
std::string namingRank(int rank, const std::string& message) {
    return message.rfind("rank ", 0) == 0 ? message : "rank " + std::to_string(rank) + ": " + message;
}

}  // namespace

int runWorker(const wb::DistributedSpec& spec, const std::string& corpus) {
    try {
        auto job = wb::TrainingJob::joinAsWorker(spec, corpus);
        return trainJob(*job, /*jsonOut=*/false, /*quiet=*/true, /*printSummary=*/false);
    } catch (const wb::InputError& e) {
        throw wb::InputError(namingRank(spec.rank, e.what()));
    } catch (const std::exception& e) {
        throw wb::TrainingError(namingRank(spec.rank, e.what()));
    }
}
