// The chart pages (ui/charts/chart_pages.cpp): one table that the window's tabs, the
// formula panel, File → Export and `parascope export --chart` all take, and redraws of
// only what an edit concerns, through the real window offscreen (docs/DESIGN.md §2, 7, 16).
#include "io/presets_io.h"
#include "modal_answerer.h"
#include "run_parascope.h"
#include "test_files.h"
#include "test_images.h"
#include "ui/charts/chart_pages.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/export/chart_export.h"
#include "ui/export/export_actions.h"
#include "ui/formula_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "widget_helpers.h"

#include <QDialog>
#include <QFileDialog>
#include <QImage>
#include <QLineEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ui;

class TestChartPages : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    // The tabs, their mnemonics and ids as shipped (README, "Export for slides"): users type
    // the ids and examples name them, so a new table must keep them.
    void tabsAsShipped()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const QList<std::pair<QString, QString>> shipped{
            {"memory", "Stage memor&y"},      {"bubble", "B&ubble"},
            {"timeline", "T&imeline"},        {"sharding", "S&harding"},
            {"model-size", "Model &weights"},
        };
        QCOMPARE(window.charts()->count(), shipped.size());
        for (int i = 0; i < window.charts()->count(); ++i) {
            window.charts()->setCurrentIndex(i);
            QCOMPARE(window.currentPage()->id(), shipped[i].first);
            QCOMPARE(window.charts()->tabText(i), shipped[i].second);
        }
        QCOMPARE(chartPageIds(),
                 QStringList({"memory", "bubble", "timeline", "sharding", "model-size"}));
    }

    void everyPage_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString &id : chartPageIds())
            QTest::addRow("%s", qPrintable(id)) << id;
    }

    // Every page of the table is a tab with its title, shows formulas with its numbers, and
    // `parascope export --chart ID` draws it into a PNG that is not blank.
    void everyPage()
    {
        QFETCH(QString, id);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const ChartPage *page = window.page(id);
        QVERIFY(page);
        QCOMPARE(page->id(), id);
        window.showChart(id);
        QCOMPARE(window.currentPage(), page);
        QCOMPARE(window.charts()->tabText(window.charts()->currentIndex()), page->title());
        QVERIFY(window.charts()->currentWidget()->isVisible());
        QVERIFY(!page->subject().isEmpty());
        // Each page's formulas cite where they come from, with the scenario's numbers.
        const QString formulas = window.formulas()->toPlainText();
        QVERIFY2(formulas.contains(QStringLiteral("=")), qPrintable(formulas));
        QVERIFY2(formulas.size() > 100, qPrintable(formulas));

        const QString png = m_dir.filePath(id + ".png");
        const ParascopeRun cli = runParascope(
            {"export", "--chart", id, "--out", png, "--size", "640x400", "--no-caption"}, 60000);
        QVERIFY(!cli.timedOut);
        QVERIFY2(cli.status == 0, qPrintable(cli.err));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(640, 400));
        QVERIFY2(distinctColours(image) >= 20, qPrintable(QString::number(distinctColours(image))));
    }

    // An unknown id is no page: nothing falls back to another chart.
    void unknownIdIsNoPage()
    {
        QVERIFY(!createChartPage(QStringLiteral("pie")));
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(!window.page(QStringLiteral("pie")));
        window.showChart(QStringLiteral("pie"));
        QCOMPARE(window.currentPage()->id(), "memory");
    }

    // Ctrl+E (File → Export Chart…) exports the chart on screen, whichever tab that is: the
    // SVG it writes carries the page's id as its title, and the file name offered is the id.
    void ctrlEExportsTheTabOnScreen_data() { everyPage_data(); }
    void ctrlEExportsTheTabOnScreen()
    {
        QFETCH(QString, id);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart(id);
        auto *actions = window.findChild<ExportActions *>();
        QVERIFY(actions);
        QCOMPARE(actions->exportChartAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));

        const QString path = m_dir.filePath("tab-" + id + ".svg");
        QString offered;
        ModalAnswerer answerer([&](QWidget *modal) {
            if (auto *options = qobject_cast<ExportOptionsDialog *>(modal)) {
                options->findChild<QSpinBox *>("width")->setValue(640);
                options->findChild<QSpinBox *>("height")->setValue(400);
                options->accept();
            } else if (auto *files = qobject_cast<QFileDialog *>(modal)) {
                auto *name = files->findChild<QLineEdit *>("fileNameEdit");
                offered = name->text();
                files->setDirectory(QFileInfo(path).absolutePath());
                name->setText(QFileInfo(path).fileName());
                static_cast<QDialog *>(files)->accept();
            }
        });
        actions->exportChartAction()->trigger();
        QVERIFY2(answerer.messages.isEmpty(), qPrintable(answerer.messages.join('|')));
        QCOMPARE(offered, id + ".png");
        const QByteArray svg = readFile(path);
        QVERIFY2(svg.contains("<title>" + id.toUtf8() + "</title>"), svg.left(600).constData());
    }

    // An edit redraws the page on screen and only marks the hidden pages that depend on the
    // key; a hidden page is redrawn when its tab is shown.
    void hiddenPagesRedrawWhenShown()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *memory = window.chart<StageMemoryChart>();
        auto *weights = window.chart<ModelSizeChart>();
        QCOMPARE(window.currentPage()->id(), "memory");
        QCOMPARE(memory->categories().size(), 4); // K = 4 (the default scenario)

        // The model-weights tab, hidden, is not drawn for a key it depends on.
        window.showChart("model-size");
        QCOMPARE(weights->highlighted(), "bf16");
        window.showChart("memory");
        setAndEvaluate(document, "precision", "fp8");
        QCOMPARE(weights->highlighted(), "bf16");
        setAndEvaluate(document, "pp", "2");
        QCOMPARE(memory->categories().size(), 2); // on screen: drawn at once
        window.showChart("model-size");
        QCOMPARE(weights->highlighted(), "fp8");
        // …and the memory tab, hidden now, catches up with K when it is shown.
        setAndEvaluate(document, "pp", "8");
        QCOMPARE(memory->categories().size(), 2);
        window.showChart("memory");
        QCOMPARE(memory->categories().size(), 8);
    }

    // The sharding page declares the keys of its layer: a full-size check's note stays on
    // screen while another key changes, and goes (the page redrawn) when the layer changes.
    void shardingRedrawsForItsKeysOnly()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart("sharding");
        auto *sharding = window.chart<ShardingChart>();
        sharding->setNote(QStringLiteral("Full-size check done in 1 s."));
        setAndEvaluate(document, "microbatches", "32");
        setAndEvaluate(document, "zero", "2");
        QVERIFY(sharding->summary().contains("Full-size check done"));
        setAndEvaluate(document, "tp", "4");
        QVERIFY(!sharding->summary().contains("Full-size check done"));
    }
};

QTEST_MAIN(TestChartPages)
#include "tst_chart_pages.moc"
