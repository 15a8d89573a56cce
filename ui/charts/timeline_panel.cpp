#include "ui/charts/timeline_panel.h"

#include "ui/charts/timeline_chart.h"
#include "ui/settings.h"
#include "ui/widgets/focus_wheel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QShortcut>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace ui {

TimelinePanel::TimelinePanel(QWidget *parent)
    : QWidget(parent), m_chart(new TimelineChart), m_play(new QToolButton), m_step(new QToolButton),
      m_speed(new QComboBox), m_bubble(new QLabel), m_timer(new QTimer(this))
{
    m_play->setObjectName(QStringLiteral("play"));
    m_play->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_play->setToolTip(tr("Sweep the schedule: blocks appear as they run (Space)"));
    m_step->setObjectName(QStringLiteral("step"));
    m_step->setText(tr("Step"));
    m_step->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_step->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_step->setToolTip(tr("Advance to the next block start or end"));
    m_speed->setObjectName(QStringLiteral("speed"));
    for (double seconds : kSweepChoices)
        m_speed->addItem(tr("%1 s a step").arg(seconds), seconds);
    const int remembered = m_speed->findData(Settings().sweepSeconds());
    m_speed->setCurrentIndex(remembered >= 0 ? remembered : 2);
    m_speed->setToolTip(tr("How long a sweep of the whole step takes; remembered"));
    // As the scenario's pickers: a wheel turned over it changes it only once it has focus.
    wheelOnlyWhenFocused(m_speed);
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this] { Settings().setSweepSeconds(sweepSeconds()); });
    m_bubble->setObjectName(QStringLiteral("bubbleSoFar"));
    // The end of a sweep names the closed form beside the bubble: a long line, shortened to
    // the room the bar leaves (showBubble; the tooltip has it whole) rather than widening the
    // window past a 1,280-pixel screen at the largest text.
    m_bubble->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_bubble->installEventFilter(this);

    auto *speedLabel = new QLabel(tr("Speed:"));
    speedLabel->setBuddy(m_speed);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_play);
    bar->addWidget(m_step);
    bar->addSpacing(12);
    bar->addWidget(speedLabel);
    bar->addWidget(m_speed);
    bar->addSpacing(12);
    bar->addWidget(m_bubble, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_chart, 1);

    // About 60 frames a second.
    m_timer->setInterval(16);
    m_timer->setTimerType(Qt::PreciseTimer);
    connect(m_timer, &QTimer::timeout, this, &TimelinePanel::tick);
    connect(m_play, &QToolButton::clicked, this, &TimelinePanel::togglePlay);
    connect(m_step, &QToolButton::clicked, this, &TimelinePanel::step);
    auto *space = new QShortcut(QKeySequence(Qt::Key_Space), m_chart);
    space->setContext(Qt::WidgetShortcut);
    connect(space, &QShortcut::activated, this, &TimelinePanel::togglePlay);
    connect(m_chart, &TimelineChart::playheadChanged, this, &TimelinePanel::showState);
    showState();
}

bool TimelinePanel::isPlaying() const
{
    return m_timer->isActive();
}

double TimelinePanel::sweepSeconds() const
{
    return m_speed->currentData().toDouble();
}

void TimelinePanel::play()
{
    if (m_chart->makespan() <= 0)
        return;
    // From the start when the whole schedule shows or the last sweep ended.
    if (!m_chart->isTeaching() || m_chart->isHeldAtEnd())
        m_chart->setPlayhead(0);
    m_clock.start();
    m_timer->start();
    showState();
}

void TimelinePanel::pause()
{
    m_timer->stop();
    showState();
}

void TimelinePanel::togglePlay()
{
    if (isPlaying())
        pause();
    else
        play();
}

void TimelinePanel::step()
{
    pause();
    // At the end of a walk Step stops (Play starts again); from the whole schedule it starts
    // a new walk.
    if (m_chart->isHeldAtEnd())
        return;
    const double from = m_chart->isTeaching() ? m_chart->playhead() : 0.0;
    const double next = m_chart->nextEvent(from);
    if (next >= m_chart->makespan())
        m_chart->holdEnd();
    else
        m_chart->setPlayhead(next);
    showState();
}

void TimelinePanel::tick()
{
    const double elapsed = m_clock.restart() / 1000.0;
    const double next = m_chart->playhead() + elapsed * m_chart->makespan() / sweepSeconds();
    if (next >= m_chart->makespan()) {
        m_timer->stop();
        m_chart->holdEnd(); // the final frame stays: the bubble as the class saw it add up
    } else {
        m_chart->setPlayhead(next);
    }
    showState();
}

void TimelinePanel::setReport(const core::Report &report, core::Schedule schedule)
{
    m_timer->stop();
    m_chart->setReport(report, schedule);
    m_closedForm = report.bubbleFractionClosedForm;
    showState();
}

void TimelinePanel::showState()
{
    const bool playing = isPlaying();
    m_play->setText(playing ? tr("Pause") : tr("Play"));
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setEnabled(m_chart->makespan() > 0);
    const bool atEnd = m_chart->isHeldAtEnd();
    m_step->setEnabled(m_chart->makespan() > 0 && !atEnd);
    m_step->setToolTip(atEnd ? tr("The end of the step: Play sweeps it again")
                             : tr("Advance to the next block start or end"));
    const QString value = QString::number(100 * m_chart->bubbleSoFar(), 'f', 1);
    // At the end, the textbook's number beside the simulated one when they differ: the
    // closed form assumes equal stages and free sends (docs/DESIGN.md, "Event simulation").
    QString whole = tr("Bubble, the whole step: %1 %").arg(value);
    // Where the bar has no room for the whole line, shorter ones with its numbers, down to the
    // number alone (presentation mode's largest text at 1,280 pixels).
    m_bubbleShorter = {tr("Bubble: %1 %").arg(value), tr("%1 %").arg(value)};
    if (m_closedForm && std::abs(*m_closedForm - m_chart->bubbleSoFar()) >= 0.0005) {
        const QString closed = QString::number(100 * *m_closedForm, 'f', 1);
        whole += tr(" (the closed form's %1 % assumes equal stages and free sends)").arg(closed);
        if (atEnd)
            m_bubbleShorter.prepend(tr("Bubble: %1 % (closed form %2 %)").arg(value, closed));
    }
    m_bubbleText = atEnd                   ? whole
                   : m_chart->isTeaching() ? tr("Bubble so far: %1 %").arg(value)
                                           : tr("Bubble: %1 %").arg(value);
    showBubble();
}

void TimelinePanel::showBubble()
{
    const QFontMetrics metrics = m_bubble->fontMetrics();
    const int room = m_bubble->width();
    QString shown = m_bubbleText;
    for (const QString &shorter : m_bubbleShorter) {
        if (metrics.horizontalAdvance(shown) <= room)
            break;
        shown = shorter;
    }
    shown = metrics.elidedText(shown, Qt::ElideRight, room);
    m_bubble->setText(shown);
    m_bubble->setToolTip(shown == m_bubbleText ? QString() : m_bubbleText);
}

bool TimelinePanel::eventFilter(QObject *watched, QEvent *event)
{
    // A new width or a larger text (View → Larger text) elides the line anew.
    if (watched == m_bubble &&
        (event->type() == QEvent::Resize || event->type() == QEvent::FontChange))
        showBubble();
    return QWidget::eventFilter(watched, event);
}

} // namespace ui
