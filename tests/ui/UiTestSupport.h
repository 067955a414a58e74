// Helpers shared by the ui tests: tiny experiment configs, waiting on the event loop, simulated drops, and
// a trained run (LM or classifier) made once per test binary.
#pragma once

#include <QString>

#include <functional>
#include <string>

#include "support/TestSupport.h"
#include "workbench/domain/Config.h"

class QWidget;
namespace wbui {
class CorpusPanel;
}

namespace wbuitest {

// Embedding 8, hidden 16, one layer, sequence 16, batch 8, maxSteps steps, validation every 4 steps.
wb::ExperimentConfig tinyConfig(wb::Task task, const std::string& corpus, long long maxSteps = 12);

// Spins the event loop until pred() or the timeout; returns pred().
bool waitFor(const std::function<bool()>& pred, int timeoutMs = 60000);

// Sends a drag-enter and a drop of local files to a widget, as a file manager would, and waits until the
// window's corpus page has read what was dropped (waitForCorpusReads).
void dropFiles(QWidget* target, const QStringList& paths);
// Spins the event loop until no corpus page of target's window is reading a corpus.
void waitForCorpusReads(QWidget* target);
// Loads a corpus on a corpus page and waits for its read: true when it is the corpus now loaded.
bool readCorpus(wbui::CorpusPanel& panel, const QString& path);

// A finished run folder trained once per process (under a temp dir that lives as long as the process).
QString trainedLanguageModelRun();
QString trainedClassifierRun();
// A tiny classifier of the given shape, trained once per shape for the whole test binary.
QString trainedClassifierRun(bool bidirectional, wb::Pooling pooling);
// Folder and corpus file used by those runs.
const wbtest::TempDir& sharedTempDir();

}  // namespace wbuitest
