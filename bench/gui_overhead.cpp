// What training inside the app costs against the CLI, on the same experiment: the default experiment's
// model (a char LM: see defaultConfig) on the same corpus, the same steps and threads,
// trained by `lstm-workbench-cli train` and by the main window (live charts, progress, the comparison table,
// all drawing as they do for a user), alternately, round after round. Each side's throughput is the
// trainer's own measurement from run.json (warm-up, validation and checkpoints excluded), the number both
// show to the user. Prints the medians and the ratio.
//
// workbench_gui_overhead [--corpus PATH] [--steps 60] [--rounds 3] [--threads 1,2] [--json]
// The corpus defaults to the prepared tang-quatrains-7 (datasets/prepare.py), else a synthetic text.
// Offscreen unless a display is there (QT_QPA_PLATFORM decides, as for the app).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "MainWindow.h"
#include "common/ErrorPresenter.h"
#include "corpus/CorpusPanel.h"
#include "experiment/ExperimentPanel.h"
#include "training/DeviceList.h"
#include "training/RunController.h"
#include "training/RunLauncher.h"
#include "training/RunScheduler.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Allocator.h"
#include "workbench/engine/Devices.h"

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.empty()) return 0;
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

double samplesPerSecond(const std::string& runDir) {
    return wb::loadRunFolder(runDir).info.summary.samplesPerSecond;
}

double cliRun(const std::string& corpus, const std::string& configFile, const std::string& out, int threads) {
    const std::string command = std::string(WORKBENCH_CLI) + " train " + quote(corpus) + " --config " +
                                quote(configFile) + " --threads " + std::to_string(threads) + " --out " +
                                quote(out) + " --quiet >/dev/null";
    const int status = std::system(command.c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("the CLI run failed: " + command);
    return samplesPerSecond(out);
}

double guiRun(wbui::MainWindow& window, int threads) {
    wb::DeviceInfo cpu;
    cpu.name = "CPU";
    cpu.threads = std::max(threads, 2);
    window.deviceList()->setDevices({cpu});  // "CPU · 1 thread", "CPU · N threads"
    window.deviceList()->setChecked(0, threads == 1);
    window.deviceList()->setChecked(1, threads != 1);
    if (!window.launcher()->startRuns()) throw std::runtime_error("the app refused to start the run");
    wbui::RunController* run = window.launcher()->scheduler()->controllers().value(0);
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (!window.launcher()->scheduler()->anyPending()) loop.quit();
    });
    poll.start(50);
    loop.exec();
    if (run->state() != wbui::RunController::State::Completed)
        throw std::runtime_error("the app's run did not complete");
    return samplesPerSecond(run->runDir().toStdString());
}

// The command line: workbench_gui_overhead [--corpus PATH] [--steps N] [--rounds R] [--threads 1,2] [--json].
struct Options {
    std::string corpus;
    long long steps = 60;
    int rounds = 3;
    std::vector<int> threadCounts = {1, 2};
    bool json = false;
};

// False, with the usage printed, on an argument it does not know.
bool parseArguments(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--corpus" && hasValue)
            o.corpus = argv[++i];
        else if (a == "--steps" && hasValue)
            o.steps = std::max(10LL, std::atoll(argv[++i]));
        else if (a == "--rounds" && hasValue)
            o.rounds = std::max(1, std::atoi(argv[++i]));
        else if (a == "--threads" && hasValue) {
            o.threadCounts.clear();
            std::stringstream list(argv[++i]);
            for (std::string t; std::getline(list, t, ',');)
                o.threadCounts.push_back(std::max(1, std::stoi(t)));
        } else if (a == "--json")
            o.json = true;
        else {
            std::fprintf(stderr,
                         "usage: workbench_gui_overhead [--corpus PATH] [--steps N] [--rounds R] [--threads "
                         "1,2] [--json]\n");
            return false;
        }
    }
    return true;
}

// The prepared tang-quatrains-7, else a synthetic text written into tmp.
std::string defaultCorpus(const fs::path& tmp) {
    try {
        return wb::resolveCorpusPath("tang-quatrains-7");
    } catch (const std::exception&) {
        std::ofstream text(tmp / "synthetic.txt");
        for (int line = 0; line < 20000; ++line) {
            for (int c = 0; c < 40; ++c) text << static_cast<char>('a' + (line * 7 + c * c) % 26);
            text << '\n';
        }
        return (tmp / "synthetic.txt").string();
    }
}

// The rounds at one thread count, CLI and app alternately; the medians are printed, or added to jsonRows.
void compareAtThreads(wbui::MainWindow& window, const Options& o, const std::string& corpus,
                      const std::string& configFile, const fs::path& tmp, int threads,
                      std::string& jsonRows) {
    std::vector<double> cli, gui;
    for (int r = 0; r < o.rounds; ++r) {
        const auto out = (tmp / ("cli-" + std::to_string(threads) + "-" + std::to_string(r))).string();
        // Alternating which goes first cancels any drift of the machine's speed (ABBA order).
        if (r % 2 == 0) {
            cli.push_back(cliRun(corpus, configFile, out, threads));
            gui.push_back(guiRun(window, threads));
        } else {
            gui.push_back(guiRun(window, threads));
            cli.push_back(cliRun(corpus, configFile, out, threads));
        }
        if (!o.json)
            std::printf("  %d thread(s), round %d: CLI %.1f samples/s, app %.1f samples/s\n", threads, r + 1,
                        cli.back(), gui.back());
        std::fflush(stdout);
    }
    const double c = median(cli), g = median(gui);
    const double overhead = 100.0 * (1.0 - g / c);
    if (o.json) {
        char row[256];
        std::snprintf(row, sizeof row,
                      "%s{\"threads\": %d, \"cli_samples_per_s\": %.2f, \"app_samples_per_s\": %.2f, "
                      "\"app_overhead_percent\": %.2f, \"rounds\": %d, \"steps\": %lld}",
                      jsonRows.empty() ? "" : ", ", threads, c, g, overhead, o.rounds, o.steps);
        jsonRows += row;
    } else {
        std::printf(
            "%d thread(s): CLI median %.1f samples/s, app median %.1f samples/s: the app costs %.1f "
            "%%\n",
            threads, c, g, overhead);
    }
}

}  // namespace

int main(int argc, char** argv) {
    wb::tuneAllocatorForTraining();  // before any thread starts (workbench/engine/Allocator.h)
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    Options o;
    if (!parseArguments(argc, argv, o)) return 2;
    const fs::path tmp = fs::temp_directory_path() / ("workbench-gui-overhead-" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    try {
        const std::string corpus = o.corpus.empty() ? defaultCorpus(tmp) : o.corpus;
        wb::ExperimentConfig config = wb::defaultConfig(wb::Task::LanguageModel);
        config.data.corpus = corpus;
        config.data.format = wb::detectCorpusFormat(corpus);
        config.train.epochs = 0;
        config.train.maxSteps = o.steps;
        const auto configFile = (tmp / "config.json").string();
        std::ofstream(configFile) << config.toJson();

        wbui::MainWindow window;
        window.errors()->setDialogsEnabled(false);
        window.setRunsDirectory(QString::fromStdString((tmp / "gui").string()));
        window.resize(1500, 940);
        window.show();
        // The panel reads a corpus on a thread of its own: wait for it, as a user waits for the bar.
        auto* corpusPanel = window.corpusPanel();
        QString loadError;
        QObject::connect(corpusPanel, &wbui::CorpusPanel::loadFailed,
                         [&](const QString&, const QString& message) { loadError = message; });
        corpusPanel->loadPath(QString::fromStdString(corpus));
        while (corpusPanel->isLoading()) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (!loadError.isEmpty())
            throw std::runtime_error("the app cannot load " + corpus + ": " + loadError.toStdString());
        window.experimentPanel()->setConfig(config);

        if (!o.json)
            std::printf(
                "%s, %lld steps of the default experiment (%lld x LSTM %lld, batch %lld, sequence %lld), "
                "%d round(s), CLI and app alternately\n",
                corpus.c_str(), o.steps, static_cast<long long>(config.model.layers),
                static_cast<long long>(config.model.hidden), static_cast<long long>(config.train.batchSize),
                static_cast<long long>(config.data.seqLen), o.rounds);
        std::string jsonRows;
        for (const int threads : o.threadCounts)
            compareAtThreads(window, o, corpus, configFile, tmp, threads, jsonRows);
        if (o.json)
            std::printf("{\"corpus\": \"%s\", \"results\": [%s]}\n", corpus.c_str(), jsonRows.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "workbench_gui_overhead: error: %s\n", e.what());
        fs::remove_all(tmp);
        return 1;
    }
    fs::remove_all(tmp);
    return 0;
}
