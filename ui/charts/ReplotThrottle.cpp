// At most one replot per interval.
#include "charts/ReplotThrottle.h"

namespace wbui {

ReplotThrottle::ReplotThrottle(QObject* parent, int intervalMs) : QObject(parent) {
    m_timer.setSingleShot(true);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ReplotThrottle::due);
}

void ReplotThrottle::request() {
    if (!m_timer.isActive()) m_timer.start();
}

}  // namespace wbui
