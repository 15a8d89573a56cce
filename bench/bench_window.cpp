// "Set a field → visible charts repainted" (issue 5): the time a slider step
// costs the window, per chart tab, for the default scenario and for K=64, m=1024.
#include "io/presets_io.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QApplication>
#include <QTabWidget>
#include <benchmark/benchmark.h>

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

// Alternates m between two values so that every iteration really changes the scenario.
void run(benchmark::State &state, const core::Scenario &start)
{
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
    const int m = start.microbatches;
    int i = 0;
    for (auto _ : state) {
        document.setField(QStringLiteral("microbatches"),
                          QString::number(m + (i++ % 2) * start.pp));
        document.flush();
        QApplication::processEvents(); // scene updates of the charts
        window.repaint();              // paint what is on screen, now
    }
}

void defaultScenario(benchmark::State &state)
{
    run(state, core::Scenario{});
}

void k64m1024(benchmark::State &state)
{
    core::Scenario s;
    s.model = "llama-3.1-405b"; // 126 layers: room for 64 stages
    s.pp = 64;
    s.microbatches = 1024;
    s.tp = 8;
    s.dp = 1;
    run(state, s);
}

} // namespace

BENCHMARK(defaultScenario)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(k64m1024)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
