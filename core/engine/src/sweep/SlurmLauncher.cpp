// A Slurm cluster's launcher (workbench/engine/SweepRun.h): each cell a batch job of its own, submitted with
// sbatch as soon as the sweep starts it (the scheduler decides what runs when), followed with scontrol until
// it ends, stopped with scancel. The sweep folder must be on a filesystem the nodes share: a cell's job
// reads its config there and its `train` writes its run folder there.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "process/ChildProcess.h"
#include "slurm/SlurmCommands.h"
#include "slurm/SlurmJobLine.h"
#include "sweep/CellError.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/SweepRun.h"

namespace fs = std::filesystem;

namespace wb {

namespace {

using slurmline::field;

class SlurmLauncher final : public CellLauncher {
public:
    SlurmLauncher(std::string program, SlurmSettings settings)
        : m_program(std::move(program)), m_settings(std::move(settings)) {
        checkSlurmSettings(m_settings);
        for (const char* tool : {"sbatch", "scontrol", "scancel"}) {
            m_tools[tool] = onPath(tool);
            if (m_tools[tool].empty())
                throw InputError(std::string(tool) +
                                 " is not on PATH: a sweep on Slurm submits its cells from a machine of the "
                                 "cluster (a login node)");
        }
    }

    void check(const Sweep& sweep) const override {
        if (sweep.hasLinkAxis())
            throw InputError(
                "the link axis makes hosts on this machine: run it here, not on Slurm (whose nodes are real "
                "hosts)");
    }

    int capacity() const override { return 1 << 20; }  // the scheduler decides what runs when

    int start(const CellJob& job) override {
        const auto script = job.configFile + ".sbatch";
        writeFileAtomic(script, "#!/bin/sh\n# A cell of an LSTM Workbench sweep.\nexec " +
                                    shellQuote(m_program) + " train " + shellQuote(job.corpus) + " --out " +
                                    shellQuote(job.runDir) + " --config " + shellQuote(job.configFile) +
                                    " --quiet\n");
        const auto config = ExperimentConfig::fromJson(readFile(job.configFile), job.configFile);
        std::vector<std::string> argv = {
            m_tools["sbatch"],          "--parsable", "--job-name=lstm-workbench-cell", "--output=/dev/null",
            "--error=" + job.errorFile, "--ntasks=1"};
        for (const auto& r : resources(config)) argv.push_back(r);
        if (!m_settings.partition.empty()) argv.push_back("--partition=" + m_settings.partition);
        if (!m_settings.account.empty()) argv.push_back("--account=" + m_settings.account);
        // Requeued after a preemption or a node's failure, or by its own `train` when the time limit is near
        // (SIGUSR1 to the batch shell, which is that `train`: the script execs it), the cell's job runs the
        // script again, and that `train` continues its run (workbench/engine/SlurmJob.h).
        argv.push_back("--requeue");
        if (!m_settings.timeLimit.empty()) {
            argv.push_back("--time=" + m_settings.timeLimit);
            argv.push_back("--signal=B:USR1@" + std::to_string(kTimeLimitWarningSeconds));
        }
        argv.push_back(script);
        const std::string out = slurmCommand(argv, job.configFile + ".sbatch-call");
        const std::string id = out.substr(0, out.find_first_of(";\n"));
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
            throw TrainingError("sbatch printed no job id (it said '" + out + "')");
        const int handle = ++m_started;
        m_jobs[handle] = {id, job.errorFile, job.configFile};
        if (m_stopping) cancel(m_jobs[handle], false);
        return handle;
    }

    std::pair<int, CellEnd> waitForAnEnd() override {
        for (;;) {
            if (m_stopping && !m_cancelled) {
                for (auto& [handle, job] : m_jobs) cancel(job, m_killing);
                m_cancelled = true;
            }
            // One scontrol for every job of the round (each line "JobId=N ... JobState=... ExitCode=...").
            const auto lines = jobLines();
            for (auto it = m_jobs.begin(); it != m_jobs.end(); ++it) {
                const auto line = lines.find(it->second.id);
                CellEnd end;
                if (line == lines.end() || !jobEnded(it->first, it->second, line->second, &end)) continue;
                const int handle = it->first;
                m_jobs.erase(it);
                return {handle, end};
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
    }

    // Signal-safe: the sweep's loop (waitForAnEnd) sends the scancels.
    void stop() noexcept override { m_stopping = true; }
    void kill() noexcept override {
        m_killing = true;
        m_stopping = true;
        m_cancelled = false;
    }

private:
    struct Job {
        std::string id, errorFile, configFile;
    };

    // What a cell asks of the scheduler, from its device: its threads (of each of its processes) as CPUs,
    // a GPU for a CUDA device.
    static std::vector<std::string> resources(const ExperimentConfig& c) {
        std::vector<std::string> out;
        const auto& d = c.device.spec;
        const std::int64_t cpus =
            std::max<std::int64_t>(1, d.threads) * std::max<std::int64_t>(1, d.processes);
        if (d.isCpu() && d.threads > 0) out.push_back("--cpus-per-task=" + std::to_string(cpus));
        if (d.isCuda()) out.push_back("--gres=gpu:" + std::to_string(std::max<std::int64_t>(1, d.processes)));
        return out;
    }

    // A stop: a job still pending is cancelled; a running one gets SIGINT in its `train` (the batch step is
    // that process: the script execs it), which checkpoints and ends within a batch. A kill: scancel's own
    // SIGTERM, then SIGKILL.
    void cancel(const Job& job, bool now) {
        const auto scancel = [&](std::vector<std::string> options) {
            options.insert(options.begin(), {m_tools["scancel"], "--quiet"});
            options.push_back(job.id);
            try {
                slurmCommand(options, job.configFile + ".scancel");
            } catch (const std::exception&) {
                // Ended already, or not in that state: its state says what became of it.
            }
        };
        if (now) return scancel({});
        scancel({"--state=PENDING"});
        scancel({"--state=RUNNING", "--batch", "--signal=INT"});
    }

    // Every job the controller knows (ended ones for MinJobAge), by id; none when it does not answer (busy or
    // restarting: asked again next round).
    std::map<std::string, std::string> jobLines() {
        std::string out;
        try {
            out = slurmCommand({m_tools["scontrol"], "show", "job", "-o"},
                               m_jobs.begin()->second.configFile + ".scontrol");
        } catch (const std::exception&) {
            return {};
        }
        std::map<std::string, std::string> lines;
        std::stringstream in(out);
        for (std::string line; std::getline(in, line);) lines[field(" " + line, "JobId")] = " " + line;
        return lines;
    }

    bool jobEnded(int handle, const Job& job, const std::string& line, CellEnd* end) {
        const std::string state = field(line, "JobState");
        if (!slurmline::ended(state)) {
            tellState(handle, slurmline::schedulerWords(line));
            return false;
        }
        end->code = slurmline::exitCode(line);
        if (state.rfind("CANCELLED", 0) == 0 && m_stopping) end->code = kStoppedCode;
        end->error = cellErrorLine(job.errorFile);
        if (end->error.empty() && end->code != 0 && end->code != kStoppedCode)
            end->error = "its Slurm job " + job.id + " ended " + state + " (" + field(line, "Reason") + ")";
        std::error_code ec;
        fs::remove(job.configFile + ".sbatch", ec);
        return true;
    }

    std::string m_program;
    SlurmSettings m_settings;
    std::map<std::string, std::string> m_tools;
    std::map<int, Job> m_jobs;  // by handle, while not ended
    int m_started = 0;
    std::atomic<bool> m_stopping{false}, m_killing{false}, m_cancelled{false};
};

}  // namespace

void checkSlurmSettings(const SlurmSettings& settings) {
    static const std::regex name("[A-Za-z0-9_.-]+");
    for (const auto& [what, value] :
         {std::pair<const char*, const std::string&>{"partition", settings.partition},
          {"account", settings.account}})
        if (!value.empty() && !std::regex_match(value, name))
            throw InputError(std::string("the Slurm ") + what + " '" + value +
                             "' is not one name (letters, digits, _ . -)");
    static const std::regex time("([0-9]+(:[0-9]+){0,2})|([0-9]+-[0-9]+(:[0-9]+){0,2})|unlimited|UNLIMITED");
    if (!settings.timeLimit.empty() && !std::regex_match(settings.timeLimit, time))
        throw InputError(
            "the Slurm time limit '" + settings.timeLimit +
            "' is not one of sbatch's forms (minutes, hours:minutes:seconds, days-hours:minutes, "
            "...: 90, 1:30:00, 2-0)");
}

std::unique_ptr<CellLauncher> makeSlurmLauncher(const std::string& program, const SlurmSettings& settings) {
    return std::make_unique<SlurmLauncher>(program, settings);
}

}  // namespace wb
