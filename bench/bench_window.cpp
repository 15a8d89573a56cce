// "Set a field → the visible chart repainted": what one slider step costs the window, per
// chart tab, for the default scenario and for K=64, m=1024 (Llama 3.1 405B). Each iteration
// changes m, evaluates, lets the charts update and paints the window. The goal (README,
// "Performance") is a frame: at most 16 ms at the 99th percentile on every tab at K=64,
// m=1024, and at most 8 ms median on the default scenario. Counters give the median and
// the 99th percentile of the iterations, in wall-clock and in this thread's CPU time
// (less disturbed by other work on a shared machine).
#include "io/presets_io.h"
#include "ui/charts/chart_pages.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QApplication>
#include <QStringList>
#include <QTabWidget>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <ctime>
#include <vector>

namespace {

QApplication *app()
{
    static int argc = 1;
    static char name[] = "bench_window";
    static char *argv[] = {name, nullptr};
    static QApplication *instance = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return new QApplication(argc, argv);
    }();
    return instance;
}

double threadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The q-quantile of the samples (nearest rank), in milliseconds.
double quantileMs(std::vector<double> samples, double q)
{
    if (samples.empty())
        return 0;
    const auto rank = std::min(samples.size() - 1, std::size_t(q * double(samples.size())));
    std::nth_element(samples.begin(), samples.begin() + std::ptrdiff_t(rank), samples.end());
    return 1e3 * samples[rank];
}

// One slider step: a field's new value, evaluated, the charts told, the window painted. Not
// inlined, so that `valgrind --tool=callgrind --toggle-collect='*editAndRepaint*'` profiles it
// alone.
[[gnu::noinline]] void editAndRepaint(ui::ScenarioDocument &document, ui::MainWindow &window,
                                      const QString &key, const QString &value)
{
    document.setField(key, value);
    document.flush();
    QApplication::processEvents(); // scene updates of the charts
    window.repaint();              // paint what is on screen, now
}

// Alternates a field between two values so that every iteration really changes the scenario:
// m by default, between the scenario's and K more.
void run(benchmark::State &state, const core::Scenario &start, QString key = {},
         QStringList values = {})
{
    if (key.isEmpty()) {
        key = QStringLiteral("microbatches");
        values = {QString::number(start.microbatches),
                  QString::number(start.microbatches + start.pp)};
    }
    app();
    ui::ScenarioDocument document(io::builtinPresets());
    document.reset(start);
    ui::MainWindow window(&document);
    window.resize(1280, 800);
    window.show();
    window.charts()->setCurrentIndex(static_cast<int>(state.range(0)));
    document.flush();
    QApplication::processEvents();
    state.SetLabel(window.charts()
                       ->tabText(window.charts()->currentIndex())
                       .remove(QLatin1Char('&'))
                       .toStdString());
    int i = 0;
    // The first steps after a tab is shown also fill the allocator's and the fonts' caches,
    // once per run of the program: not what each step of a drag costs.
    for (int warmUp = 0; warmUp < 6; ++warmUp)
        editAndRepaint(document, window, key, values[i++ % 2]);
    std::vector<double> wall, cpu;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = threadCpuSeconds();
        editAndRepaint(document, window, key, values[i++ % 2]);
        const double c1 = threadCpuSeconds();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - t0;
        state.SetIterationTime(elapsed.count());
        wall.push_back(elapsed.count());
        cpu.push_back(c1 - c0);
    }
    state.counters["median_ms"] = quantileMs(wall, 0.5);
    state.counters["p99_ms"] = quantileMs(wall, 0.99);
    state.counters["cpu_median_ms"] = quantileMs(cpu, 0.5);
    state.counters["cpu_p99_ms"] = quantileMs(cpu, 0.99);
}

void defaultScenario(benchmark::State &state)
{
    run(state, core::Scenario{});
}

core::Scenario k64m1024Scenario()
{
    core::Scenario s;
    s.model = "llama-3.1-405b"; // 126 layers: room for 64 stages
    s.pp = 64;
    s.microbatches = 1024;
    s.tp = 8;
    s.dp = 1;
    return s;
}

void k64m1024(benchmark::State &state)
{
    run(state, k64m1024Scenario());
}

// The same scenario with the sequence length dragged instead (8,192 and 4,096 tokens): every
// op's time changes, the schedule's order of ops does not.
void k64m1024SeqLen(benchmark::State &state)
{
    run(state, k64m1024Scenario(), QStringLiteral("seq_len"),
        {QStringLiteral("8192"), QStringLiteral("4096")});
}

// Serving (docs/inference.md): Llama 3.1 70B on 4 H100s, 16 sequences of 2,048 + 512 tokens;
// each step moves m between 1 and 2, so the Serving page recomputes its whole curve (batch 1
// to the most that fit, about ten evaluations).
void serving70B(benchmark::State &state)
{
    core::Scenario s;
    s.mode = core::Mode::inference;
    s.tp = 4;
    s.pp = 1;
    s.dp = 1;
    s.microbatches = 1;
    s.microbatchSize = 16;
    s.seqLen = 2048;
    s.outputLen = 512;
    run(state, s);
}

// Steps per tab: 200, enough for a 99th percentile; PARASCOPE_BENCH_STEPS sets fewer for a
// run under callgrind.
benchmark::IterationCount steps()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("PARASCOPE_BENCH_STEPS", &ok);
    return ok && n > 0 ? n : 200;
}

// One benchmark per tab (ui/charts/chart_pages.cpp), labelled with its title.
const int kLastTab = int(ui::chartPageIds().size()) - 1;
const int kServingTab = int(ui::chartPageIds().indexOf(QStringLiteral("serving")));

} // namespace

BENCHMARK(defaultScenario)
    ->DenseRange(0, kLastTab)
    ->Iterations(steps())
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(k64m1024)
    ->DenseRange(0, kLastTab)
    ->Iterations(steps())
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(k64m1024SeqLen)
    ->DenseRange(0, kLastTab)
    ->Iterations(steps())
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(serving70B)
    ->Arg(kServingTab)
    ->Iterations(steps())
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
