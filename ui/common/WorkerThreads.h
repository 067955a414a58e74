// Ending a dialog's worker thread without freezing the window. A finder step can take many seconds on a
// CPU (a batch of 1024, say), and the core only looks at its cancel flag between steps: waiting for it on
// the GUI thread would hang the app. retireWorker asks nothing of the thread itself (set the cancel flag
// first); it deletes a thread that has already ended, and otherwise hands it to `keeper` (the main
// window), which deletes it when it ends. waitForRetiredWorkers (the main window's destructor) waits for
// those still running, so that none outlives the application.
#pragma once

class QObject;
class QThread;

namespace wbui {

void retireWorker(QThread*& thread, QObject* keeper);
void waitForRetiredWorkers(QObject* keeper);

}  // namespace wbui
