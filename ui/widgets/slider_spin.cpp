#include "ui/widgets/slider_spin.h"

#include "ui/widgets/step_burst.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {
constexpr int kLogSteps = 1000;      // slider positions across a logarithmic range
constexpr double kSnapOctaves = 0.2; // a power of two holds this far either side of it
} // namespace

SliderSpin::SliderSpin(int minimum, int maximum, Scale scale, QWidget *parent)
    : QWidget(parent), m_steps(new StepBurst(this)), m_slider(new Stepped<QSlider>(m_steps)),
      m_spin(new Stepped<QSpinBox>(m_steps)), m_scale(scale), m_minimum(minimum), m_maximum(maximum)
{
    m_slider->setOrientation(Qt::Horizontal);
    m_spin->setRange(minimum, maximum);
    m_spin->setKeyboardTracking(false); // typing "128" sets 128, not 1, 12, 128
    m_spin->setAccelerated(true);
    if (scale == Scale::logarithmic) {
        m_slider->setRange(0, kLogSteps);
        m_slider->setPageStep(kLogSteps / 10);
    } else {
        m_slider->setRange(minimum, maximum);
        m_slider->setPageStep(std::max(1, (maximum - minimum) / 10));
    }
    m_spin->setMinimumWidth(m_spin->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) +
                            24);

    m_slider->setMinimumWidth(60);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_spin);
    setFocusProxy(m_spin);

    connect(m_slider, &QSlider::sliderPressed, this, &SliderSpin::dragStarted);
    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        const int value = fromSlider(position);
        if (value == m_spin->value())
            return;
        const QSignalBlocker block(m_spin);
        m_spin->setValue(value);
        Q_EMIT valueEdited(value, m_slider->isSliderDown());
    });
    connect(m_spin, &QSpinBox::valueChanged, this, [this](int value) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(toSlider(value));
        Q_EMIT valueEdited(value, false);
    });
}

int SliderSpin::value() const
{
    return m_spin->value();
}

void SliderSpin::setValue(int value)
{
    const QSignalBlocker blockSpin(m_spin);
    const QSignalBlocker blockSlider(m_slider);
    // A scenario beyond the range (a file, an import: GPT-3's 1,536 micro-batches) widens it:
    // the box must show the value the charts are drawn from, never a clamped one.
    if (value > m_maximum) {
        m_maximum = value;
        m_spin->setMaximum(value);
        if (m_scale == Scale::linear)
            m_slider->setMaximum(value);
    }
    m_spin->setValue(value);
    if (!m_slider->isSliderDown())
        m_slider->setValue(toSlider(value));
}

void SliderSpin::setMultiple(int multiple)
{
    multiple = std::max(1, multiple);
    if (multiple == m_multiple)
        return;
    m_multiple = multiple;
    const QSignalBlocker block(m_spin);
    m_spin->setSingleStep(multiple);
}

bool SliderSpin::isDragging() const
{
    return m_slider->isSliderDown();
}

int SliderSpin::toSlider(int value) const
{
    if (m_scale == Scale::linear)
        return value;
    const double span = std::log(double(m_maximum) / m_minimum);
    return int(
        std::lround(kLogSteps * std::log(double(std::max(value, m_minimum)) / m_minimum) / span));
}

int SliderSpin::fromSlider(int position) const
{
    if (m_scale == Scale::linear && m_multiple == 1)
        return position;
    if (m_scale == Scale::linear) {
        const long top = std::max<long>(m_multiple, m_maximum / m_multiple * m_multiple);
        return int(std::clamp<long>(std::lround(double(position) / m_multiple) * m_multiple,
                                    m_multiple, top));
    }
    const double span = std::log(double(m_maximum) / m_minimum);
    const double exact = m_minimum * std::exp(span * position / kLogSteps);
    // Powers of two (the m, K, T and D people try) hold the middle 40 % of the octave around
    // them, so that a short slider lands on 4 when aimed at it, not on 3 or 5.
    const double octaves = std::log2(exact);
    const double nearest = std::round(octaves);
    const long value = std::abs(octaves - nearest) <= kSnapOctaves ? std::lround(std::exp2(nearest))
                                                                   : std::lround(exact);
    if (m_multiple > 1) {
        // The nearest multiple, at least one and at most the largest in range.
        const long top = std::max<long>(m_multiple, m_maximum / m_multiple * m_multiple);
        const long near = std::lround(double(value) / m_multiple) * m_multiple;
        return int(std::clamp<long>(near, m_multiple, top));
    }
    return int(std::clamp<long>(value, m_minimum, m_maximum));
}

} // namespace ui
