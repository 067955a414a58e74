// A MainWindow set up for tests: error dialogs off, runs in a temp folder, a two-thread test CPU in the
// device list ("CPU · 1 thread", "CPU · 2 threads", "CPU · 2 processes (Gloo)"), and a helper that loads a
// tiny LM experiment.
#pragma once

#include <memory>

#include <gtest/gtest.h>

#include "MainWindow.h"
#include "UiTestSupport.h"
#include "common/ErrorPresenter.h"
#include "corpus/CorpusPanel.h"
#include "experiment/ExperimentPanel.h"
#include "training/DeviceList.h"
#include "training/RunLauncher.h"
#include "workbench/engine/Devices.h"

namespace wbuitest {

struct TestWindow {
    wbtest::TempDir tmp;
    std::unique_ptr<wbui::MainWindow> w = std::make_unique<wbui::MainWindow>();
    TestWindow() {
        w->errors()->setDialogsEnabled(false);
        w->setQuitQuestion([](const QString&) { return true; });  // no modal question in a test
        w->setRunsDirectory(QString::fromStdString(tmp.file("runs")));
        wb::DeviceInfo cpu;
        cpu.name = "test CPU";
        cpu.threads = 2;
        w->deviceList()->setDevices({cpu});
        w->resize(1400, 900);
    }
    QString write(const std::string& name, const std::string& bytes) {
        wbtest::writeText(tmp.file(name), bytes);
        return QString::fromStdString(tmp.file(name));
    }
    // Loads a pattern corpus and a tiny LM experiment with only the 1-thread CPU ticked.
    void prepareTinyRun(long long steps) {
        const QString corpus = write("pattern.txt", wbtest::patternText(200));
        dropFiles(w.get(), {corpus});
        ASSERT_TRUE(w->corpusPanel()->hasCorpus());
        w->experimentPanel()->setConfig(tinyConfig(wb::Task::LanguageModel, corpus.toStdString(), steps));
        w->deviceList()->setChecked(0, true);
        w->deviceList()->setChecked(1, false);
        w->deviceList()->setChecked(2, false);
    }
};

}  // namespace wbuitest
