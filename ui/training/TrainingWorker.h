// The worker object of one run: lives on its own QThread and calls wb::TrainingJob::run() there. Progress
// leaves through the shared TrainingChannel plus a queued dataAvailable() signal; nothing here touches a
// widget. Every slot body catches exceptions and turns them into errorOccurred().
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

#include "training/TrainingChannel.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/RunFolder.h"

namespace wbui {

// New totals for a run continued from its last checkpoint (TrainingJob::resume); 0 keeps the run's own.
// The phase a run reports while its corpus is tokenized into its token store (phaseFraction: how far).
inline constexpr const char* kTokenizingPhase = "tokenizing";

struct ResumeRequest {
    long long epochs = 0, maxSteps = 0;
    double learningRate = 0;
};

// What the app settled about a new run before it started: the number its row showed while it was queued
// (kept when no run took it meanwhile), and how its length was fitted to a time budget (run.json's "plan").
struct NewRunPlan {
    std::int64_t reservedNumber = 0;
    wb::RunPlan plan;
};

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    // With `resume`, continues the run in runDir from its checkpoint instead of starting a new one; else
    // `newRun` says what was settled about the new run.
    TrainingWorker(wb::ExperimentConfig config, QString runDir, std::shared_ptr<const wb::Corpus> corpus,
                   std::shared_ptr<TrainingChannel> channel, std::optional<ResumeRequest> resume = {},
                   NewRunPlan newRun = {});

public Q_SLOTS:
    void run();

Q_SIGNALS:
    void dataAvailable();
    void errorOccurred(const QString& message);
    // status is a wb::RunStatus; emitted exactly once, last.
    void finished(int status);

private:
    std::shared_ptr<const wb::Corpus> corpusInMemory() const;

    wb::ExperimentConfig m_config;
    QString m_runDir;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<TrainingChannel> m_channel;
    std::optional<ResumeRequest> m_resume;
    NewRunPlan m_newRun;
};

}  // namespace wbui
