#pragma once

#include <QWidget>

class QSlider;
class QSpinBox;

namespace ui {

class StepBurst;

// A slider with a spin box beside it, for one whole-number scenario key. The
// slider can be logarithmic (m from 1 to 1024); the spin box takes any value
// in range, typed or stepped. Steps by key, wheel or arrow button on either
// come in bursts (StepBurst).
class SliderSpin : public QWidget
{
    Q_OBJECT

public:
    enum class Scale
    {
        linear,
        logarithmic
    };

    SliderSpin(int minimum, int maximum, Scale scale, QWidget *parent = nullptr);

    int value() const;
    // Shows a value without emitting anything (the document's value).
    void setValue(int value);
    // Values the key accepts only as multiples of `multiple` (D with ZeRO replicas R, which
    // must divide it): the slider lands on multiples only and the spin box steps by it; a
    // value typed is taken as typed. 1: every whole number.
    void setMultiple(int multiple);
    int multiple() const { return m_multiple; }
    bool isDragging() const;

    QSlider *slider() const { return m_slider; }
    QSpinBox *spinBox() const { return m_spin; }
    // The bursts of steps on the slider and on the spin box.
    StepBurst *steps() const { return m_steps; }

Q_SIGNALS:
    // The user chose a value; `dragging` while the slider is held down.
    void valueEdited(int value, bool dragging);
    // The user pressed the slider: the edits until release are one gesture.
    void dragStarted();

private:
    int toSlider(int value) const;
    int fromSlider(int position) const;

    StepBurst *m_steps;
    QSlider *m_slider;
    QSpinBox *m_spin;
    Scale m_scale;
    int m_minimum;
    int m_maximum;
    int m_multiple = 1;
};

} // namespace ui
