#pragma once

#include <QEvent>
#include <QObject>
#include <QScopedValueRollback>
#include <QWidget>
#include <optional>

namespace ui {

// A control stepped by the keyboard, the wheel or a spin box's arrow buttons goes through many
// values on the way to one: an arrow key held down, a wheel turned several notches. Such a run
// of steps is a burst, which the controls make one undo step, as they do a slider drag. A burst
// ends at a pause, when its control loses focus, or at a step on another control that shares
// it (a slider and its spin box).
class StepBurst : public QObject
{
    Q_OBJECT

public:
    // A pause longer than this ends a burst: longer than a keyboard's auto-repeat delay
    // (typically 250–660 ms), so that holding a key after its first press is one burst.
    static constexpr int kPauseMs = 1000;

    // Milliseconds on a steady clock. Tests set their own to pass a pause without waiting for
    // it; nullptr restores the steady clock.
    using Clock = qint64 (*)();
    static void setClock(Clock clock);

    using QObject::QObject;

    // Whether `event` on `control` steps its value: a step key, the wheel, and on a spin box a
    // press of an arrow button or the timer that repeats it while held.
    static bool isStep(const QWidget *control, const QEvent *event);

    // Has `control` handle `event` (`dispatch` calls its event()), as a step of the current burst
    // or of a new one when it is one.
    template <typename Dispatch>
    bool handle(const QWidget *control, QEvent *event, Dispatch dispatch)
    {
        if (event->type() == QEvent::FocusOut)
            end(control);
        if (!isStep(control, event))
            return dispatch();
        begin(control);
        const QScopedValueRollback stepping(m_stepping, true);
        return dispatch();
    }

    // True while a step is handled: the value it sets belongs to the current burst.
    bool isStepping() const { return m_stepping; }

Q_SIGNALS:
    // A step after a pause, after a loss of focus or on another control: the steps until the
    // next pause are one gesture.
    void started();

private:
    void begin(const QWidget *control);
    void end(const QWidget *control);

    std::optional<qint64> m_lastStep;   // empty when no burst is going on
    const QWidget *m_control = nullptr; // compared, never followed
    bool m_stepping = false;
};

// A Qt control (QComboBox, QSlider, QSpinBox, QDoubleSpinBox) whose steps come in bursts. Its
// StepBurst is its own, or one it shares with the controls that edit the same value.
template <typename Control> class Stepped : public Control
{
public:
    // The burst is set in the body: creating one parented to this control sends it a
    // ChildAdded event, which event() must see before m_steps exists (ASan, tst_monkey).
    explicit Stepped(StepBurst *steps = nullptr, QWidget *parent = nullptr) : Control(parent)
    {
        m_steps = steps ? steps : new StepBurst(this);
    }

    StepBurst *steps() const { return m_steps; }

protected:
    bool event(QEvent *event) override
    {
        if (!m_steps)
            return Control::event(event);
        return m_steps->handle(this, event, [&] { return Control::event(event); });
    }

private:
    StepBurst *m_steps = nullptr;
};

} // namespace ui
