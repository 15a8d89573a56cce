#include "ui/charts/chart_style.h"

#include "ui/charts/wrapping_legend.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QLabel>
#include <QLegend>
#include <QLocale>
#include <QLogValueAxis>
#include <QPalette>
#include <QValueAxis>
#include <QXYSeries>
#include <algorithm>
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

// setNiceRange keeps its peak, and keepTicksReadable the intervals there is room for, on the
// axis itself.
constexpr const char *kNicePeak = "niceRangePeak";
// A logarithmic axis's base as its chart set it, which a crowded axis raises to a power.
constexpr const char *kLogBase = "logAxisBase";
constexpr const char *kNiceIntervals = "niceRangeIntervals";
constexpr const char *kNiceDecimals = "niceRangeDecimals";

// Fixed-point label formats ("%.0f") get the decimals a step below 1 needs, never fewer than
// the axis was given: 0.5 MB steps drawn "%.0f" read 0, 0, 1, 2.
void fitDecimals(QValueAxis *axis, double step)
{
    const QString format = axis->labelFormat();
    QVariant given = axis->property(kNiceDecimals);
    if (!given.isValid()) {
        if (format.size() != 4 || !format.startsWith(QLatin1String("%.")) ||
            !format.endsWith(QLatin1Char('f')) || !format.at(2).isDigit())
            return;
        given = format.at(2).digitValue();
        axis->setProperty(kNiceDecimals, given);
    }
    const int needed = step < 1 ? static_cast<int>(std::ceil(-std::log10(step) - 1e-9)) : 0;
    const QString wanted = QStringLiteral("%.%1f").arg(std::max(given.toInt(), needed));
    if (format != wanted)
        axis->setLabelFormat(wanted);
}
// setPercentRange marks its axis: 0 … 100 in steps of 10, 20, 25 or 50 as room allows.
constexpr const char *kPercentAxis = "percentAxis";
constexpr int kMostIntervals = 10;
// keepAxesReadable keeps an axis's whole title, and the one it shows, on the axis.
constexpr const char *kFullTitle = "fullAxisTitle";
constexpr const char *kShownTitle = "shownAxisTitle";

// setScale's scale, kept on the chart.
constexpr const char *kTextScale = "chartTextScale";

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
    chart->setProperty(kTextScale, scale);
    // Every chart's title bold, as the painted pages' (Memory over the step's, Step time's).
    QFont title = chart->titleFont();
    if (!chart->property("baseTitleFont").isValid())
        title.setBold(true);
    chart->setTitleFont(scaled(baseFont(chart, "baseTitleFont", title), scale));
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

double textScale(const QChart *chart)
{
    const QVariant scale = chart->property(kTextScale);
    return scale.isValid() ? scale.toDouble() : 1.0;
}

double legendScale(double room, double text, double fixed, double least)
{
    if (!(text > 0) || text + fixed <= room)
        return 1;
    return std::clamp(0.97 * (room - fixed) / text, std::min(least, 1.0), 1.0);
}

double legendLeastScale(double textScale)
{
    return textScale > 0 ? std::clamp(1 / textScale, kLegendMinScale, 1.0) : 1.0;
}

namespace {
// Pixels between an exported chart's plot, title or legend and its edge, at 1 × text.
constexpr int kExportChartMargin = 4;
} // namespace

void setExportScale(QWidget *widget, double scale)
{
    QList<QChartView *> views = widget->findChildren<QChartView *>();
    if (auto *view = qobject_cast<QChartView *>(widget))
        views.prepend(view);
    for (QChartView *view : std::as_const(views)) {
        QChart *chart = view->chart();
        // An image's title a little larger than its text, as Step time's (bold from setScale).
        QFont title = chart->titleFont();
        title.setBold(true);
        title.setPointSizeF(title.pointSizeF() * 1.15);
        chart->setTitleFont(title);
        setScale(chart, scale);
        // An image has no window around it: the chart's default margins, its layout's and the
        // view's frame left about 40 pixels blank above the title and under the legend of a
        // 640 × 400 export. The export's own margin keeps labels off the image's edge.
        chart->layout()->setContentsMargins(0, 0, 0, 0);
        chart->setBackgroundRoundness(0);
        view->setFrameShape(QFrame::NoFrame);
        const int m = int(std::lround(kExportChartMargin * scale));
        const QMargins margins(m, m, m, m);
        bool wrapping = false;
        for (QGraphicsItem *item : chart->childItems())
            if (auto *legend = qobject_cast<WrappingLegend *>(item->toGraphicsObject())) {
                legend->setChartMargins(margins); // it adds its rows under them
                wrapping = true;
            }
        if (!wrapping)
            chart->setMargins(margins);
    }
}

void groupDigits(QChart *chart)
{
    // Qt Charts formats "%.0f" with the chart's locale when asked to; English groups digits.
    chart->setLocale(QLocale(QLocale::English, QLocale::UnitedStates));
    chart->setLocalizeNumbers(true);
}

double timeAxisUnit(double end, bool layerUnits, QString *name)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("TimeAxis", text); };
    if (layerUnits) {
        *name = tr("layer-time units");
        return 1;
    }
    if (end >= 1) {
        *name = tr("s");
        return 1;
    }
    if (end >= 1e-3) {
        *name = tr("ms");
        return 1e-3;
    }
    *name = tr("µs");
    return 1e-6;
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
    axis->setProperty(kNicePeak, peak);
    const QVariant room = axis->property(kNiceIntervals);
    const int intervals = room.isValid() ? room.toInt() : kMostIntervals;
    const double top = std::max(peak, 1.0) * 1.1;
    // The smallest step of 1, 2 or 5 × 10^k that needs at most `intervals` intervals.
    const double magnitude = std::pow(10.0, std::floor(std::log10(top)));
    double step = magnitude * 10;
    for (double factor : {0.1, 0.2, 0.5, 1.0, 2.0, 5.0}) {
        if (top / (magnitude * factor) <= intervals) {
            step = magnitude * factor;
            break;
        }
    }
    const double max = std::ceil(top / step) * step;
    fitDecimals(axis, step);
    // Unchanged: each setter below lays the whole chart out again (at K=64 stages, a few
    // milliseconds of label measuring per edit).
    if (axis->tickType() == QValueAxis::TicksDynamic && axis->min() == 0 && axis->max() == max &&
        axis->tickAnchor() == 0 && axis->tickInterval() == step)
        return;
    // Fixed ticks while the range and the interval change: dynamic ticks lay out the new
    // range at the old interval first, and 0.5 MB steps over 100,000 MB are 200,000 labels
    // (minutes of layout; found by tst_monkey).
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(0, max);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    axis->setTickType(QValueAxis::TicksDynamic);
}

void setPercentRange(QValueAxis *axis)
{
    axis->setProperty(kPercentAxis, true);
    const QVariant room = axis->property(kNiceIntervals);
    const int most = room.isValid() ? room.toInt() : kMostIntervals;
    int intervals = 1;
    for (int n : {10, 5, 4, 2}) {
        if (n <= most) {
            intervals = n;
            break;
        }
    }
    if (axis->min() != 0 || axis->max() != 100)
        axis->setRange(0, 100);
    if (axis->tickCount() != intervals + 1)
        axis->setTickCount(intervals + 1);
}

namespace {

// The longest of "Memory per device (GB)", "Memory (GB)" and "GB" that fits `length`.
void fitTitle(QAbstractAxis *axis, double length, bool vertical = true)
{
    QString full = axis->titleText();
    if (axis->property(kShownTitle).toString() == full && axis->property(kFullTitle).isValid())
        full = axis->property(kFullTitle).toString(); // on show is our own shortening
    QStringList choices{full};
    const qsizetype open = full.lastIndexOf(QLatin1Char('('));
    if (open > 0 && full.endsWith(QLatin1Char(')'))) {
        const QString unit = full.mid(open + 1, full.size() - open - 2);
        const QString first = full.left(open).section(QLatin1Char(' '), 0, 0);
        if (first + QStringLiteral(" (") + unit + QLatin1Char(')') != full)
            choices << first + QStringLiteral(" (") + unit + QLatin1Char(')');
        choices << unit;
    }
    const QFontMetricsF metrics(axis->titleFont());
    QString chosen = choices.last();
    for (const QString &choice : choices) {
        // Qt Charts elides a vertical title short of the plot's full height: leave it a
        // margin; a horizontal one has the plot's width.
        const double room = vertical ? 0.85 * length - metrics.height() : length;
        if (metrics.horizontalAdvance(choice) <= room) {
            chosen = choice;
            break;
        }
    }
    axis->setProperty(kFullTitle, full);
    axis->setProperty(kShownTitle, chosen);
    if (chosen != axis->titleText())
        axis->setTitleText(chosen);
}

void fitTicks(QValueAxis *axis, double length)
{
    const bool percent = axis->property(kPercentAxis).toBool();
    if (!axis->property(kNicePeak).isValid() && !percent)
        return;
    const double line = QFontMetricsF(axis->labelsFont()).height();
    const int room = std::clamp(static_cast<int>(length / (1.6 * line)), 1, kMostIntervals);
    const QVariant before = axis->property(kNiceIntervals);
    if (before.isValid() ? before.toInt() == room : room == kMostIntervals)
        return;
    // Only the height decides, so the new labels' width cannot bring this back.
    axis->setProperty(kNiceIntervals, room);
    if (percent)
        setPercentRange(axis);
    else
        setNiceRange(axis, axis->property(kNicePeak).toDouble());
}

// A horizontal axis: as many intervals as labels as wide as the peak's, with a gap of one
// such label between them, fit its length ("120" beside "140", not "1…" beside "1…").
void fitTicksAcross(QValueAxis *axis, double length)
{
    if (!axis->property(kNicePeak).isValid())
        return;
    const QString widest = QString::number(std::max(axis->property(kNicePeak).toDouble(), 1.0) *
                                               1.1 * 10, // one digit more than the peak's
                                           'f', 0);
    const double label = QFontMetricsF(axis->labelsFont()).horizontalAdvance(widest);
    const int room = std::clamp(static_cast<int>(length / (2 * label)), 1, kMostIntervals);
    const QVariant before = axis->property(kNiceIntervals);
    if (before.isValid() ? before.toInt() == room : room == kMostIntervals)
        return;
    axis->setProperty(kNiceIntervals, room);
    setNiceRange(axis, axis->property(kNicePeak).toDouble());
}

// A horizontal logarithmic axis: its labels at powers of its base, or where they would crowd
// (large text on a narrow plot, "…" for each), of a power of its base: 1, 4, 16, … in place
// of 1, 2, 4, …, each label with a gap of one such label beside it.
void fitLogTicksAcross(QLogValueAxis *axis, double length)
{
    if (!axis->property(kLogBase).isValid())
        axis->setProperty(kLogBase, axis->base());
    const double base = axis->property(kLogBase).toDouble();
    if (!(base > 1) || !(axis->min() > 0) || !(axis->max() > axis->min()))
        return;
    const QString widest = QString::number(axis->max(), 'f', 0);
    const double label = QFontMetricsF(axis->labelsFont()).horizontalAdvance(widest);
    const double decades = std::log(axis->max() / axis->min());
    double chosen = base;
    for (int power = 1; power <= 8; ++power) {
        chosen = std::pow(base, power);
        const double labels = std::floor(decades / std::log(chosen) + 1e-9) + 1;
        if (labels * 2 * label <= length)
            break;
    }
    if (axis->base() != chosen)
        axis->setBase(chosen);
}

} // namespace

QLabel *newChartMessage(const QString &objectName)
{
    auto *label = new QLabel;
    label->setObjectName(objectName);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    label->setMargin(24);
    label->setFrameShape(QFrame::StyledPanel);
    return label;
}

void keepAxesReadable(QChart *chart)
{
    const auto fit = [chart] {
        const double length = chart->plotArea().height();
        if (length <= 0)
            return;
        for (QAbstractAxis *axis : chart->axes(Qt::Horizontal)) {
            if (auto *values = qobject_cast<QValueAxis *>(axis))
                fitTicksAcross(values, chart->plotArea().width());
            else if (auto *log = qobject_cast<QLogValueAxis *>(axis))
                fitLogTicksAcross(log, chart->plotArea().width());
            if (!axis->titleText().isEmpty())
                fitTitle(axis, chart->plotArea().width(), false);
            // A plot shorter than four lines of the axis's text gives its title's line to the
            // labels, which Qt Charts otherwise cuts to "…" (large text on a short chart); it
            // takes it back once the plot would keep four lines with the title's two beside
            // them, so that showing the title does not hide it again.
            const double line = QFontMetricsF(axis->titleFont()).height();
            const double height = chart->plotArea().height();
            if (axis->titleText().isEmpty())
                continue;
            if (axis->isTitleVisible() && height < 4 * line)
                axis->setTitleVisible(false);
            else if (!axis->isTitleVisible() && height >= 6 * line)
                axis->setTitleVisible(true);
        }
        for (QAbstractAxis *axis : chart->axes(Qt::Vertical)) {
            if (auto *values = qobject_cast<QValueAxis *>(axis))
                fitTicks(values, length);
            if (!axis->titleText().isEmpty())
                fitTitle(axis, length);
        }
    };
    QObject::connect(chart, &QChart::plotAreaChanged, chart, fit);
    for (QAbstractAxis *axis : chart->axes())
        QObject::connect(axis, &QAbstractAxis::titleTextChanged, chart, fit);
}

} // namespace ui::chart_style
