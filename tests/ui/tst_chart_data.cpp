// Every chart's numbers as CSV and JSON (issue #18 §5): the tables ChartPage::data returns for
// the default scenario, checked against the report they come from.
#include "core/memory_timeline.h"
#include "core/sharding.h"
#include "io/presets_io.h"
#include "ui/charts/chart_pages.h"
#include "ui/export/chart_export.h"
#include "ui/export/data_export.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace de = ui::data_export;

class TestChartData : public QObject
{
    Q_OBJECT

private:
    core::Scenario m_scenario;
    core::Presets m_presets = io::builtinPresets();
    core::Report m_report;

    // RFC 4180 records: fields split at commas outside quotes, "" inside quotes is a quote.
    static QList<QStringList> parseCsv(const QByteArray &bytes)
    {
        const QString text = QString::fromUtf8(bytes);
        QList<QStringList> records;
        QStringList fields;
        QString field;
        bool quoted = false;
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text[i];
            if (quoted) {
                if (c == u'"' && i + 1 < text.size() && text[i + 1] == u'"') {
                    field += c;
                    ++i;
                } else if (c == u'"') {
                    quoted = false;
                } else {
                    field += c;
                }
            } else if (c == u'"') {
                quoted = true;
            } else if (c == u',') {
                fields << field;
                field.clear();
            } else if (c == u'\r' && i + 1 < text.size() && text[i + 1] == u'\n') {
                fields << field;
                records << fields;
                fields.clear();
                field.clear();
                ++i;
            } else {
                field += c;
            }
        }
        return records;
    }

    ui::ChartInputs inputs() const { return {m_scenario, m_presets, m_report}; }

private Q_SLOTS:
    void initTestCase()
    {
        m_report = ui::chart_export::evaluate(m_scenario, m_presets, ui::ChartNeeds::timeline);
        QVERIFY(!m_report.error);
        QCOMPARE(m_report.stages.size(), std::size_t(4)); // the default scenario: K = 4
    }

    // One row per chart of the table: its row count for the default scenario (K = 4, m = 16,
    // 1F1B, 80 layers), a column, and the report's values that column's last rows must hold.
    void everyChart_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QString>("column");
        QTest::addColumn<QList<double>>("expected");
        const core::Report &r = m_report;

        QList<double> totals;
        for (const core::StageReport &st : r.stages)
            totals << double(st.totalBytes);
        QTest::addRow("memory: stage totals in bytes")
            << "memory" << 4 << "total (bytes)" << totals;

        // The curves of core::bubbleCurves for m up to 1024: GPipe and 1F1B 152 points each,
        // interleaved 104 (multiples of K), ZB-H1 149, DualPipeV 145 (from m = 2K = 8),
        // DualPipe 125 (even m only, as dualpipe.py takes them: core's log-spaced steps of 2 up
        // to 1024 are 128, every even m to 32 then about 24 a doubling, less m = 2, 4 and 6,
        // below 2K); then the point and the simulation.
        QTest::addRow("bubble: the point and the simulation")
            << "bubble" << 152 + 152 + 104 + 149 + 145 + 125 + 2 << "bubble (fraction)"
            << QList<double>{r.bubbleFractionClosedForm.value_or(r.bubbleFraction),
                             r.bubbleFraction};

        QList<double> ends;
        for (const core::ScheduleOp &op : r.timeline)
            ends << op.end;
        QTest::addRow("timeline: K × m × (F, B) blocks") << "timeline" << 128 << "end (s)" << ends;

        const core::MemoryTimeline memory =
            core::memoryTimeline(m_scenario, m_presets, r, core::highestStage(r));
        QList<double> memoryTotals;
        for (const core::MemoryPoint &point : memory.points)
            memoryTotals << double(point.totalBytes);
        QTest::addRow("memory-over-step: the fullest stage's points")
            << "memory-over-step" << int(memory.points.size()) << "total (bytes)" << memoryTotals;

        // docs/step_time.md: every stage's parts add up to the step time.
        QTest::addRow("step-time: each stage's parts add up to the step")
            << "step-time" << 4 << "total (s)"
            << QList<double>(4, r.stepTime ? r.stepTime->stepTimeS : -1);

        const core::ShardReport shard = core::analyzeScenarioSharding(m_scenario, m_presets);
        QList<double> shardTotals;
        for (const core::StrategyReport &st : shard.strategies)
            shardTotals << st.totalS;
        QTest::addRow("sharding: four strategies") << "sharding" << 4 << "total (s)" << shardTotals;

        QList<double> sizes;
        for (const core::PrecisionSize &size : r.sizeByPrecision)
            sizes << double(size.bytes);
        QTest::addRow("model-size: every precision")
            << "model-size" << int(r.sizeByPrecision.size()) << "exact (bytes)" << sizes;
    }

    void everyChart()
    {
        QFETCH(QString, chart);
        QFETCH(int, rows);
        QFETCH(QString, column);
        QFETCH(QList<double>, expected);
        const auto page = ui::createChartPage(chart);
        QVERIFY(page);
        const ui::ChartData data = page->data(inputs());
        QVERIFY(!data.title.isEmpty());
        QCOMPARE(data.rows.size(), rows);
        QVERIFY(expected.size() <= rows);

        // CSV: a header naming every column with its unit, then one record per row.
        const QList<QStringList> csv = parseCsv(io::toCsv(data));
        QCOMPARE(csv.size(), rows + 1);
        QCOMPARE(csv.front().size(), data.columns.size());
        for (qsizetype i = 0; i < data.columns.size(); ++i) {
            const ui::ChartColumn &c = data.columns[i];
            QCOMPARE(csv.front()[i], c.unit.isEmpty() ? c.name : c.name + " (" + c.unit + ")");
        }
        const qsizetype at = csv.front().indexOf(column);
        QVERIFY2(at >= 0, qPrintable(csv.front().join(u'|')));
        for (qsizetype i = 1; i < csv.size(); ++i)
            QCOMPARE(csv[i].size(), data.columns.size());
        const qsizetype first = rows - expected.size();
        for (qsizetype i = 0; i < expected.size(); ++i) {
            bool ok = false;
            const double value = csv[1 + first + i][at].toDouble(&ok);
            QVERIFY2(ok, qPrintable(csv[1 + first + i][at]));
            QCOMPARE(value, expected[i]); // exactly: written at full precision
        }

        // JSON: the same columns and values.
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(io::toJson(data, chart), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject root = json.object();
        QCOMPARE(root.value("chart").toString(), chart);
        QCOMPARE(root.value("title").toString(), data.title);
        const QJsonArray columns = root.value("columns").toArray();
        QCOMPARE(columns.size(), data.columns.size());
        QCOMPARE(io::dataHeader({columns[at].toObject().value("name").toString(),
                                 columns[at].toObject().value("unit").toString()}),
                 column);
        const QJsonArray jsonRows = root.value("rows").toArray();
        QCOMPARE(jsonRows.size(), rows);
        for (qsizetype i = 0; i < expected.size(); ++i)
            QCOMPARE(jsonRows[first + i].toArray()[at].toDouble(), expected[i]);
    }

    // RFC 4180 §2: a field with a comma, a quote or a line break is quoted, quotes doubled.
    void csvQuoting_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QByteArray>("field");
        QTest::addRow("plain") << "1f1b" << QByteArray("1f1b");
        QTest::addRow("comma") << "a, b" << QByteArray("\"a, b\"");
        QTest::addRow("quote") << "say \"hi\"" << QByteArray("\"say \"\"hi\"\"\"");
        QTest::addRow("line break") << "two\nlines" << QByteArray("\"two\nlines\"");
    }

    void csvQuoting()
    {
        QFETCH(QString, text);
        QFETCH(QByteArray, field);
        ui::ChartData data;
        data.columns = {{"name", {}}, {"size", "bytes"}, {"none", {}}};
        data.rows = {{text, 0.1, std::monostate()}};
        QCOMPARE(io::toCsv(data), "name,size (bytes),none\r\n" + field + ",0.1,\r\n");
        const QList<QStringList> parsed = parseCsv(io::toCsv(data));
        QCOMPARE(parsed.size(), 2);
        QCOMPARE(parsed[1][0], text);
    }

    void fileFormatFromExtension_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("format"); // -1: none
        QTest::addRow("csv") << "out/memory.csv" << int(de::Format::csv);
        QTest::addRow("JSON") << "memory.JSON" << int(de::Format::json);
        QTest::addRow("png") << "memory.png" << -1;
        QTest::addRow("dot in folder") << "a.csv/memory" << -1;
    }

    void fileFormatFromExtension()
    {
        QFETCH(QString, path);
        QFETCH(int, format);
        const auto found = de::formatOf(path);
        QCOMPARE(found ? int(*found) : -1, format);
    }
};

QTEST_MAIN(TestChartData)
#include "tst_chart_data.moc"
