// `parascope export` (docs/DESIGN.md §4), run as users run it: the real binary, no display.
#include "run_parascope.h"
#include "test_files.h"
#include "test_images.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <cerrno>
#include <cstdlib>
#include <sys/resource.h>

class TestExportCli : public QObject
{
    Q_OBJECT

private:
    using Run = ParascopeRun;

    QTemporaryDir m_dir;

    static Run run(const QStringList &arguments)
    {
        return runParascope(QStringList{"export"} + arguments);
    }

    // `parascope export` in a process whose writes fail past `limit` bytes of a file,
    // with EFBIG ("File too large"): a real system error on a real file, without root,
    // as a nearly full disk gives ENOSPC.
    static Run runWithFileSizeLimit(const QStringList &arguments, rlim_t limit)
    {
        return runParascope(QStringList{"export"} + arguments, -1,
                            [limit] { limitFileSize(limit); });
    }

    // The caption strip starts with a light grey hairline across the whole width.
    static bool hasCaptionRule(const QImage &image)
    {
        const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
        for (int y = rgb.height() - 1; y >= rgb.height() * 9 / 10; --y) {
            bool rule = true;
            for (int x = 0; x < rgb.width() && rule; ++x)
                rule = (rgb.pixel(x, y) & 0xFFFFFF) == 0xCCCCCC;
            if (rule)
                return true;
        }
        return false;
    }

    static QString svgText(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        QXmlStreamReader xml(&file);
        QString text;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isCharacters())
                text += xml.text().toString() + QLatin1Char('\n');
        }
        if (xml.hasError())
            return QStringLiteral("XML error: ") + xml.errorString();
        return text;
    }

private Q_SLOTS:
    void everyChart_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QString>("axisTitle");
        // The axis titles each chart draws (ui/charts).
        QTest::addRow("bubble") << "bubble"
                                << "Micro-batches per step, m (log scale)";
        QTest::addRow("memory") << "memory"
                                << "Memory per device (GB)";
        QTest::addRow("timeline") << "timeline"
                                  << "Stage 0";
        QTest::addRow("memory-over-step") << "memory-over-step"
                                          << "Memory of one device (GB)";
        QTest::addRow("step-time") << "step-time"
                                   << "Time per step (s)";
        // Its plot shares the image with the table: at slide-sized text the title is shortened
        // (chart_style::keepAxesReadable).
        QTest::addRow("sharding") << "sharding"
                                  << "Sent (MB)";
        QTest::addRow("model-size") << "model-size"
                                    << "Weights (GB)";
    }

    // docs/DESIGN.md §4: every chart exports to PNG and SVG at the requested size.
    void everyChart()
    {
        QFETCH(QString, chart);
        QFETCH(QString, axisTitle);
        const QString png = m_dir.filePath(chart + ".png");
        Run r = run({"--chart", chart, "--out", png, "--size", "800x500", "--scale", "2", "--date",
                     "2024-03-01"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains(QDir::toNativeSeparators(png)), qPrintable(r.out));
        const QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1600, 1000));
        QVERIFY2(distinctColours(image) >= 20, qPrintable(QString::number(distinctColours(image))));
        QVERIFY(hasCaptionRule(image));

        const QString svg = m_dir.filePath(chart + ".svg");
        // The default size, 1600x1000.
        r = run({"--chart", chart, "--out", svg, "--date", "2024-03-01"});
        QCOMPARE(r.status, 0);
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox(), QRect(0, 0, 1600, 1000));
        const QString text = svgText(svg);
        QVERIFY2(text.contains(axisTitle), qPrintable(text.left(2000)));
        // The caption names the scenario (the default: Llama 3.1 70B on 64 H100s) and the date.
        QVERIFY(text.contains("Llama 3.1 70B"));
        QVERIFY(text.contains("T=8 K=4 D=2"));
        QVERIFY(text.contains("2024-03-01"));
    }

    // Issue #18 §5: text grows with the image (ui::chart_export::textScale), so that a
    // 1600×1000 export pasted across a 16:9 slide is readable from the back of the room.
    // Slide text wants 18 pt on a 540 pt high slide, 1/30 of its height; a chart taking
    // three quarters of the slide needs its title's letters at least 1/40 of its own
    // height: 25 px of 1000. At 1600×1000 the titles were 11 px.
    void titlesReadableOnASlide_data()
    {
        QTest::addColumn<QString>("chart");
        for (const char *chart : {"memory", "timeline", "step-time", "model-size", "sharding"})
            QTest::addRow("%s", chart) << chart;
    }
    void titlesReadableOnASlide()
    {
        QFETCH(QString, chart);
        const QString big = m_dir.filePath("slide-" + chart + ".png");
        const QString small = m_dir.filePath("small-" + chart + ".png");
        QCOMPARE(run({"--chart", chart, "--out", big, "--no-caption"}).status, 0);
        QCOMPARE(
            run({"--chart", chart, "--out", small, "--no-caption", "--size", "800x500"}).status, 0);
        const int title = topTextHeight(QImage(big));
        QVERIFY2(title >= 1000 / 40 && title < 1000 / 10, qPrintable(QString::number(title)));
        // Half the size, about half the text: the same look at every size.
        const int half = topTextHeight(QImage(small));
        QVERIFY2(std::abs(2 * half - title) <= 6,
                 qPrintable(QStringLiteral("%1 and %2").arg(title).arg(half)));
    }

    // --units follows the window's View → sizes preference (issue #18 §5): GB by default,
    // GiB on request, in every chart's axis titles and labels.
    void units_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QStringList>("units");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("absent");
        // An H100's 80 GiB are 85.9 GB (docs/worked-examples.md).
        QTest::addRow("memory, default") << "memory" << QStringList{} << "Capacity 85.9 GB"
                                         << "GiB";
        QTest::addRow("memory, gb")
            << "memory" << QStringList{"--units", "gb"} << "Memory per device (GB)"
            << "GiB";
        QTest::addRow("memory, gib")
            << "memory" << QStringList{"--units", "gib"} << "Capacity 80.0 GiB"
            << "GB)";
        QTest::addRow("memory axis, gib")
            << "memory" << QStringList{"--units", "GiB"} << "Memory per device (GiB)"
            << "85.9";
        QTest::addRow("model-size, gib")
            << "model-size" << QStringList{"--units", "gib"} << "Weights (GiB)"
            << "(85.9 GB)";
        QTest::addRow("sharding, gib") << "sharding" << QStringList{"--units", "gib"} << "(MiB)"
                                       << "(MB)";
    }
    void units()
    {
        QFETCH(QString, chart);
        QFETCH(QStringList, units);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const QString svg = m_dir.filePath("units-" + chart + ".svg");
        const Run r = run(QStringList{"--chart", chart, "--out", svg, "--no-caption"} + units);
        QCOMPARE(r.status, 0);
        const QString text = svgText(svg);
        QVERIFY2(text.contains(expected), qPrintable(text.left(1500)));
        QVERIFY2(!text.contains(absent), qPrintable(text.left(1500)));
    }

    // Numbers in an exported chart read as numbers (issue #18 §5: FP32 was "1.62e+03"): bar
    // values and axis ticks with thousands separators.
    void numbersWithSeparators()
    {
        const QString svg = m_dir.filePath("numbers.svg");
        QCOMPARE(
            run({"--chart", "model-size", "--out", svg, "--set", "model=llama-3.1-405b"}).status,
            0);
        const QString text = svgText(svg);
        QVERIFY2(text.contains("\n1,623\n"), qPrintable(text.left(1500))); // FP32's bar
        QVERIFY2(text.contains("\n1,600\n"), qPrintable(text.left(1500))); // a tick
        QVERIFY2(!text.contains("e+"), qPrintable(text.left(1500)));
    }

    // The timeline's image says what schedule it shows (issue #18 §5), and its legend what
    // its chunks are: DualPipeV's two in a V (dualpipev.py), DualPipe's one each way, the
    // reverse direction entering at stage K − 1 (dualpipe.py).
    void timelineHasATitle_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QStringList>("says");
        QTest::addRow("interleaved")
            << "interleaved"
            << QStringList{"Schedule, K = 4 stages, m = 8 micro-batches, interleaved (v = 2)"};
        QTest::addRow("dualpipev")
            << "dualpipev"
            << QStringList{"Schedule, K = 4 stages, m = 8 micro-batches, dualpipev (2 chunks a "
                           "stage, in a V)",
                           "1 back"};
        QTest::addRow("dualpipe")
            << "dualpipe"
            << QStringList{"Schedule, K = 4 stages, m = 8 micro-batches, dualpipe (2 chunks a "
                           "stage, one each way)",
                           "reverse dir"};
    }
    void timelineHasATitle()
    {
        QFETCH(QString, schedule);
        QFETCH(QStringList, says);
        const QString svg = m_dir.filePath(QStringLiteral("titled-timeline-%1.svg").arg(schedule));
        QCOMPARE(run({"--chart", "timeline", "--out", svg, "--set",
                      QStringLiteral("schedule=") + schedule, "--set", "microbatches=8", "--set",
                      "virtual_stages=2"})
                     .status,
                 0);
        const QString text = svgText(svg);
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text.left(500)));
    }

    // The caption is inside the requested size: without it the chart takes the whole image.
    void noCaption()
    {
        const QString with = m_dir.filePath("with.png");
        const QString without = m_dir.filePath("without.png");
        QCOMPARE(run({"--chart", "memory", "--out", with}).status, 0);
        QCOMPARE(run({"--chart", "memory", "--out", without, "--no-caption"}).status, 0);
        const QImage a(with), b(without);
        QCOMPARE(a.size(), QSize(1600, 1000));
        QCOMPARE(b.size(), QSize(1600, 1000));
        QVERIFY(hasCaptionRule(a));
        QVERIFY(!hasCaptionRule(b));
        QVERIFY(distinctColours(b) >= 20);

        const QString svg = m_dir.filePath("without.svg");
        QCOMPARE(run({"--chart", "memory", "--out", svg, "--no-caption"}).status, 0);
        const QString text = svgText(svg);
        QVERIFY(text.contains("Memory per device (GB)"));
        QVERIFY(!text.contains("Parascope 0."));
    }

    // A scenario that follows a framework says which, and what differs from its profile
    // (docs/frameworks.md); the default (custom) adds nothing.
    void captionNamesTheFramework()
    {
        const QString svg = m_dir.filePath("framework.svg");
        QCOMPARE(run({"--chart", "memory", "--out", svg, "--set", "framework=torchtitan", "--set",
                      "cache_outputs=false"})
                     .status,
                 0);
        QVERIFY(svgText(svg).contains("torchtitan, changed: cache_outputs"));
        const QString plain = m_dir.filePath("custom.svg");
        QCOMPARE(run({"--chart", "memory", "--out", plain}).status, 0);
        QVERIFY(!svgText(plain).contains("custom"));
    }

    // An SVG's fonts end in a CSS generic family, so a viewer without the exact face still
    // draws sans-serif text (CSS Fonts Level 4, §2.1).
    void svgFontsEndInAGenericFamily()
    {
        const QString svg = m_dir.filePath("fonts.svg");
        QCOMPARE(run({"--chart", "step-time", "--out", svg}).status, 0);
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
        int families = 0;
        for (auto it = family.globalMatch(text); it.hasNext(); ++families) {
            const QString value = it.next().captured(1);
            QVERIFY2(value.endsWith(QLatin1String("sans-serif")), qPrintable(value));
        }
        QVERIFY(families > 0);
    }

    // Headless, without XDG_RUNTIME_DIR (a container, a cron job): the export prints only
    // what it wrote, no Qt notice about the runtime folder.
    void noRuntimeFolderNotice()
    {
        const QString png = m_dir.filePath("runtime.png");
        const ParascopeRun r = runParascope({"export", "--chart", "memory", "--out", png}, -1,
                                            [] { unsetenv("XDG_RUNTIME_DIR"); });
        QCOMPARE(r.status, 0);
        QVERIFY2(!r.err.contains("QStandardPaths"), qPrintable(r.err));
        QVERIFY2(r.err.trimmed().isEmpty(), qPrintable(r.err));
    }

    // --chart all writes one file per chart into a folder it creates.
    void allCharts_data()
    {
        QTest::addColumn<QString>("image");
        QTest::addRow("png") << "png";
        QTest::addRow("svg") << "svg";
    }

    void allCharts()
    {
        QFETCH(QString, image);
        const QString folder = m_dir.filePath("all-" + image + "/nested");
        const Run r = run({"--chart", "all", "--out", folder, "--image", image, "--set",
                           "schedule=zb-h1", "--set", "tp=4", "--size", "640x400"});
        QCOMPARE(r.status, 0);
        // Serving has nothing to draw for a training scenario: left out, and said so.
        const QStringList names{"bubble",    "memory",   "timeline",  "memory-over-step",
                                "step-time", "sharding", "model-size"};
        QCOMPARE(r.err.trimmed(), "parascope: skipped serving: Serving is for inference: set "
                                  "Mode to inference");
        for (const QString &name : names) {
            const QString path = QDir(folder).filePath(name + "." + image);
            QVERIFY2(QFileInfo::exists(path), qPrintable(path));
            QVERIFY(r.out.contains(QDir::toNativeSeparators(path)));
        }
        QCOMPARE(QDir(folder).entryList(QDir::Files).size(), names.size());
        if (image == "png")
            QCOMPARE(QImage(QDir(folder).filePath("timeline.png")).size(), QSize(640, 400));
        else
            QVERIFY(svgText(QDir(folder).filePath("timeline.svg")).contains("T=4 K=4"));
    }

    // Issue #18 §5: a chart's numbers, the format from --out's extension; both formats hold
    // the same values (the stage totals of the default scenario, in bytes).
    void dataFiles()
    {
        const QString csvPath = m_dir.filePath("stages.csv");
        const QString jsonPath = m_dir.filePath("stages.JSON");
        Run r = run({"--chart", "memory", "--out", csvPath});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out.trimmed(), QDir::toNativeSeparators(csvPath));
        r = run({"--chart", "memory", "--out", jsonPath, "--data", "json"});
        QCOMPARE(r.status, 0);
        QFile csvFile(csvPath);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(csvFile.readAll()).split("\r\n", Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 4); // the header and K = 4 stages
        const qsizetype total = lines[0].split(',').indexOf("total (bytes)");
        QVERIFY2(total >= 0, qPrintable(lines[0]));
        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
        QCOMPARE(json.value("chart").toString(), "memory");
        const QJsonArray rows = json.value("rows").toArray();
        QCOMPARE(rows.size(), 4);
        for (qsizetype i = 0; i < rows.size(); ++i) {
            bool ok = false;
            const qint64 fromCsv = lines[i + 1].split(',')[total].toLongLong(&ok);
            QVERIFY(ok);
            QVERIFY(fromCsv > 1'000'000'000);
            QCOMPARE(rows[i].toArray()[total].toInteger(), fromCsv);
        }
    }

    void allData()
    {
        const QString folder = m_dir.filePath("all-data");
        const Run r = run({"--chart", "all", "--out", folder, "--data", "csv"});
        QCOMPARE(r.status, 0);
        const QStringList names{"bubble",    "memory",   "timeline",  "memory-over-step",
                                "step-time", "sharding", "model-size"};
        for (const QString &name : names)
            QVERIFY(QFileInfo(QDir(folder).filePath(name + ".csv")).size() > 0);
        QCOMPARE(QDir(folder).entryList(QDir::Files).size(), names.size());
    }

    // A chart with nothing to draw for the scenario is refused when asked for alone, naming
    // the option and why, and nothing is written; in inference --chart all writes all eight.
    void chartWithNothingToDraw()
    {
        const QString png = m_dir.filePath("serving-in-training.png");
        Run r = run({"--chart", "serving", "--out", png});
        QCOMPARE(r.status, 2);
        QCOMPARE(r.err.trimmed(), "parascope: --chart: serving has nothing to draw: Serving is "
                                  "for inference: set Mode to inference");
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(png));
        r = run({"--chart", "serving", "--out", m_dir.filePath("serving.csv")});
        QCOMPARE(r.status, 2);
        QVERIFY(!QFileInfo::exists(m_dir.filePath("serving.csv")));

        const QString folder = m_dir.filePath("all-inference");
        r = run(
            {"--chart", "all", "--out", folder, "--set", "mode=inference", "--size", "640x400"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.trimmed().isEmpty(), qPrintable(r.err));
        QCOMPARE(QDir(folder).entryList(QDir::Files).size(), 8);
        QVERIFY(QFileInfo::exists(QDir(folder).filePath("serving.png")));
    }

    void failedWriteKeepsTheOldFiles_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("image");
        QTest::addColumn<bool>("laterChartFails");
        // As reported: a truncated PNG (36,864 bytes, no end marker) replacing a
        // good one, an SVG cut short, and `--chart all` leaving a 0-byte file among five.
        QTest::addRow("PNG") << "memory"
                             << "target.png"
                             << "png" << false;
        QTest::addRow("SVG") << "memory"
                             << "target.svg"
                             << "svg" << false;
        QTest::addRow("all, PNG, first chart fails") << "all"
                                                     << "all-png"
                                                     << "png" << false;
        QTest::addRow("all, SVG, first chart fails") << "all"
                                                     << "all-svg"
                                                     << "svg" << false;
        QTest::addRow("all, PNG, a later chart fails") << "all"
                                                       << "all-later"
                                                       << "png" << true;
    }

    // A write that fails (here: past a file-size limit) exits non-zero with one line
    // naming the path and the system's reason, and leaves every old file byte for byte
    // as it was, with no temporary file beside it.
    void failedWriteKeepsTheOldFiles()
    {
        QFETCH(QString, chart);
        QFETCH(QString, out);
        QFETCH(QString, image);
        QFETCH(bool, laterChartFails);
        const QString dir = m_dir.filePath("full-" + out);
        QVERIFY(QDir().mkpath(dir));
        const QString target = QDir(dir).filePath(chart == "all" ? "charts" : out);
        QStringList arguments{"--chart", chart, "--out", target, "--size", "640x400"};
        if (chart == "all")
            arguments << "--image" << image;
        const Run written = run(arguments + QStringList{"--date", "2024-03-01"});
        QCOMPARE(written.status, 0);
        const QString parent = chart == "all" ? target : dir;
        const QMap<QString, QByteArray> before = filesIn(parent);
        QCOMPARE(before.size(), chart == "all" ? 7 : 1); // the seven charts of a training scenario
        // The files in the order they are written, one path a line.
        const QString firstName = QFileInfo(written.out.section('\n', 0, 0).trimmed()).fileName();

        // Small enough that no chart fits, or (laterChartFails) large enough for the
        // first chart and too small for a later one.
        rlim_t limit = 2048;
        if (laterChartFails) {
            const qsizetype first = before.value(firstName).size();
            qsizetype largest = 0;
            for (const QByteArray &bytes : before)
                largest = std::max(largest, bytes.size());
            // A different date changes a few bytes of each image, not kilobytes.
            QVERIFY2(
                largest > first + 4096,
                qPrintable(
                    QStringLiteral("%1 %2, largest %3").arg(firstName).arg(first).arg(largest)));
            limit = rlim_t(first + 1024);
        }
        const Run r = runWithFileSizeLimit(arguments + QStringList{"--date", "2024-03-02"}, limit);
        QVERIFY2(r.status != 0, qPrintable(r.out));
        QVERIFY2(r.err.contains(systemReason(EFBIG)), qPrintable(r.err));
        QVERIFY2(r.err.contains(QDir::toNativeSeparators(target)), qPrintable(r.err));
        if (laterChartFails)
            QVERIFY2(!r.err.contains(firstName), qPrintable(r.err));
        // One line, after the one saying a training scenario's serving chart is left out.
        QCOMPARE(r.err.trimmed().count('\n'), chart == "all" ? 1 : 0);
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out)); // nothing was written
        const QMap<QString, QByteArray> after = filesIn(parent);
        QCOMPARE(after.keys(), before.keys()); // no temporary file left
        for (auto it = before.cbegin(); it != before.cend(); ++it)
            QVERIFY2(after.value(it.key()) == it.value(), qPrintable(it.key()));
    }

    // docs/DESIGN.md §4: invalid input exits 2 with one line naming the flag or key.
    void invalid_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        const QString png = QDir::temp().filePath("parascope-never-written.png");
        QTest::addRow("unknown chart") << QStringList{"--chart", "pie", "--out", png} << "--chart";
        QTest::addRow("no chart") << QStringList{"--out", png} << "--chart";
        QTest::addRow("no out") << QStringList{"--chart", "memory"} << "--out";
        QTest::addRow("zero width")
            << QStringList{"--chart", "memory", "--out", png, "--size", "0x10"} << "--size";
        QTest::addRow("size words")
            << QStringList{"--chart", "memory", "--out", png, "--size", "abc"} << "--size";
        QTest::addRow("scale 0") << QStringList{"--chart", "memory", "--out", png, "--scale", "0"}
                                 << "--scale";
        QTest::addRow("scale 5") << QStringList{"--chart", "memory", "--out", png, "--scale", "5"}
                                 << "--scale";
        QTest::addRow("scale text")
            << QStringList{"--chart", "memory", "--out", png, "--scale", "big"} << "--scale";
        QTest::addRow("extension")
            << QStringList{"--chart", "memory", "--out", QDir::temp().filePath("x.jpg")} << "--out";
        QTest::addRow("unknown data extension")
            << QStringList{"--chart", "memory", "--out", QDir::temp().filePath("x.xlsx")}
            << "--out";
        QTest::addRow("data format")
            << QStringList{"--chart", "all", "--out", QDir::temp().path(), "--data", "xml"}
            << "--data";
        QTest::addRow("data against extension")
            << QStringList{"--chart", "memory", "--out", QDir::temp().filePath("x.csv"),
                           "--data",  "json"}
            << "--data";
        QTest::addRow("data and image")
            << QStringList{"--chart", "all", "--out",   QDir::temp().path(),
                           "--data",  "csv", "--image", "png"}
            << "--data";
        QTest::addRow("image format")
            << QStringList{"--chart", "all", "--out", QDir::temp().path(), "--image", "gif"}
            << "--image";
        QTest::addRow("image against extension")
            << QStringList{"--chart", "memory", "--out", png, "--image", "svg"} << "--image";
        QTest::addRow("units") << QStringList{"--chart", "memory", "--out", png, "--units", "tb"}
                               << "--units";
        QTest::addRow("date") << QStringList{"--chart", "memory", "--out",
                                             png,       "--date", "2024-13-01"}
                              << "--date";
        QTest::addRow("scenario key")
            << QStringList{"--chart", "memory", "--out", png, "--set", "tensor=4"} << "tensor";
        QTest::addRow("scenario value")
            << QStringList{"--chart", "memory", "--out", png, "--set", "pp=0"} << "pp";
    }

    void invalid()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        const Run r = run(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(QDir::temp().filePath("parascope-never-written.png")));
    }

    void help()
    {
        const Run r = run({"--help"});
        QCOMPARE(r.status, 0);
        for (const char *flag : {"--chart", "--out", "--image", "--size", "--scale", "--no-caption",
                                 "--date", "--units", "--set", "--presets", "--data"})
            QVERIFY2(r.out.contains(flag), flag);
    }
};

QTEST_MAIN(TestExportCli)
#include "tst_export_cli.moc"
