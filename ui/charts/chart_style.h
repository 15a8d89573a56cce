#pragma once

#include <QColor>
#include <QPen>
#include <cstddef>
#include <iterator>

class QLabel;

class QChart;
class QPalette;
class QValueAxis;
class QWidget;

namespace ui::chart_style {

// Okabe & Ito (2008), "Color Universal Design": distinguishable with the
// common colour-vision deficiencies and in greyscale print.
inline QColor black()
{
    return QColor(0x00, 0x00, 0x00);
}
inline QColor orange()
{
    return QColor(0xE6, 0x9F, 0x00);
}
inline QColor skyBlue()
{
    return QColor(0x56, 0xB4, 0xE9);
}
inline QColor green()
{
    return QColor(0x00, 0x9E, 0x73);
}
inline QColor yellow()
{
    return QColor(0xF0, 0xE4, 0x42);
}
inline QColor blue()
{
    return QColor(0x00, 0x72, 0xB2);
}
inline QColor vermillion()
{
    return QColor(0xD5, 0x5E, 0x00);
}
inline QColor purple()
{
    return QColor(0xCC, 0x79, 0xA7);
}
inline QColor grey()
{
    return QColor(0x99, 0x99, 0x99);
}

inline QColor weights()
{
    return blue();
}

// The palette in a fixed order, for series told apart by colour alone (the memory terms of
// core::kMemoryTerms, by position): blue, sky blue, green, orange, vermillion, purple, grey,
// yellow, black, indigo and olive (Paul Tol's, beside Okabe and Ito's eight), then round again.
inline QColor series(std::size_t index)
{
    const QColor palette[] = {blue(),
                              skyBlue(),
                              green(),
                              orange(),
                              vermillion(),
                              purple(),
                              grey(),
                              yellow(),
                              black(),
                              QColor(0x33, 0x22, 0x88),
                              QColor(0x99, 0x99, 0x33)};
    return palette[index % std::size(palette)];
}

// The device's capacity: a dashed dark red line, the same in every chart.
QPen capacityPen();
// The capacity of T devices together.
QPen groupCapacityPen();

// Scales every text and line of a chart by `scale` relative to its look at
// 1 (presentation mode, Ctrl+= / Ctrl+-). The look at 1 is remembered on the
// first call, the title made bold then.
void setScale(QChart *chart, double scale);
// The text size setScale last gave `chart` against its look at 1: 1 before any.
double textScale(const QChart *chart);

// A legend's text against its chart's where the legend would not fit its room at that size
// (presentation mode's largest text beside the docks): the largest scale at which `text` (the
// pixels of it that scale with the font: its rows' heights, or its labels' widths, at the
// chart's size) and `fixed` (those that do not: gaps) fit `room`, a little under for the
// font's own rounding. 1 where the legend fits as it is, never below `least`.
constexpr double kLegendMinScale = 0.6;
double legendScale(double room, double text, double fixed = 0, double least = kLegendMinScale);
// The least a legend shrinks to where it has somewhere else to go (another row, under the
// plot) at `textScale`, the chart's text against the normal size: kLegendMinScale of the
// chart's, never smaller than the normal size, so that only larger text gives way.
double legendLeastScale(double textScale);

// For an exported image (ui/export/chart_export.h): every chart of `widget` at `scale`, its
// title bold and 15 % larger, as the painted charts' titles (step time, timeline), so that
// a slide's chart has a title that stands out from its labels, and the Qt Charts ones laid
// out to the image's margin, without the window's blank margins and frame.
void setExportScale(QWidget *widget, double scale);

// Axis labels with thousands separators ("1,000", not "1000"), whatever the system's locale,
// as the rest of Parascope writes numbers (io::formatCount).
void groupDigits(QChart *chart);

// Light or dark, from the palette's window colour (Qt 6.4 has no colour-scheme
// query): backgrounds, text and grid of a chart follow it; series keep their
// colour-blind-safe colours.
// The unit a time axis ending at `end` seconds is labelled in: "s", "ms" or "µs" (or
// layer-time units for an untimed schedule), written to `name`; returns its size in seconds.
double timeAxisUnit(double end, bool layerUnits, QString *name);

bool isDark(const QPalette &palette);
void applyPalette(QChart *chart, const QPalette &palette);

// 0 .. a round number above `peak` (10 % headroom), with ticks at a round step of 1, 2 or
// 5 × 10^k: at most 10 intervals, fewer where keepTicksReadable found less room.
void setNiceRange(QValueAxis *axis, double peak);
// A percentage axis: 0 … 100 with ticks every 10, 20, 25 or 50, the most that
// keepTicksReadable finds room for.
void setPercentRange(QValueAxis *axis);

// Whenever the plot area changes, respaces the chart's vertical setNiceRange axes to the
// intervals their labels have room for (1.6 label lines each) and its horizontal ones to
// labels as wide as the peak's with a label's gap between, and shortens an axis title that
// no longer fits: "Memory per device (GB)" to "Memory (GB)", then "GB". A short plot
// (presentation mode, a dock below the charts) showed "…" instead, and a narrow one "1…"
// for "120".
void keepAxesReadable(QChart *chart);

// The label a chart shows in its place while it has nothing to draw (the planners' charts):
// centred, wrapped, framed like a page, named `objectName` for tests.
QLabel *newChartMessage(const QString &objectName);

} // namespace ui::chart_style
