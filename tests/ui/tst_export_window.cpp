// File → Export (issue 7): the window renders through the same function as
// `parascope export`, so the same scenario gives the same pixels.
#include "io/presets_io.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/export/chart_export.h"
#include "ui/export/export_actions.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ui;
namespace ce = ui::chart_export;

class TestExportWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static int runCli(const QStringList &arguments)
    {
        QProcess p;
        p.start(PARASCOPE_BIN, QStringList{"export"} + arguments);
        p.waitForFinished(-1);
        if (p.exitCode() != 0)
            qWarning("%s", p.readAllStandardError().constData());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

private Q_SLOTS:
    // Each tab maps to its chart id; Ctrl+E exports the current one.
    void menuAndTabs()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        auto *actions = window.findChild<ExportActions *>();
        QVERIFY(actions);
        QCOMPARE(actions->exportChartAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
        QMenu *file = window.menuBar()->actions().constFirst()->menu();
        QVERIFY(file->actions().contains(actions->exportChartAction()));
        QVERIFY(file->actions().contains(actions->exportAllAction()));

        QSet<QString> seen;
        for (int i = 0; i < window.charts()->count(); ++i) {
            window.charts()->setCurrentIndex(i);
            QWidget *tab = window.charts()->currentWidget();
            const QString id = ce::chartId(actions->currentChart());
            seen.insert(id);
            if (tab == window.memoryChart())
                QCOMPARE(id, "memory");
            else if (tab == window.bubbleChart())
                QCOMPARE(id, "bubble");
            else if (tab == window.timelinePanel())
                QCOMPARE(id, "timeline");
            else if (tab == window.shardingChart())
                QCOMPARE(id, "sharding");
            else if (tab == window.modelSizeChart())
                QCOMPARE(id, "model-size");
        }
        QCOMPARE(seen.size(), ce::allCharts().size());
    }

    // An exported chart carries no controls: the sharding chart's Verify button stays out.
    void noButtonsInImages()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario scenario;
        const core::Report report = ui::chart_export::evaluate(scenario, presets);
        const ui::chart_export::Inputs inputs{scenario, presets, report};
        const auto widget =
            ui::chart_export::createChart(ui::chart_export::Chart::sharding, inputs);
        for (const QPushButton *button : widget->findChildren<QPushButton *>())
            QVERIFY(button->isHidden());
    }

    void sameAsHeadless_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<bool>("caption");
        for (ce::Chart chart : ce::allCharts())
            QTest::addRow("%s", qPrintable(ce::chartId(chart))) << ce::chartId(chart) << true;
        QTest::addRow("memory, no caption") << "memory" << false;
    }

    // Issue 7: window export and headless export are identical pixel for pixel.
    void sameAsHeadless()
    {
        QFETCH(QString, chart);
        QFETCH(bool, caption);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Edited through the document as the controls do.
        QVERIFY(document.setField("schedule", "zb-h1"));
        QVERIFY(document.setField("tp", "4"));
        document.flush();

        ce::Options options;
        options.size = QSize(900, 560);
        options.scale = 2;
        options.caption = caption;
        options.date = QDate(2024, 3, 1);
        const QString fromWindow = m_dir.filePath("window-" + chart + ".png");
        auto *actions = window.findChild<ExportActions *>();
        const auto kind = ce::chartFromId(chart);
        QVERIFY(kind);
        QVERIFY(!actions->write(*kind, options, ce::Format::png, fromWindow));

        const QString headless = m_dir.filePath("cli-" + chart + ".png");
        QStringList arguments{"--chart",        chart,   "--out",  headless,    "--set",
                              "schedule=zb-h1", "--set", "tp=4",   "--size",    "900x560",
                              "--scale",        "2",     "--date", "2024-03-01"};
        if (!caption)
            arguments << "--no-caption";
        QCOMPARE(runCli(arguments), 0);

        const QImage a = QImage(fromWindow).convertToFormat(QImage::Format_ARGB32);
        const QImage b = QImage(headless).convertToFormat(QImage::Format_ARGB32);
        QCOMPARE(a.size(), QSize(1800, 1120));
        QCOMPARE(b.size(), a.size());
        int different = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                different += a.pixel(x, y) != b.pixel(x, y);
        QCOMPARE(different, 0);
    }

    // A dark desktop still exports a light chart.
    void lightOnDarkDesktop()
    {
        const QPalette original = QApplication::palette();
        QPalette dark = original;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::WindowText, Qt::white);
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
        QApplication::setPalette(dark);
        const core::Presets p = io::builtinPresets();
        const core::Scenario scenario;
        const core::Report report = ce::evaluate(scenario, p);
        ce::Options options;
        options.size = QSize(640, 400);
        const QImage image = ce::renderImage(ce::Chart::timeline, {scenario, p, report}, options);
        QApplication::setPalette(original);
        // Corners are background: white, not the desktop's dark grey.
        QCOMPARE(image.pixelColor(2, 2), QColor(Qt::white));
        QCOMPARE(image.pixelColor(image.width() - 3, 2), QColor(Qt::white));
    }
};

QTEST_MAIN(TestExportWindow)
#include "tst_export_window.moc"
