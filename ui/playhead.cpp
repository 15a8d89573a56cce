#include "ui/playhead.h"

namespace ui {

void Playhead::setTime(double time, bool sweeping, double makespan)
{
    if (time == m_time && sweeping == m_sweeping && makespan == m_makespan)
        return;
    m_time = time;
    m_sweeping = sweeping;
    m_makespan = makespan;
    Q_EMIT moved();
}

void Playhead::setVisibleRange(double start, double end)
{
    if (start == m_start && end == m_end)
        return;
    m_start = start;
    m_end = end;
    Q_EMIT visibleRangeChanged();
}

} // namespace ui
