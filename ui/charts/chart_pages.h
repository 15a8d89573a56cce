#pragma once

#include "ui/charts/chart_page.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace ui {

using ChartPages = std::vector<std::unique_ptr<ChartPage>>;

// Every chart, in tab order (ui/charts/chart_pages.cpp): the window's tabs, Help → Formulas
// & sources, File → Export All Charts and `parascope export --chart all` make theirs here.
ChartPages createChartPages();
// The chart with this id, or null.
std::unique_ptr<ChartPage> createChartPage(const QString &id);
// The ids in tab order, for help texts, messages and checks of the examples.
QStringList chartPageIds();
// The most any of them needs evaluated.
ChartNeeds chartNeeds(const ChartPages &pages);

} // namespace ui
