#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"
#include "ui/charts/chart_data.h"
#include "ui/scenario_document.h"

#include <QString>
#include <memory>
#include <optional>

class QWidget;

namespace ui {

// A second plan drawn beside the first (File → Compare with…).
struct Comparison
{
    core::Scenario scenario;
    core::Report report;
    QString name;
};

// What a page draws from: the window passes its document's last valid scenario and report,
// `parascope export` the scenario it read, evaluated.
struct ChartInputs
{
    const core::Scenario &scenario;
    const core::Presets &presets;
    const core::Report &report;
    const Comparison *comparison = nullptr; // plan B in the window; never in an exported image
};

// What a page needs evaluated. Every report holds the simulated bubble, makespan and
// micro-batches in flight; the schedule's blocks (Report::timeline, 131,072 of them at K=64,
// m=1024) are kept only for a page that draws them, and only while it is on screen.
enum class ChartNeeds
{
    report,
    timeline,
};

// One chart of the window: a tab, its formulas, its exported image. The pages are listed
// once, in tab order, by ui/charts/chart_pages.cpp; the window, the formula panel, File →
// Export, `parascope export --chart` and the examples all take them from there. Adding a
// chart is a ChartPage and a row (docs/ARCHITECTURE.md, "Adding a chart").
class ChartPage
{
public:
    ChartPage() = default;
    virtual ~ChartPage() = default;
    ChartPage(const ChartPage &) = delete;
    ChartPage &operator=(const ChartPage &) = delete;

    // Stable once shipped: typed by users (`parascope export --chart ID`), the name of its
    // file in `--chart all` and Export All Charts, an example's "chart" (resources/examples).
    virtual QString id() const = 0;
    // The tab's text, with a mnemonic that no control of the scenario dock uses.
    virtual QString title() const = 0;
    // What its formulas are about: their heading in Help → Formulas & sources.
    virtual QString subject() const = 0;
    // The scenario keys it is drawn from. When one changes the window redraws the page if it
    // is on screen and marks it stale otherwise; nothing else lists them.
    virtual FieldMask dependsOn() const = 0;
    virtual ChartNeeds needs() const { return ChartNeeds::report; }

    // The tab's widget, made once by the window, which owns it.
    virtual QWidget *createWidget(ScenarioDocument *document) = 0;
    // Draws the inputs into the tab's widget. `inputs.report` is valid and has what needs()
    // asks for.
    virtual void update(const ChartInputs &inputs) = 0;
    // The formulas behind the chart with the current numbers in them, each with its source
    // (HTML, built with ui/formula_panel.h's helpers).
    virtual QString formulas(const ChartInputs &inputs) const = 0;
    // A new widget for an exported image, drawn as the tab is and without controls.
    virtual std::unique_ptr<QWidget> createImage(const ChartInputs &inputs,
                                                 QWidget *parent) const = 0;
    // The numbers the chart draws, as a table with a unit per column, at full precision:
    // File → Export Chart Data… and `parascope export --out FILE.csv|.json`.
    virtual ChartData data(const ChartInputs &inputs) const = 0;
    // Why these inputs give the chart nothing to draw (a serving chart for a training
    // scenario), as the tab says it; nullopt when it draws. Export All Charts and
    // `--chart all` leave such a chart out and say why; exporting it alone is refused.
    virtual std::optional<QString> unavailable(const ChartInputs &) const { return std::nullopt; }
};

} // namespace ui
