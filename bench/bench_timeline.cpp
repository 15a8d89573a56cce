// Drawing speed of the schedule timeline (docs/DESIGN.md §5: every change redraws within
// one frame; docs/DESIGN.md §2). Renders the chart into a
// 1280×800 image offscreen: the first paint aggregates, a repaint reuses the cache.
#include "core/evaluate.h"
#include "io/presets_io.h"
#include "ui/charts/timeline_chart.h"

#include <QApplication>
#include <QImage>
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
BENCHMARK(firstPaintDefault)->Unit(benchmark::kMillisecond);
BENCHMARK(repaintDefault)->Unit(benchmark::kMillisecond);
BENCHMARK(firstPaintK64m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(repaintK64m1024)->Unit(benchmark::kMillisecond);

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
