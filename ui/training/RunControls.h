// The Run, Pause all and Stop all buttons under the device list, bound to a RunLauncher: Pause and Stop are
// enabled only while a run is pending, and Pause shows whether every run is paused.
#pragma once

#include <QWidget>

namespace wbui {

class RunLauncher;

class RunControls : public QWidget {
    Q_OBJECT
public:
    RunControls(RunLauncher* launcher, QWidget* parent = nullptr);

Q_SIGNALS:
    // Pause all was toggled (the launcher has been told already).
    void pauseToggled(bool paused);
};

}  // namespace wbui
