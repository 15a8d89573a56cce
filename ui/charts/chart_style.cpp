#include "ui/charts/chart_style.h"

#include <QValueAxis>
#include <cmath>

namespace ui::chart_style {

QPen capacityPen()
{
    QPen pen(QColor(0xB0, 0x00, 0x20));
    pen.setWidthF(2.5);
    pen.setStyle(Qt::DashLine);
    return pen;
}

QPen groupCapacityPen()
{
    QPen pen(QColor(0x55, 0x55, 0x55));
    pen.setWidthF(2.0);
    pen.setStyle(Qt::DotLine);
    return pen;
}

void setNiceRange(QValueAxis *axis, double peak)
{
    const double top = std::max(peak, 1.0) * 1.1;
    // A step of 1, 2 or 5 × 10^k giving 4 to 10 ticks.
    const double magnitude = std::pow(10.0, std::floor(std::log10(top)));
    double step = magnitude;
    for (double factor : {0.1, 0.2, 0.5, 1.0}) {
        if (top / (magnitude * factor) <= 10) {
            step = magnitude * factor;
            break;
        }
    }
    axis->setRange(0, std::ceil(top / step) * step);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
}

} // namespace ui::chart_style
