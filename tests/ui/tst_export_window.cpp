// File → Export (docs/DESIGN.md §4): the window renders through the same function as
// `parascope export`, so the same scenario gives the same pixels.
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/presets_io.h"
#include "modal_answerer.h"
#include "run_parascope.h"
#include "test_files.h"
#include "test_scenarios.h"
#include "ui/charts/bar_labels.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/export/chart_export.h"
#include "ui/export/export_actions.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>
#include <cerrno>

using namespace ui;
namespace ce = ui::chart_export;

class TestExportWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // Chart `id` of `scenario` exported at `size` with its caption, and the height of the
    // caption's strip at the image's bottom (its lines and their padding, under a hairline).
    struct Exported
    {
        QImage image;
        int strip = 0;
    };
    static Exported exported(const QString &id, const core::Scenario &scenario, QSize size)
    {
        const core::Presets p = io::builtinPresets();
        const core::Report report = ce::evaluate(scenario, p);
        ce::Options options;
        options.size = size;
        options.date = QDate(2026, 12, 7);
        return {ce::renderImage(*createChartPage(id), {scenario, p, report}, options)
                    .convertToFormat(QImage::Format_RGB32),
                ce::captionHeight({scenario, p, report}, options)};
    }

    // `parascope export` with `arguments`: its exit status, -1 when it crashed.
    static int runCli(const QStringList &arguments)
    {
        const ParascopeRun r = runParascope(QStringList{"export"} + arguments);
        if (r.status != 0)
            qWarning("%s", qPrintable(r.err));
        return r.status;
    }

    // Triggers `action` as a user would, answering its dialogs: the options at 640×400,
    // then `path` in the file dialog (a folder for Export All), then "replace it?" with Yes.
    // Returns what the message boxes said.
    static QStringList exportAs(QAction *action, const QString &path)
    {
        ModalAnswerer answerer([path](QWidget *modal) {
            if (auto *options = qobject_cast<ExportOptionsDialog *>(modal)) {
                options->findChild<QSpinBox *>("width")->setValue(640);
                options->findChild<QSpinBox *>("height")->setValue(400);
                options->accept();
            } else if (auto *files = qobject_cast<QFileDialog *>(modal)) {
                if (files->fileMode() == QFileDialog::Directory) {
                    files->setDirectory(path);
                } else {
                    // As typed: selectFile() leaves alone the name field a user types in.
                    files->setDirectory(QFileInfo(path).absolutePath());
                    files->findChild<QLineEdit *>("fileNameEdit")
                        ->setText(QFileInfo(path).fileName());
                }
                static_cast<QDialog *>(files)->accept(); // QFileDialog::accept() is protected
            }
        });
        action->trigger();
        return answerer.messages;
    }

    // exportAs while every write past 2,048 bytes of a file fails with EFBIG, as a full disk
    // fails with ENOSPC.
    static QStringList exportWhileWritesFail(QAction *action, const QString &path)
    {
        const FileSizeLimit limit(2048);
        if (!limit.ok())
            return {"setrlimit failed"};
        return exportAs(action, path);
    }

    // Draws `report` into a chart of `T` shown at a slide's size and laid out.
    template <typename Chart> static std::unique_ptr<Chart> shown(const core::Report &report)
    {
        auto chart = std::make_unique<Chart>();
        chart->setReport(report);
        chart->resize(1400, 860);
        chart->show();
        if (!QTest::qWaitForWindowExposed(chart.get()))
            return nullptr;
        QTest::qWait(50); // the labels are placed once the plot is laid out (queued)
        return chart;
    }

    // No label touches a line: its box is wholly above or below each line's y, with room.
    static bool clearOfLines(const BarLabels &labels, const QList<qreal> &lines)
    {
        for (const QRectF &rect : labels.rects())
            for (qreal value : lines) {
                const qreal y = labels.lineY(value);
                if (rect.bottom() + 1 > y && rect.top() - 1 < y)
                    return false;
            }
        return true;
    }

private Q_SLOTS:
    // Issue #18 §5: chart values as people write them, never "1.62e+03".
    void chartNumbers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("Llama 3.1 405B in FP32, GB") << 1623.4 << "1,623";
        QTest::addRow("Llama 3.1 70B in FP32, GB") << 282.21 << "282";
        QTest::addRow("70B in FP8") << 70.56 << "70.6";
        QTest::addRow("a step in seconds") << 2.356 << "2.36";
        QTest::addRow("small") << 0.1234 << "0.123";
        QTest::addRow("zero") << 0.0 << "0";
        QTest::addRow("millions") << 1234567.8 << "1,234,568";
        QTest::addRow("negative") << -1500.0 << "-1,500";
    }
    void chartNumbers()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(chartNumber(value), text);
    }

    // Model size of Llama 3.1 405B: FP32 is 1,623 GB, written so, above its bar and clear of
    // the capacity lines (issue #18 §5, "1.62e+03").
    void modelSizeLabelsAreNumbers()
    {
        const core::Presets presets = io::builtinPresets();
        core::Scenario scenario;
        QVERIFY(!core::setField(scenario, "model", "llama-3.1-405b"));
        const core::Report report = ce::evaluate(scenario, presets, ChartNeeds::report);
        const auto chart = shown<ModelSizeChart>(report);
        QVERIFY(chart);
        const QStringList texts = chart->valueLabels()->texts();
        QCOMPARE(texts.size(), chart->values().size());
        for (qsizetype i = 0; i < texts.size(); ++i) {
            QVERIFY2(!texts[i].contains(u'e'), qPrintable(texts[i]));
            QCOMPARE(texts[i], chartNumber(chart->values()[i]));
        }
        QCOMPARE(texts.first(), "1,623"); // FP32: 405.85e9 parameters × 4 bytes
        QVERIFY(clearOfLines(*chart->valueLabels(),
                             {chart->deviceCapacityGb(), chart->groupCapacityGb()}));
    }

    // Each stage's total above its bar, equal to the report's, and never on the capacity line:
    // at T=4, m=112 stage 3 needs 83.8 GB of 85.9, so its label would sit on the line.
    void stageTotalsClearOfCapacity_data()
    {
        QTest::addColumn<int>("microbatches");
        QTest::addRow("far below capacity") << 16;
        QTest::addRow("stage 3 just under capacity") << 112;
        QTest::addRow("stage 3 over capacity") << 128;
        // One stage with its first 20 layers' activations offloaded (docs/activations.md,
        // "Offloaded layers"): the label adds what the host holds.
        QTest::addRow("one stage, 20 layers offloaded") << -20;
    }
    void stageTotalsClearOfCapacity()
    {
        QFETCH(int, microbatches);
        const core::Presets presets = io::builtinPresets();
        core::Scenario scenario;
        QVERIFY(!core::setField(scenario, "tp", "4"));
        if (microbatches < 0) {
            for (const auto &[key, value] :
                 {std::pair{"framework", "megatron"}, std::pair{"pp", "1"},
                  std::pair{"recompute", "none"}, std::pair{"microbatches", "4"}})
                QVERIFY(!core::setField(scenario, key, value));
            QVERIFY(!core::setField(scenario, "offload_layers", std::to_string(-microbatches)));
        } else {
            QVERIFY(!core::setField(scenario, "microbatches", std::to_string(microbatches)));
        }
        const core::Report report = ce::evaluate(scenario, presets, ChartNeeds::report);
        const auto chart = shown<StageMemoryChart>(report);
        QVERIFY(chart);
        const BarLabels &totals = *chart->totals();
        QCOMPARE(totals.texts().size(), qsizetype(report.stages.size()));
        for (std::size_t i = 0; i < report.stages.size(); ++i) {
            const double gb = double(report.stages[i].totalBytes) / 1e9;
            const std::int64_t host = report.stages[i].offloadedBytes;
            QCOMPARE(host > 0, microbatches < 0);
            QCOMPARE(totals.texts()[qsizetype(i)],
                     host > 0 ? QStringLiteral("%1, + %2 on the host")
                                    .arg(chartNumber(gb), chartNumber(double(host) / 1e9))
                              : chartNumber(gb));
            QVERIFY(totals.rects()[qsizetype(i)].bottom() <= totals.lineY(gb)); // above its bar
        }
        QVERIFY(clearOfLines(totals, {chart->capacityGb()}));
    }

    // The caption states the keys that shaped the numbers: in training the schedule's, in
    // inference (forwards only, no ZeRO or schedule) the batch and the requests' lengths.
    void captionNamesTheModesKeys_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("expected");
        QTest::addRow("training") << ""
                                  << "Llama 3.1 70B on NVIDIA H100 SXM · BF16 training · T=8 K=4 "
                                     "D=2 (64 devices) · m=16 · 1f1b · ZeRO 1 — Parascope";
        QTest::addRow("interleaved: its v")
            << "schedule=interleaved,virtual_stages=2"
            << "Llama 3.1 70B on NVIDIA H100 SXM · BF16 training · T=8 K=4 D=2 (64 devices) · "
               "m=16 · interleaved v=2 · ZeRO 1 — Parascope";
        // DualPipeV always runs two chunks a stage, whatever virtual_stages says.
        QTest::addRow("dualpipev: its two chunks")
            << "schedule=dualpipev,virtual_stages=3"
            << "Llama 3.1 70B on NVIDIA H100 SXM · BF16 training · T=8 K=4 D=2 (64 devices) · "
               "m=16 · dualpipev (2 chunks a stage) · ZeRO 1 — Parascope";
        // DualPipe's two are its stage of each direction (dualpipe.py), whatever v says.
        QTest::addRow("dualpipe: a chunk each way")
            << "schedule=dualpipe,virtual_stages=3"
            << "Llama 3.1 70B on NVIDIA H100 SXM · BF16 training · T=8 K=4 D=2 (64 devices) · "
               "m=16 · dualpipe (2 chunks a stage, one each way) · ZeRO 1 — Parascope";
        QTest::addRow("inference")
            << "mode=inference,tp=2,pp=1,dp=1,microbatches=1,microbatch_size=16,seq_len=1024,"
               "output_len=256"
            << "Llama 3.1 70B on NVIDIA H100 SXM · BF16 inference · T=2 K=1 D=1 (2 devices) · "
               "batch 16 (m=1 b=16) · 1024 + 256 tokens — Parascope";
    }
    void captionNamesTheModesKeys()
    {
        QFETCH(QString, settings);
        QFETCH(QString, expected);
        const core::Scenario s =
            settings.isEmpty() ? core::Scenario{} : scenario(settings.split(QLatin1Char(',')));
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        const QString caption = chart_export::captionText({s, presets, r}, QDate(2026, 12, 2));
        QVERIFY2(caption.startsWith(expected), qPrintable(caption));
    }

    // A caption too wide for the image goes on a second line, the program and date kept, the
    // scenario's items whole and the last of them left out where two lines are short (issue:
    // "at 800×500 the caption is cut mid-word"; until two lines, the date and version were
    // what an 800 × 500 export lost).
    void captionKeepsWholeItems_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("lines");
        QTest::addColumn<bool>("everyItem");
        QTest::addRow("1600 px: all of it") << 1600 << 1 << true;
        QTest::addRow("800 px, an 800 × 500 export") << 800 - 24 << 2 << true;
        QTest::addRow("500 px") << 500 << 2 << true;
        QTest::addRow("300 px") << 300 << 2 << false;
    }
    void captionKeepsWholeItems()
    {
        QFETCH(int, width);
        QFETCH(int, lines);
        QFETCH(bool, everyItem);
        const QString caption = QStringLiteral(
            "Llama 3.1 70B on NVIDIA H100 SXM · BF16 training · T=8 K=4 D=2 (64 devices) · "
            "m=16 · 1f1b · ZeRO 1 — Parascope 0.1.0, 2026-12-02");
        const QFontMetrics metrics(QApplication::font());
        const QStringList shown = chart_export::captionLines(caption, metrics, width);
        QCOMPARE(shown.size(), lines);
        for (const QString &line : shown) {
            QVERIFY2(metrics.horizontalAdvance(line) <= width, qPrintable(line));
            QVERIFY2(!line.contains(u'…'), qPrintable(line));
        }
        QVERIFY2(shown.first().startsWith("Llama 3.1 70B on NVIDIA H100 SXM"),
                 qPrintable(shown.first()));
        QVERIFY2(shown.last().endsWith("Parascope 0.1.0, 2026-12-02"), qPrintable(shown.last()));
        // The first line is the caption's first items, whole; the second goes on from there.
        QVERIFY2(caption.startsWith(shown.first()), qPrintable(shown.first()));
        if (lines == 1)
            return;
        // After the first line's last item: more items, or the program and date alone.
        const QString rest = caption.mid(shown.first().size());
        const QString joint = rest.left(3);
        QVERIFY2(joint == QStringLiteral(" · ") || joint == QStringLiteral(" — "),
                 qPrintable(rest));
        if (everyItem)
            QCOMPARE(joint + shown.last(), rest);
        else // the last items left out, the ones kept whole and in order
            QVERIFY2(shown.last() == QStringLiteral("Parascope 0.1.0, 2026-12-02") ||
                         rest.startsWith(QStringLiteral(" · ") +
                                         shown.last().section(QStringLiteral(" — "), 0, 0) +
                                         QStringLiteral(" · ")),
                     qPrintable(shown.last()));
    }

    // Every label of the export dialog shows its text, not a literal "&": each has a buddy
    // that its mnemonic focuses.
    void exportDialogLabelsHaveBuddies()
    {
        ExportOptionsDialog dialog(chart_export::Options{}, chart_export::Format::png, true);
        const auto labels = dialog.findChildren<QLabel *>();
        int mnemonics = 0;
        for (const QLabel *label : labels)
            if (label->text().contains(u'&')) {
                ++mnemonics;
                QVERIFY2(label->buddy(), qPrintable(label->text()));
            }
        QVERIFY(mnemonics >= 3); // size, scale, format
    }

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
            const QString id = actions->currentPage()->id();
            seen.insert(id);
            if (tab == window.chart<StageMemoryChart>())
                QCOMPARE(id, "memory");
            else if (tab == window.chart<BubbleChart>())
                QCOMPARE(id, "bubble");
            else if (tab == window.chart<TimelinePanel>())
                QCOMPARE(id, "timeline");
            else if (tab == window.chart<StepTimeChart>())
                QCOMPARE(id, "step-time");
            else if (tab == window.chart<ShardingChart>())
                QCOMPARE(id, "sharding");
            else if (tab == window.chart<ModelSizeChart>())
                QCOMPARE(id, "model-size");
        }
        QCOMPARE(seen.size(), chartPageIds().size());
    }

    // An exported chart carries no controls: the sharding chart's Verify button stays out.
    void noButtonsInImages()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario scenario;
        const core::Report report = ui::chart_export::evaluate(scenario, presets);
        const ui::chart_export::Inputs inputs{scenario, presets, report};
        const auto widget = createChartPage("sharding")->createImage(inputs, nullptr);
        for (const QPushButton *button : widget->findChildren<QPushButton *>())
            QVERIFY(button->isHidden());
    }

    void sameAsHeadless_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<bool>("caption");
        for (const QString &id : chartPageIds())
            QTest::addRow("%s", qPrintable(id)) << id << true;
        QTest::addRow("memory, no caption") << "memory" << false;
    }

    // docs/DESIGN.md §4: window export and headless export are identical pixel for pixel.
    void sameAsHeadless()
    {
        QFETCH(QString, chart);
        QFETCH(bool, caption);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Edited through the document as the controls do; serving draws in inference only.
        const bool serving = chart == QLatin1String("serving");
        QVERIFY(document.setField("schedule", "zb-h1"));
        QVERIFY(document.setField("tp", "4"));
        if (serving)
            QVERIFY(document.setField("mode", "inference"));
        document.flush();

        ce::Options options;
        options.size = QSize(900, 560);
        options.scale = 2;
        options.caption = caption;
        options.date = QDate(2024, 3, 1);
        const QString fromWindow = m_dir.filePath("window-" + chart + ".png");
        auto *actions = window.findChild<ExportActions *>();
        const ChartPage *page = window.page(chart);
        QVERIFY(page);
        QVERIFY(!actions->write(*page, options, ce::Format::png, fromWindow));

        const QString headless = m_dir.filePath("cli-" + chart + ".png");
        QStringList arguments{"--chart",        chart,   "--out",  headless,    "--set",
                              "schedule=zb-h1", "--set", "tp=4",   "--size",    "900x560",
                              "--scale",        "2",     "--date", "2024-03-01"};
        if (!caption)
            arguments << "--no-caption";
        if (serving)
            arguments << "--set"
                      << "mode=inference";
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

    void dataSameAsHeadless_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QString>("suffix");
        for (const QString &id : chartPageIds())
            for (const char *suffix : {"csv", "json"})
                QTest::addRow("%s.%s", qPrintable(id), suffix) << id << suffix;
    }

    // Issue #18 §5: File → Export Chart Data… on a tab writes the file `parascope export`
    // writes, byte for byte: one writer for both.
    void dataSameAsHeadless()
    {
        QFETCH(QString, chart);
        QFETCH(QString, suffix);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(document.setField("schedule", "zb-h1"));
        QVERIFY(document.setField("tp", "4"));
        const bool serving = chart == QLatin1String("serving"); // drawn in inference only
        if (serving)
            QVERIFY(document.setField("mode", "inference"));
        document.flush();
        auto *actions = window.findChild<ExportActions *>();
        QMenu *file = window.menuBar()->actions().constFirst()->menu();
        QVERIFY(file->actions().contains(actions->exportDataAction()));
        for (int i = 0; i < window.charts()->count(); ++i) {
            window.charts()->setCurrentIndex(i);
            if (actions->currentPage()->id() == chart)
                break;
        }
        QCOMPARE(actions->currentPage()->id(), chart);

        const QString fromWindow = m_dir.filePath("window-data-" + chart + "." + suffix);
        ModalAnswerer answerer([fromWindow](QWidget *modal) {
            if (auto *files = qobject_cast<QFileDialog *>(modal)) {
                files->setDirectory(QFileInfo(fromWindow).absolutePath());
                files->findChild<QLineEdit *>("fileNameEdit")
                    ->setText(QFileInfo(fromWindow).fileName());
                static_cast<QDialog *>(files)->accept();
            }
        });
        actions->exportDataAction()->trigger();
        QVERIFY2(answerer.messages.isEmpty(), qPrintable(answerer.messages.join('|')));

        const QString headless = m_dir.filePath("cli-data-" + chart + "." + suffix);
        QStringList arguments{"--chart",        chart,   "--out", headless, "--set",
                              "schedule=zb-h1", "--set", "tp=4"};
        if (serving)
            arguments << "--set"
                      << "mode=inference";
        QCOMPARE(runCli(arguments), 0);
        QFile a(fromWindow);
        QFile b(headless);
        QVERIFY(a.open(QIODevice::ReadOnly));
        QVERIFY(b.open(QIODevice::ReadOnly));
        const QByteArray bytes = a.readAll();
        QVERIFY(bytes.size() > 50);
        QCOMPARE(bytes, b.readAll());
    }

    void failedExportSaysWhy_data()
    {
        QTest::addColumn<bool>("all");
        QTest::addColumn<QString>("name");
        QTest::addRow("Export Chart, PNG") << false << "memory.png";
        QTest::addRow("Export Chart, SVG") << false << "memory.svg";
        QTest::addRow("Export All Charts") << true << "all";
    }

    // File → Export through its menu action, its dialogs answered: a write that fails
    // shows a message naming the path and the system's reason, and leaves the old
    // files byte for byte, with no temporary file beside them.
    void failedExportSaysWhy()
    {
        QFETCH(bool, all);
        QFETCH(QString, name);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart("memory");
        auto *actions = window.findChild<ExportActions *>();
        const QDir dir(m_dir.filePath("full-" + name));
        QVERIFY(dir.mkpath("."));
        ce::Options options;
        options.size = QSize(640, 400);
        const auto format = all ? ce::Format::png : *ce::formatOf(name);
        QString path = dir.filePath(name);
        if (all) {
            path = dir.path();
            for (const auto &page : createChartPages())
                QVERIFY(!actions->write(*page, options, format,
                                        ce::chartPath(dir.path(), *page, ce::Format::png)));
        } else {
            QVERIFY(!actions->write(*window.page("memory"), options, format, path));
        }
        const QMap<QString, QByteArray> before = filesIn(dir.path());
        QCOMPARE(before.size(), all ? chartPageIds().size() : 1);
        QVERIFY(document.setField("tp", "4")); // a different chart to write

        const QStringList messages = exportWhileWritesFail(
            all ? actions->exportAllAction() : actions->exportChartAction(), path);
        QVERIFY(!messages.isEmpty());
        const QString shown = messages.constLast();
        QVERIFY2(shown.startsWith("Export failed"), qPrintable(messages.join('|')));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(path)), qPrintable(shown));
        QVERIFY2(shown.contains(systemReason(EFBIG)), qPrintable(shown));
        const QMap<QString, QByteArray> after = filesIn(dir.path());
        QCOMPARE(after.keys(), before.keys());
        for (auto it = before.cbegin(); it != before.cend(); ++it)
            QVERIFY2(after.value(it.key()) == it.value(), qPrintable(it.key()));
    }

    // A chart with nothing to draw for the scenario (Serving, for training) is not written as
    // an image of its message: Export All Charts leaves it out and the status bar says which
    // and why; Export Chart and Export Chart Data on its tab say so and write nothing. In
    // inference it is written with the rest.
    void chartsWithNothingToDrawAreLeftOut()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *actions = window.findChild<ExportActions *>();
        const QDir training(m_dir.filePath("left-out-training"));
        QVERIFY(training.mkpath("."));
        QStringList messages = exportAs(actions->exportAllAction(), training.path());
        QVERIFY2(messages.isEmpty(), qPrintable(messages.join('|')));
        QStringList files = training.entryList(QDir::Files);
        QCOMPARE(files.size(), chartPageIds().size() - 1);
        QVERIFY2(!files.contains("serving.png"), qPrintable(files.join(' ')));
        const QString status = window.statusBar()->currentMessage();
        QVERIFY2(status.contains("Left out, with nothing to draw: Serving (Serving is for "
                                 "inference: set Mode to inference)"),
                 qPrintable(status));

        window.showChart("serving");
        for (QAction *action : {actions->exportChartAction(), actions->exportDataAction()}) {
            ModalAnswerer answerer;
            action->trigger();
            QCOMPARE(answerer.messages.size(), 1); // no options or file dialog after it
            QVERIFY2(answerer.messages[0].startsWith("Nothing to export: The Serving chart has "
                                                     "nothing to draw"),
                     qPrintable(answerer.messages[0]));
        }

        QVERIFY(document.setField("mode", "inference"));
        const QDir inference(m_dir.filePath("left-out-inference"));
        QVERIFY(inference.mkpath("."));
        messages = exportAs(actions->exportAllAction(), inference.path());
        QVERIFY2(messages.isEmpty(), qPrintable(messages.join('|')));
        files = inference.entryList(QDir::Files);
        QCOMPARE(files.size(), chartPageIds().size());
        QVERIFY(files.contains("serving.png"));
    }

    // The Sharding page at an export's size gives its table the room the table takes, not
    // more: laid out for a width the page no longer had, it took half the image and left the
    // bars a strip and a blank band below the table.
    void shardingTableTakesItsOwnRoom()
    {
        const core::Presets p = io::builtinPresets();
        const core::Scenario scenario;
        const core::Report report = ce::evaluate(scenario, p);
        QWidget container;
        container.setAttribute(Qt::WA_DontShowOnScreen);
        auto *layout = new QVBoxLayout(&container);
        QWidget *chart =
            createChartPage("sharding")->createImage({scenario, p, report}, &container).release();
        layout->addWidget(chart);
        container.resize(1600, 960);
        container.show();
        QCoreApplication::sendPostedEvents();
        QCoreApplication::sendPostedEvents();
        auto *scroll = chart->findChild<QScrollArea *>(QStringLiteral("shardingSummaryScroll"));
        auto *summary = chart->findChild<QLabel *>(QStringLiteral("shardingSummary"));
        QVERIFY(scroll && summary);
        const int need = summary->heightForWidth(scroll->viewport()->width());
        QVERIFY2(scroll->height() <= need + summary->fontMetrics().height(),
                 qPrintable(QStringLiteral("%1 px for %2").arg(scroll->height()).arg(need)));
    }

    // The chart keeps above the caption strip and inside the image at the sizes export
    // accepts: laid out at its own minimum (Memory over the step's is 360 × 220) a chart ran
    // under the caption of a 700 × 230 image, its time axis's title printed across the
    // caption's text, and past the right edge of a 320 × 200 one. The strip holds the caption's
    // grey text on white and nothing of the chart's: no colour and no black.
    void chartStaysAboveTheCaption_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QSize>("size");
        for (const QString &id : chartPageIds())
            if (id != QLatin1String("serving")) { // nothing to draw in training
                QTest::addRow("%s, smallest", qPrintable(id)) << id << ce::kMinSize;
                QTest::addRow("%s, 1600 x 400", qPrintable(id))
                    << id << QSize(1600, ce::kMinSize.height());
                QTest::addRow("%s, 700 x 230", qPrintable(id)) << id << QSize(700, 230);
            }
    }
    void chartStaysAboveTheCaption()
    {
        QFETCH(QString, id);
        QFETCH(QSize, size);
        const auto [image, strip] = exported(id, core::Scenario{}, size);
        QCOMPARE(image.size(), size);
        for (int y = size.height() - strip + 1; y < size.height(); ++y)
            for (int x = 0; x < size.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                QVERIFY2(c.red() == c.green() && c.green() == c.blue() && c.red() >= 0x40,
                         qPrintable(QStringLiteral("%1 at %2,%3 in the caption strip")
                                        .arg(c.name())
                                        .arg(x)
                                        .arg(y)));
            }
    }

    // Every chart reaches to within the export's margin and a line of text of the image's top
    // and of its caption: the Qt Charts ones kept the window's margins and frame, about 40
    // pixels blank above the title and under the legend of a 640 × 400 image.
    void chartFillsTheImage_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QSize>("size");
        for (const QString &id : chartPageIds()) {
            QTest::addRow("%s, smallest", qPrintable(id)) << id << ce::kMinSize;
            QTest::addRow("%s, 1600 x 1000", qPrintable(id)) << id << QSize(1600, 1000);
        }
    }
    void chartFillsTheImage()
    {
        QFETCH(QString, id);
        QFETCH(QSize, size);
        // Serving draws inference only.
        const Exported e =
            exported(id,
                     id == QLatin1String("serving") ? ::scenario(QStringList{"mode=inference"})
                                                    : core::Scenario{},
                     size);
        const QImage &image = e.image; // not a structured binding: clang 14 cannot capture one
        const int strip = e.strip;
        const auto blankRow = [&](int y) {
            for (int x = 0; x < size.width(); ++x)
                if (image.pixel(x, y) != qRgb(255, 255, 255))
                    return false;
            return true;
        };
        int top = 0;
        while (top < size.height() && blankRow(top))
            ++top;
        int bottom = size.height() - strip - 1;
        while (bottom > top && blankRow(bottom))
            --bottom;
        const int blankUnder = size.height() - strip - 1 - bottom;
        // The export's margin (12 pixels at 1 × text), the chart's (4) and a line of its text.
        QFont text = QApplication::font();
        text.setPointSizeF(text.pointSizeF() * ce::textScale(size));
        const double most = (12 + 4) * ce::textScale(size) + QFontMetrics(text).height();
        const QString what =
            QStringLiteral("%1 blank rows above the chart, %2 under it, %3 at most")
                .arg(top)
                .arg(blankUnder)
                .arg(most);
        QVERIFY2(top <= most, qPrintable(what));
        QVERIFY2(blankUnder <= most, qPrintable(what));
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
        const QImage image =
            ce::renderImage(*createChartPage("timeline"), {scenario, p, report}, options);
        QApplication::setPalette(original);
        // Corners are background: white, not the desktop's dark grey.
        QCOMPARE(image.pixelColor(2, 2), QColor(Qt::white));
        QCOMPARE(image.pixelColor(image.width() - 3, 2), QColor(Qt::white));
    }
};

QTEST_MAIN(TestExportWindow)
#include "tst_export_window.moc"
