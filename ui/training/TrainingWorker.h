// The worker object of one run: lives on its own QThread and calls wb::TrainingJob::run() there. Progress
// leaves through the shared TrainingChannel plus a queued dataAvailable() signal; nothing here touches a
// widget. Every slot body catches exceptions and turns them into errorOccurred().
#pragma once

#include <QObject>
#include <QString>

#include <memory>

#include "training/TrainingChannel.h"
#include "workbench/Config.h"
#include "workbench/Corpus.h"

namespace wbui {

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    TrainingWorker(wb::ExperimentConfig config, QString runDir, std::shared_ptr<const wb::Corpus> corpus,
                   std::shared_ptr<TrainingChannel> channel);

public Q_SLOTS:
    void run();

Q_SIGNALS:
    void dataAvailable();
    void errorOccurred(const QString& message);
    // status is a wb::RunStatus; emitted exactly once, last.
    void finished(int status);

private:
    wb::ExperimentConfig m_config;
    QString m_runDir;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<TrainingChannel> m_channel;
};

}  // namespace wbui
