#pragma once

#include <QComboBox>
#include <QElapsedTimer>

namespace ui {

// The picker for one scenario key. Holding an arrow key (or turning the wheel) on the closed
// box passes item after item on the way to one choice: such a run of steps is a burst, which
// the controls make one undo step, as they do a slider drag.
class ChoiceBox : public QComboBox
{
    Q_OBJECT

public:
    // A pause longer than this ends a burst: longer than a keyboard's auto-repeat delay
    // (typically 250–660 ms), so that holding a key after its first press is one burst.
    static constexpr int kBurstPauseMs = 1000;

    explicit ChoiceBox(QWidget *parent = nullptr);

    // True while `activated` comes from a key or the wheel on the closed box, not from the
    // list that pops up.
    bool isStepping() const { return m_stepping; }

Q_SIGNALS:
    // A key or wheel event on the closed box after a pause, or after the box lost focus: the
    // steps until the next pause are one gesture.
    void burstStarted();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    template <typename Handle> void step(Handle handle);

    QElapsedTimer m_lastStep; // invalid when no burst is going on
    bool m_stepping = false;
};

} // namespace ui
