// Run folders: reading what a run left (config.json, run.json, metrics.csv) without tensors, writing files
// atomically so a crash never leaves half a file, and the cross-run comparison table.
#include "workbench/domain/RunFolder.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/Failpoints.h"
#include "io/FormatVersion.h"
#include "io/JsonDocument.h"
#include "run/CsvText.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/RunLock.h"
#include "workbench/domain/RunState.h"

namespace fs = std::filesystem;

namespace wb {
namespace {

using nlohmann::json;

// Typed field access for run.json: missing keys keep defaults, wrong types name the key.
struct FieldReader {
    const json& obj;
    const std::string& source;
    std::string prefix;

    const json* find(const char* key) const {
        const auto it = obj.find(key);
        return it == obj.end() || it->is_null() ? nullptr : &*it;
    }
    [[noreturn]] void fail(const char* key, const char* what) const {
        throw InputError(source, 0, prefix + key + ": expected " + what);
    }
    void str(const char* key, std::string& out) const {
        if (const json* v = find(key)) {
            if (!v->is_string()) fail(key, "a string");
            out = v->get<std::string>();
        }
    }
    void integer(const char* key, std::int64_t& out) const {
        if (const json* v = find(key)) {
            if (!v->is_number_integer()) fail(key, "an integer");
            out = v->get<std::int64_t>();
        }
    }
    void number(const char* key, double& out) const {
        if (const json* v = find(key)) {
            if (!v->is_number()) fail(key, "a number");
            out = v->get<double>();
        }
    }
    void boolean(const char* key, bool& out) const {
        if (const json* v = find(key)) {
            if (!v->is_boolean()) fail(key, "true or false");
            out = v->get<bool>();
        }
    }
};

// JSON has no NaN or Inf; a diverged run's losses are written as null and read back as 0.
json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string joinPath(const std::string& dir, const char* name) { return (fs::path(dir) / name).string(); }

json summaryJson(const RunSummary& s) {
    // Never validated: no best and no last validation, rather than a 0 that reads as a perfect loss.
    const auto validation = [&](double v) { return s.validated() ? finite(v) : json(nullptr); };
    return {{"steps", s.steps},
            {"epochs", finite(s.epochs)},
            {"samples", s.samples},
            {"train_seconds", finite(s.trainSeconds)},
            {"samples_per_second", finite(s.samplesPerSecond)},
            {"us_per_sample", finite(s.usPerSample)},
            {"tokens_per_second", finite(s.tokensPerSecond)},
            {"final_train_loss", finite(s.finalTrainLoss)},
            {"best_val_loss", validation(s.bestValLoss)},
            {"best_val_accuracy", validation(s.bestValAccuracy)},
            {"final_val_loss", validation(s.finalValLoss)},
            {"startup_seconds", finite(s.startupSeconds)},
            {"validation_seconds", finite(s.validationSeconds)},
            {"final_val_accuracy", validation(s.finalValAccuracy)},
            {"parameters", s.parameters}};
}

// run.json's "summary", when it has one.
void readSummary(const FieldReader& r, RunSummary& m) {
    const json* sj = r.find("summary");
    if (!sj) return;
    if (!sj->is_object()) r.fail("summary", "an object");
    const FieldReader s{*sj, r.source, "summary."};
    s.integer("steps", m.steps);
    s.number("epochs", m.epochs);
    s.integer("samples", m.samples);
    s.number("train_seconds", m.trainSeconds);
    s.number("samples_per_second", m.samplesPerSecond);
    s.number("us_per_sample", m.usPerSample);
    s.number("tokens_per_second", m.tokensPerSecond);
    s.number("final_train_loss", m.finalTrainLoss);
    s.number("best_val_loss", m.bestValLoss);
    s.number("best_val_accuracy", m.bestValAccuracy);
    s.number("final_val_loss", m.finalValLoss);
    s.number("final_val_accuracy", m.finalValAccuracy);
    s.number("startup_seconds", m.startupSeconds);
    s.number("validation_seconds", m.validationSeconds);
    s.integer("parameters", m.parameters);
}

// run.json's "token_store" (absent in runs from before token stores).
void readTokenStore(const FieldReader& r, RunInfo& info) {
    const json* tj = r.find("token_store");
    if (!tj) return;
    if (!tj->is_object()) r.fail("token_store", "an object");
    const FieldReader t{*tj, r.source, "token_store."};
    t.str("path", info.tokenStore);
    t.boolean("reused", info.tokenStoreReused);
    t.number("seconds", info.tokenStoreSeconds);
    t.integer("corpus_bytes", info.corpusBytes);
    t.str("corpus_checksum", info.corpusChecksum);
}

json planJson(const RunPlan& p) {
    if (!p.fitted()) return nullptr;
    return {{"budget_seconds", finite(p.budgetSeconds)},
            {"steps", p.steps},
            {"steps_asked", p.stepsAsked},
            {"estimated_seconds", finite(p.estimatedSeconds)},
            {"calibration_us_per_sample", finite(p.calibrationUsPerSample)}};
}

// run.json's "plan": null or absent when no time budget chose the run's length.
void readPlan(const FieldReader& r, RunPlan& plan) {
    const json* pj = r.find("plan");
    if (!pj || pj->is_null()) return;
    if (!pj->is_object()) r.fail("plan", "an object or null");
    const FieldReader p{*pj, r.source, "plan."};
    p.number("budget_seconds", plan.budgetSeconds);
    p.integer("steps", plan.steps);
    p.integer("steps_asked", plan.stepsAsked);
    p.number("estimated_seconds", plan.estimatedSeconds);
    p.number("calibration_us_per_sample", plan.calibrationUsPerSample);
}

// An array of strings, when the key is there.
void readStrings(const FieldReader& r, const char* key, std::vector<std::string>& out) {
    const json* a = r.find(key);
    if (!a) return;
    if (!a->is_array()) r.fail(key, "an array of strings");
    for (const auto& item : *a) {
        if (!item.is_string()) r.fail(key, "an array of strings");
        out.push_back(item.get<std::string>());
    }
}

// run.json says running: a run whose owner let go of its lock without saying how it ended was interrupted.
// The owner writes its last run.json before it lets go, so run.json is read again once the lock is seen free:
// a run that ended between the two reads is what that says, not interrupted.
void settleLiveStatus(RunRecord& rec, const std::string& runPath) {
    if (rec.info.status == RunStatus::Failed) {  // where a Resume would go on from
        rec.interruptedAt = resumableCheckpointStep(rec.dir);
        rec.resumeFromCheckpoint = rec.interruptedAt >= 0;
        return;
    }
    if (rec.info.status != RunStatus::Running || runHasLiveOwner(rec.dir)) return;
    const RunInfo again = RunInfo::fromJson(readFile(runPath), runPath);
    if (again.status != RunStatus::Running) {
        rec.info = again;
        if (rec.info.id.empty()) rec.info.id = fs::path(rec.dir).lexically_normal().filename().string();
        return;
    }
    rec.info.status = RunStatus::Interrupted;
    // Resume continues from the checkpoint; without one the metrics say how far it got.
    rec.interruptedAt = resumableCheckpointStep(rec.dir);
    rec.resumeFromCheckpoint = rec.interruptedAt >= 0;
    if (!rec.resumeFromCheckpoint)
        for (const auto& r : rec.metrics) rec.interruptedAt = std::max(rec.interruptedAt, r.step);
    if (rec.interruptedAt < 0) rec.interruptedAt = 0;
}

}  // namespace

namespace {
// A write that failed for want of space (the engine's "cannot write FILE: No space left on device").
bool failedOnAFullDisk(const RunInfo& info) {
    return info.status == RunStatus::Failed &&
           (info.error.find("No space left on device") != std::string::npos ||
            info.error.find("Disk quota exceeded") != std::string::npos);
}

// What the next checkpoint will need on the disk: the last pair's size, or before there is one the fp32
// weights and Adam's two moments of each parameter. A checkpoint is written beside the last one, then
// replaces it.
std::string spaceToFree(const RunRecord& run) {
    std::error_code ec;
    std::uintmax_t bytes = 0;
    for (const char* name : {runfiles::kModel, runfiles::kOptimizer}) {
        const auto size = fs::file_size(fs::path(run.dir) / name, ec);
        if (!ec) bytes += size;
    }
    if (bytes > 0)
        return "Free at least " + humanBytes(static_cast<double>(bytes)) + " (one checkpoint of this run)";
    if (run.info.summary.parameters > 0)
        return "Free at least about " + humanBytes(12.0 * static_cast<double>(run.info.summary.parameters)) +
               " (one checkpoint of this run: its weights and the optimizer's state)";
    return "Free some space";
}
}  // namespace

std::string RunRecord::statusText() const {
    if (failedOnAFullDisk(info))
        return resumeFromCheckpoint ? "disk full · resumes at step " + std::to_string(interruptedAt)
                                    : "disk full · no checkpoint yet";
    if (info.status != RunStatus::Interrupted) return toString(info.status);
    return "interrupted at step " + std::to_string(interruptedAt);
}

std::string RunRecord::statusDetail() const {
    if (failedOnAFullDisk(info))
        return info.error + ". " + spaceToFree(*this) + " on that disk, then Resume: " +
               (resumeFromCheckpoint
                    ? "it goes on from its checkpoint at step " + std::to_string(interruptedAt) + "."
                    : "it saved no checkpoint yet, so it starts again from step 0.");
    if (info.status == RunStatus::Failed) return info.error;
    if (info.status != RunStatus::Interrupted) return {};
    const std::string step = std::to_string(interruptedAt);
    return "The process training this run ended without saying how (killed, crashed, or its machine went "
           "down). " +
           (resumeFromCheckpoint ? "Its last checkpoint is step " + step + ", which Resume continues from."
                                 : "Its metrics reach step " + step +
                                       ", but it saved no checkpoint: Resume has nothing to continue from.");
}

std::string toString(RunStatus s) {
    switch (s) {
        case RunStatus::Created:
            return "created";
        case RunStatus::Running:
            return "running";
        case RunStatus::Completed:
            return "completed";
        case RunStatus::Stopped:
            return "stopped";
        case RunStatus::Failed:
            return "failed";
        case RunStatus::Interrupted:
            return "interrupted";
    }
    return "created";
}

RunStatus runStatusFromString(const std::string& s) {
    for (auto v : {RunStatus::Created, RunStatus::Running, RunStatus::Completed, RunStatus::Stopped,
                   RunStatus::Failed, RunStatus::Interrupted})
        if (s == toString(v)) return v;
    throw InputError("unknown run status '" + s +
                     "' (expected created, running, completed, stopped, failed or interrupted)");
}

std::string RunInfo::toJson() const {
    json j = {{"id", id},
              {"number", number},
              {"status", toString(status)},
              {"device", device},
              {"device_name", deviceName},
              {"threads", threads},
              {"precision", precision},
              {"precision_choice", precisionChoice},
              {"libtorch_version", libtorchVersion},
              {"blas", blas},
              {"blas_threads", blasThreads},
              {"host", host},
              {"load_average", finite(loadAverage)},
              {"host_cpus", hostCpus},
              {"started_at", startedAt},
              {"ended_at", endedAt},
              {"timing_method", timingMethod},
              {"error", error},
              {"warnings", warnings},
              {"world_size", worldSize},
              {"backend", backend},
              {"hosts", hosts},
              {"slurm_job", slurmJob},
              {"gradient_bytes_per_step", gradientBytesPerStep},
              {"peak_gpu_memory_bytes", peakGpuMemoryBytes},
              {"cuda_graph", cudaGraph},
              {"tf32", tf32},
              {"token_store",
               {{"path", tokenStore},
                {"reused", tokenStoreReused},
                {"seconds", finite(tokenStoreSeconds)},
                {"corpus_bytes", corpusBytes},
                {"corpus_checksum", corpusChecksum}}}};
    j["plan"] = planJson(plan);
    j["summary"] = summaryJson(summary);
    detail::stampFormatVersion(j);
    return j.dump(2) + "\n";
}

std::string RunSummary::toJson() const { return summaryJson(*this).dump(2); }

RunInfo RunInfo::fromJson(const std::string& text, const std::string& sourceName) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (run info), found " + detail::jsonTypeName(j));
    detail::readFormatVersion(j, sourceName);  // what run.json holds describes the run; no field is required
    RunInfo info;
    const FieldReader r{j, sourceName, ""};
    r.str("id", info.id);
    r.integer("number", info.number);  // absent in runs from before the field
    std::string status = "created";
    r.str("status", status);
    try {
        info.status = runStatusFromString(status);
    } catch (const InputError& e) {
        throw InputError(sourceName, 0, "status: " + e.reason());
    }
    r.str("device", info.device);
    r.str("device_name", info.deviceName);
    r.integer("threads", info.threads);
    r.str("precision", info.precision);
    r.str("precision_choice", info.precisionChoice);  // absent in runs from before the field
    r.str("libtorch_version", info.libtorchVersion);
    r.str("blas", info.blas);
    r.integer("blas_threads", info.blasThreads);
    r.str("host", info.host);
    r.number("load_average", info.loadAverage);
    r.integer("host_cpus", info.hostCpus);
    r.str("started_at", info.startedAt);
    r.str("ended_at", info.endedAt);
    r.str("timing_method", info.timingMethod);
    r.str("error", info.error);
    readStrings(r, "warnings", info.warnings);                    // absent in runs from before the field
    r.integer("peak_gpu_memory_bytes", info.peakGpuMemoryBytes);  // absent in runs from before the field
    r.str("cuda_graph", info.cudaGraph);                          // absent in runs from before the field
    r.boolean("tf32", info.tf32);
    readTokenStore(r, info);
    r.integer("world_size", info.worldSize);
    if (info.worldSize < 1) throw InputError(sourceName, 0, "world_size must be at least 1");
    r.str("backend", info.backend);
    r.integer("gradient_bytes_per_step", info.gradientBytesPerStep);  // absent in runs from before the field
    readStrings(r, "hosts", info.hosts);
    r.str("slurm_job", info.slurmJob);  // absent in runs from before the field
    readPlan(r, info.plan);             // absent in runs from before the field
    readSummary(r, info.summary);
    return info;
}

std::string RunPlan::describe() const {
    if (!fitted()) return "";
    return std::to_string(steps) + " of the " + std::to_string(stepsAsked) + " steps asked, to fit " +
           humanSeconds(budgetSeconds) +
           " on this machine (timed here: " + formatNumber("%.0f", calibrationUsPerSample) +
           " µs a sample; estimate " + humanSeconds(estimatedSeconds) + ")";
}

std::string RunRecord::label() const {
    const std::string dev = info.device.empty() ? config.device.spec.id() : info.device;
    const std::string precision = info.precision.empty() ? toString(config.device.precision) : info.precision;
    std::string out;
    if (isCpuDevice(dev)) {
        const std::int64_t threads = info.threads > 0 ? info.threads : config.device.spec.threads;
        out = "cpu";
        if (info.worldSize > 1) {
            out += " · " + std::to_string(info.worldSize) + " processes";
            if (!info.backend.empty()) out += " (" + info.backend + ")";
            if (threads > 0) out += " × " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
        } else if (threads > 0) {
            out += " · " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
        }
    } else {
        out = info.deviceName.empty() ? dev : info.deviceName;
    }
    return out + " · " + precision;
}

bool isRunFolder(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(dir) / runfiles::kConfig, ec) &&
           fs::is_regular_file(fs::path(dir) / runfiles::kRun, ec);
}

namespace {

// The numbers of the run folders in parentDir (an unreadable neighbour has none).
std::vector<std::int64_t> runNumbers(const std::string& parentDir) {
    std::vector<std::int64_t> numbers;
    std::error_code ec;
    for (fs::directory_iterator it(parentDir, ec), end; !ec && it != end; it.increment(ec)) {
        const auto runJson = it->path() / runfiles::kRun;
        if (!fs::is_regular_file(runJson, ec)) continue;
        try {
            numbers.push_back(RunInfo::fromJson(readFile(runJson.string()), runJson.string()).number);
        } catch (const std::exception&) {
        }
    }
    return numbers;
}

}  // namespace

std::int64_t nextRunNumber(const std::string& parentDir) { return runNumberFor(parentDir, 0); }

std::int64_t runNumberFor(const std::string& parentDir, std::int64_t reserved) {
    const auto numbers = runNumbers(parentDir);
    if (reserved > 0 && std::find(numbers.begin(), numbers.end(), reserved) == numbers.end()) return reserved;
    return (numbers.empty() ? 0 : *std::max_element(numbers.begin(), numbers.end())) + 1;
}

std::string runNumberLockPath(const std::string& parentDir) {
    return (fs::path(parentDir) / ".run-numbers.lock").string();
}

RunRecord loadRunFolder(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw InputError(dir, 0, "no such run folder");
    if (!fs::is_directory(dir, ec))
        throw InputError(dir, 0, "not a run folder (expected a folder with config.json and run.json)");
    RunRecord rec;
    rec.dir = dir;
    for (const char* required : {runfiles::kConfig, runfiles::kRun})
        if (!fs::exists(fs::path(dir) / required, ec))
            throw InputError(joinPath(dir, required), 0,
                             "no such file (a run folder needs config.json and run.json)");
    const std::string configPath = joinPath(dir, runfiles::kConfig);
    rec.config = ExperimentConfig::fromJson(readFile(configPath), configPath);
    const std::string runPath = joinPath(dir, runfiles::kRun);
    rec.info = RunInfo::fromJson(readFile(runPath), runPath);
    if (rec.info.id.empty()) rec.info.id = fs::path(dir).lexically_normal().filename().string();
    const std::string metricsPath = joinPath(dir, runfiles::kMetrics);
    if (fs::exists(metricsPath, ec)) {
        std::string metricsId;
        rec.metrics = parseMetricsCsv(readFile(metricsPath), metricsPath, &metricsId);
        // Files copied between run folders would mix two runs' curves under one name.
        if (!rec.metrics.empty() && metricsId != rec.info.id)
            throw InputError(
                metricsPath, 0,
                "run_id '" + metricsId + "' does not match the id '" + rec.info.id + "' in run.json");
    }
    rec.hasCheckpoint = fs::is_regular_file(fs::path(dir) / runfiles::kModel, ec);
    settleLiveStatus(rec, runPath);
    rec.annotations = readRunAnnotations(dir);
    rec.baseline = loadBaseline(dir);
    return rec;
}

void writeFileAtomic(const std::string& path, const std::string& bytes) {
    const fs::path target(path);
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmp = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    auto failure = [&](const char* what, int err) {
        std::string message = "cannot write " + path + ": " + what + std::strerror(err);
        // A full disk says how full: what a user frees before Resume.
        struct statvfs disk {};
        if ((err == ENOSPC || err == EDQUOT) && ::statvfs(parent.c_str(), &disk) == 0)
            message += " (" +
                       humanBytes(static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize)) +
                       " free)";
        return TrainingError(message);
    };
    if (const int injected = failpoints::reached(failpoints::Site::BeforeCreate, path))
        throw failure("", injected);
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw failure("", errno);
    // From here on the temporary must go away on every failure path.
    auto abandon = [&](const char* what) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw failure(what, err);
    };
    auto writeAll = [&](std::size_t from, std::size_t to) {
        while (from < to) {
            const ssize_t n = ::write(fd, bytes.data() + from, to - from);
            if (n < 0) {
                if (errno == EINTR) continue;
                abandon("");
            }
            from += static_cast<std::size_t>(n);
        }
    };
    writeAll(0, bytes.size() / 2);
    if (const int injected = failpoints::reached(failpoints::Site::MidWrite, path)) {
        errno = injected;
        abandon("");
    }
    writeAll(bytes.size() / 2, bytes.size());
    // mkstemp creates 0600; a run folder is meant to be shared like any other file the user writes.
    ::fchmod(fd, 0644);
    failpoints::reached(failpoints::Site::BeforeSync, path);
    if (::fsync(fd) != 0) abandon("");
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw failure("", err);
    }
    failpoints::reached(failpoints::Site::BeforeRename, path);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw failure("", err);
    }
    // Persist the rename itself (best effort: some file systems refuse fsync on folders).
    const int dfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::string readFile(const std::string& path, const std::string& what) {
    const auto failure = [&](const std::string& reason) {
        return InputError(path, 0, what.empty() ? reason : "cannot read the " + what + ": " + reason);
    };
    const auto unreadable = [&](int error) {
        return failure((what.empty() ? "cannot read: " : "") + std::string(std::strerror(error)));
    };
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw failure("no such file");
    if (!fs::is_regular_file(st)) throw failure("not a regular file");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw unreadable(errno);
    std::string out;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    const bool bad = std::ferror(f);
    const int err = errno;
    std::fclose(f);
    if (bad) throw unreadable(err);
    return out;
}

std::string comparisonCsv(const std::vector<RunRecord>& runs) {
    // metrics.csv's columns, then the name and device the charts and tables show for the run.
    std::string out = metricsCsvHeader() + ",run_name,device\n";
    for (const auto& run : runs) {
        const std::string shown = "," + csv::field(run.name()) + "," + csv::field(run.label());
        for (const auto& r : run.metrics) out += toCsvRow(run.info.id, r) + shown + "\n";
    }
    return out;
}

}  // namespace wb
