#include "ui/charts/chart_pages.h"

#include "ui/charts/bubble_page.h"
#include "ui/charts/memory_page.h"
#include "ui/charts/memory_step_page.h"
#include "ui/charts/model_size_page.h"
#include "ui/charts/serving_page.h"
#include "ui/charts/sharding_page.h"
#include "ui/charts/step_time_page.h"
#include "ui/charts/timeline_page.h"

#include <algorithm>

namespace ui {

namespace {

using PageFactory = std::unique_ptr<ChartPage> (*)();

template <typename Page> std::unique_ptr<ChartPage> makePage()
{
    return std::make_unique<Page>();
}

// The charts, one row each, in tab order.
constexpr PageFactory kChartPages[] = {
    &makePage<MemoryPage>,     &makePage<BubblePage>,    &makePage<TimelinePage>,
    &makePage<MemoryStepPage>, &makePage<StepTimePage>,  &makePage<ServingPage>,
    &makePage<ShardingPage>,   &makePage<ModelSizePage>,
};

} // namespace

ChartPages createChartPages()
{
    ChartPages pages;
    for (PageFactory make : kChartPages)
        pages.push_back(make());
    return pages;
}

std::unique_ptr<ChartPage> createChartPage(const QString &id)
{
    for (PageFactory make : kChartPages)
        if (auto page = make(); page->id() == id)
            return page;
    return nullptr;
}

QStringList chartPageIds()
{
    QStringList ids;
    for (PageFactory make : kChartPages)
        ids << make()->id();
    return ids;
}

ChartNeeds chartNeeds(const ChartPages &pages)
{
    ChartNeeds needs = ChartNeeds::report;
    for (const auto &page : pages)
        needs = std::max(needs, page->needs());
    return needs;
}

} // namespace ui
