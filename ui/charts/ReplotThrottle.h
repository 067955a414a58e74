// Coalesces "data changed" notifications into at most one replot per interval (PlotJuggler's single-shot
// timer): metrics arrive per batch, the screen is redrawn at ≤ 30 Hz.
#pragma once

#include <QObject>
#include <QTimer>

namespace wbui {

class ReplotThrottle : public QObject {
    Q_OBJECT
public:
    explicit ReplotThrottle(QObject* parent = nullptr, int intervalMs = 33);
    // Schedules due() unless it is already scheduled.
    void request();
    bool pending() const { return m_timer.isActive(); }

Q_SIGNALS:
    void due();

private:
    QTimer m_timer;
};

}  // namespace wbui
