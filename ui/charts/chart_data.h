#pragma once

#include "io/data_table.h"

namespace ui {

// The numbers a chart is drawn from, as a table: what File → Export Chart Data… and
// `parascope export --out foo.csv|.json` write (ui/export/data_export.h). Numbers are the
// report's own, not rounded for display.
using ChartColumn = io::DataColumn;
using ChartValue = io::DataValue;
using ChartData = io::DataTable;

} // namespace ui
