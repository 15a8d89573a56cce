#include "ui/charts/chart_style.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QPalette>
#include <QValueAxis>
#include <QXYSeries>
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

namespace {

// Each item's font and pen at scale 1, kept on the item the first time.
QFont baseFont(QObject *item, const char *name, const QFont &current)
{
    const QVariant stored = item->property(name);
    if (stored.isValid())
        return stored.value<QFont>();
    item->setProperty(name, current);
    return current;
}

QFont scaled(QFont font, double scale)
{
    font.setPointSizeF(font.pointSizeF() * scale);
    return font;
}

} // namespace

void setScale(QChart *chart, double scale)
{
    chart->setTitleFont(scaled(baseFont(chart, "baseTitleFont", chart->titleFont()), scale));
    QLegend *legend = chart->legend();
    legend->setFont(scaled(baseFont(legend, "baseFont", legend->font()), scale));
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsFont(scaled(baseFont(axis, "baseLabelsFont", axis->labelsFont()), scale));
        axis->setTitleFont(scaled(baseFont(axis, "baseTitleFont", axis->titleFont()), scale));
    }
    for (QAbstractSeries *series : chart->series()) {
        if (auto *xy = qobject_cast<QXYSeries *>(series)) {
            xy->setPointLabelsFont(
                scaled(baseFont(xy, "baseLabelsFont", xy->pointLabelsFont()), scale));
            if (!xy->property("basePenWidth").isValid())
                xy->setProperty("basePenWidth", xy->pen().widthF());
            QPen pen = xy->pen();
            pen.setWidthF(xy->property("basePenWidth").toDouble() * scale);
            xy->setPen(pen);
        } else if (auto *bars = qobject_cast<QAbstractBarSeries *>(series)) {
            for (QBarSet *set : bars->barSets())
                set->setLabelFont(scaled(baseFont(set, "baseLabelFont", set->labelFont()), scale));
        }
    }
}

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

void applyPalette(QChart *chart, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor grid = isDark(palette) ? QColor(0x55, 0x55, 0x55) : QColor(0xDD, 0xDD, 0xDD);
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(text);
    }
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
    // Fixed ticks while the range and the interval change: dynamic ticks lay out the new
    // range at the old interval first, and 0.5 MB steps over 100,000 MB are 200,000 labels
    // (minutes of layout; issue 9, found by tst_monkey).
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(0, std::ceil(top / step) * step);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    axis->setTickType(QValueAxis::TicksDynamic);
}

} // namespace ui::chart_style
