#pragma once

#include <QObject>

namespace ui {

// Where the Timeline's sweep is, shared by the pages that draw time through the step (the
// Timeline, Memory over the step), so that neither reaches into the other. The document
// owns it; the Timeline writes it, the others follow it and ask it to play. Times are those
// of the schedule of length makespan() (seconds, or layer-time units).
class Playhead : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    double makespan() const { return m_makespan; }
    double time() const { return m_time; }
    // A sweep is on (running, paused or held at its end): only what ran before time() shows.
    bool isSweeping() const { return m_sweeping; }
    void setTime(double time, bool sweeping, double makespan);

    // The time range the Timeline shows (all of the step until it is zoomed).
    double visibleStart() const { return m_start; }
    double visibleEnd() const { return m_end; }
    void setVisibleRange(double start, double end);

    // A page other than the Timeline asks for Play / Pause (its own button); whoever owns
    // the sweep (the window) runs it.
    void requestTogglePlay() { Q_EMIT togglePlayRequested(); }

Q_SIGNALS:
    void moved();
    void visibleRangeChanged();
    void togglePlayRequested();

private:
    double m_makespan = 0;
    double m_time = 0;
    bool m_sweeping = false;
    double m_start = 0;
    double m_end = 0;
};

} // namespace ui
