#pragma once

#include "core/report.h"

#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>
#include <array>
#include <optional>

class QComboBox;
class QLabel;
class QTimer;
class QToolButton;

namespace ui {

class TimelineChart;

// The schedule timeline with its teaching controls (docs/DESIGN.md §5): Play /
// Pause sweeps a playhead over the schedule so blocks appear as they run and
// the bubble counts up, and holds the last frame; Step jumps to the next block
// end and stops at the step's end; Speed is how long a sweep takes. A new report
// stops the sweep and shows the whole schedule.
class TimelinePanel : public QWidget
{
    Q_OBJECT

public:
    explicit TimelinePanel(QWidget *parent = nullptr);

    // Shows the report's schedule (Report::timeline), from the start; `schedule` names its
    // chunks and pairs (TimelineChart::setReport).
    void setReport(const core::Report &report, core::Schedule schedule = core::Schedule::oneFOneB);

    TimelineChart *chart() const { return m_chart; }
    QToolButton *playButton() const { return m_play; }
    QToolButton *stepButton() const { return m_step; }
    QComboBox *speedCombo() const { return m_speed; }
    QLabel *bubbleLabel() const { return m_bubble; }
    // The bubble line in full; where it does not fit, the label shows a shorter one with its
    // numbers, down to the number alone, and the line in its tooltip.
    QString bubbleText() const { return m_bubbleText; }
    bool isPlaying() const;

    // The sweep's lengths Speed offers, in seconds for the whole step: long enough to talk
    // over, down to a quick look. The choice is remembered (Settings::sweepSeconds).
    static constexpr std::array<double, 5> kSweepChoices = {60, 30, 15, 8, 4};
    double sweepSeconds() const;

    void play();
    void pause();
    void togglePlay();
    void step();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void tick();
    void showState();
    void showBubble();

    TimelineChart *m_chart;
    QToolButton *m_play;
    QToolButton *m_step;
    QComboBox *m_speed;
    QLabel *m_bubble;
    QString m_bubbleText;
    QStringList m_bubbleShorter; // shorter lines with its numbers, where it does not fit
    QTimer *m_timer;
    QElapsedTimer m_clock;
    std::optional<double> m_closedForm; // the report's closed-form bubble, where it has one
};

} // namespace ui
