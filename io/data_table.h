#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QtGlobal>
#include <variant>

// A table of numbers with a unit per column, written as CSV or JSON: a chart's data
// (ui::ChartPage::data, `parascope export --out FILE.csv|.json`) and the planner's candidates
// (`parascope plan --format csv`, the Planner's Export CSV…).
namespace io {

// One column: its name and the unit its numbers are in ("bytes", "s"); empty for text and
// plain counts.
struct DataColumn
{
    QString name;
    QString unit;
};

// A cell: nothing (no value, e.g. a check that did not run), a whole number, a number, or text.
using DataValue = std::variant<std::monostate, qint64, double, QString>;

struct DataTable
{
    QString title;
    QList<DataColumn> columns;
    QList<QList<DataValue>> rows; // each as long as columns
};

// A column's header: "total (bytes)", or the bare name when it has no unit.
QString dataHeader(const DataColumn &column);

// RFC 4180: a header line, then one line per row, CRLF-terminated; a field with a comma, a
// quote or a line break is quoted, its quotes doubled. Numbers at full precision (the
// shortest text that reads back as the same double); an empty cell is an empty field.
QByteArray toCsv(const DataTable &table);
// {"chart": id, "title": ..., "columns": [{"name", "unit"}], "rows": [[...]]}; an empty cell
// or a number that is not finite is null.
QByteArray toJson(const DataTable &table, const QString &chartId);

} // namespace io
