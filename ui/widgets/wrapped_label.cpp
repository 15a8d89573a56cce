#include "ui/widgets/wrapped_label.h"

#include <QEvent>

namespace ui {

namespace {

// A few widths per layout pass; more means the window is being resized.
constexpr qsizetype kRememberedWidths = 16;

} // namespace

WrappedLabel::WrappedLabel(QWidget *parent) : QLabel(parent)
{
    setWordWrap(true);
}

int WrappedLabel::heightForWidth(int width) const
{
    // QLabel's height for a width is at least the minimum height: a new one measures anew, as
    // does a new font, which an event filter may ask about before changeEvent has seen it.
    if (m_measured != text() || m_measuredMinimum != minimumHeight() || m_measuredFont != font()) {
        m_measured = text();
        m_measuredMinimum = minimumHeight();
        m_measuredFont = font();
        m_heights.clear();
    }
    if (const auto it = m_heights.constFind(width); it != m_heights.cend())
        return *it;
    if (m_heights.size() >= kRememberedWidths)
        m_heights.clear();
    const int height = QLabel::heightForWidth(width);
    m_heights.insert(width, height);
    return height;
}

QSize WrappedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().averageCharWidth() * 40 + m.left() + m.right(),
            fontMetrics().height() + m.top() + m.bottom()};
}

QSize WrappedLabel::minimumSizeHint() const
{
    return {0, sizeHint().height()};
}

void WrappedLabel::changeEvent(QEvent *event)
{
    // What else the layout of the text depends on.
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::StyleChange:
    case QEvent::ContentsRectChange:
        m_heights.clear();
        break;
    default:
        break;
    }
    QLabel::changeEvent(event);
}

} // namespace ui
