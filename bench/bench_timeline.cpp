// Drawing speed of the schedule timeline (docs/DESIGN.md §5: every change redraws within
// one frame; docs/DESIGN.md §2). Renders the chart into a
// 1280×800 image offscreen: the first paint aggregates, a repaint reuses the cache.
#include "core/evaluate.h"
#include "io/presets_io.h"
#include "ui/charts/timeline_chart.h"

#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QToolTip>
#include <QWheelEvent>
#include <benchmark/benchmark.h>

namespace {

core::Report evaluateWithTimeline(const core::Scenario &scenario)
{
    return core::evaluate(scenario, io::builtinPresets(), core::EvaluateOptions{.timeline = true});
}

// docs/DESIGN.md §4's default scenario: K = 4, m = 16, 1F1B (128 blocks).
core::Scenario defaultScenario()
{
    return {};
}

// docs/DESIGN.md §2's largest timeline: K = 64, m = 1024 (Llama 3.1 405B has 126 layers);
// zb-h1 draws F, B and W: 64 × 1024 × 3 = 196,608 blocks, as in docs/DESIGN.md §2.
core::Scenario largeScenario()
{
    core::Scenario s;
    s.model = "llama-3.1-405b";
    s.pp = 64;
    s.microbatches = 1024;
    s.schedule = core::Schedule::zbH1;
    return s;
}

void render(benchmark::State &state, const core::Scenario &scenario, bool aggregate)
{
    const core::Report report = evaluateWithTimeline(scenario);
    if (!report.ok()) {
        state.SkipWithError("scenario does not evaluate");
        return;
    }
    ui::TimelineChart chart;
    chart.resize(1280, 800);
    chart.setReport(report);
    QImage image(chart.size(), QImage::Format_ARGB32_Premultiplied);
    chart.render(&image);
    const double makespan = chart.makespan();
    bool flip = false;
    for (auto _ : state) {
        if (aggregate) {
            // A zoom change invalidates the cache: the next paint aggregates again.
            flip = !flip;
            chart.setVisibleRange(0, flip ? makespan * 0.999 : makespan);
        }
        chart.render(&image);
        benchmark::DoNotOptimize(image.constBits());
    }
    state.counters["blocks"] = double(chart.blocks().size());
    state.counters["aggregated"] = chart.aggregatedColumns();
}

void firstPaintDefault(benchmark::State &state)
{
    render(state, defaultScenario(), true);
}
void repaintDefault(benchmark::State &state)
{
    render(state, defaultScenario(), false);
}
void firstPaintK64m1024(benchmark::State &state)
{
    render(state, largeScenario(), true);
}
void repaintK64m1024(benchmark::State &state)
{
    render(state, largeScenario(), false);
}
// One notch of the wheel, as the user turns it over the K=64, m=1024 schedule: the event, the
// new range aggregated again and the chart painted. In and out in turn, about the pointer,
// from the whole step down to about a hundred blocks per row, and back.
void zoomStepK64m1024(benchmark::State &state)
{
    const core::Report report = evaluateWithTimeline(largeScenario());
    if (!report.ok()) {
        state.SkipWithError("scenario does not evaluate");
        return;
    }
    ui::TimelineChart chart;
    chart.resize(1280, 800);
    chart.setReport(report);
    QImage image(chart.size(), QImage::Format_ARGB32_Premultiplied);
    chart.render(&image);
    const QPointF at = chart.plotArea().center();
    int notch = 0;
    int direction = 1;
    for (auto _ : state) {
        if (notch == 20 || (notch == 0 && direction < 0))
            direction = -direction;
        notch += direction;
        QWheelEvent wheel(at, at, QPoint(), QPoint(0, 120 * direction), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&chart, &wheel);
        chart.render(&image);
        benchmark::DoNotOptimize(image.constBits());
    }
    state.counters["blocks"] = double(chart.blocks().size());
}

// A hover over the K=64, m=1024 schedule: the tooltip's block found and its text shown, at
// points across the plot. The first hover sorts each stage's blocks, outside the loop.
void hoverK64m1024(benchmark::State &state)
{
    const core::Report report = evaluateWithTimeline(largeScenario());
    if (!report.ok()) {
        state.SkipWithError("scenario does not evaluate");
        return;
    }
    ui::TimelineChart chart;
    chart.resize(1280, 800);
    chart.setReport(report);
    chart.show();
    const QRect plot = chart.plotArea();
    benchmark::DoNotOptimize(chart.toolTipAt(plot.center()));
    int i = 0;
    for (auto _ : state) {
        const QPoint at(plot.left() + (i * 37) % plot.width(),
                        plot.top() + (i * 13) % plot.height());
        ++i;
        QHelpEvent help(QEvent::ToolTip, at, chart.mapToGlobal(at));
        QApplication::sendEvent(&chart, &help);
    }
    benchmark::DoNotOptimize(QToolTip::text());
    QToolTip::hideText();
}

BENCHMARK(firstPaintDefault)->Unit(benchmark::kMillisecond);
BENCHMARK(repaintDefault)->Unit(benchmark::kMillisecond);
BENCHMARK(firstPaintK64m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(repaintK64m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(zoomStepK64m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(hoverK64m1024)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
