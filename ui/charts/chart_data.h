#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>
#include <variant>

namespace ui {

// One column of a chart's data: its name and the unit its numbers are in ("bytes", "s");
// empty for text and plain counts.
struct ChartColumn
{
    QString name;
    QString unit;
};

// A cell: nothing (no value, e.g. a check that did not run), a whole number, a number, or text.
using ChartValue = std::variant<std::monostate, qint64, double, QString>;

// The numbers a chart is drawn from, as a table: what File → Export Chart Data… and
// `parascope export --out foo.csv|.json` write (ui/export/data_export.h). Numbers are the
// report's own, not rounded for display.
struct ChartData
{
    QString title;
    QList<ChartColumn> columns;
    QList<QList<ChartValue>> rows; // each as long as columns
};

} // namespace ui
