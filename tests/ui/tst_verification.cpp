// The full-size sharding check (docs/sharding.md) through the real window, offscreen:
// it runs off the GUI thread, reports progress, cancels, and never edits the document.
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "ui/charts/sharding_chart.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/sharding_verifier.h"
#include "widget_helpers.h"

#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace ui;

namespace {

// Generous: a safety net for a hung run under the sanitizers, not a speed requirement.
constexpr int kPatienceMs = 15 * 60 * 1000;

// A layer whose full-size check takes a minute or more (0.7 TFLOP at 2048 tokens), yet
// whose inputs are small enough to draw quickly: cancelling always comes first.
core::ModelSpec longLayer()
{
    core::ModelSpec m;
    m.id = "long-layer";
    m.name = "Long layer";
    m.layers = 1;
    m.hidden = 2048;
    m.heads = 16;
    m.kvHeads = 16;
    m.ffnHidden = 8192;
    m.vocab = 1024;
    return m;
}

// hidden 256, ffn 1024: the full size is a fraction of a GFLOP.
core::ModelSpec tinyLayer()
{
    core::ModelSpec m;
    m.id = "tiny-layer";
    m.name = "Tiny layer";
    m.layers = 1;
    m.hidden = 256;
    m.heads = 8;
    m.kvHeads = 8;
    m.ffnHidden = 1024;
    m.vocab = 1024;
    return m;
}

core::Scenario scenarioWith(const core::ModelSpec &model, int seqLen)
{
    core::Scenario s;
    s.customModel = model;
    s.model = model.id;
    s.pp = 1;
    s.microbatchSize = 1;
    s.seqLen = seqLen;
    return s;
}

} // namespace

class TestVerification : public QObject
{
    Q_OBJECT

private:
    struct Window : ExplorerWindow
    {
        ShardingChart *chart = window.chart<ShardingChart>();
        ShardingVerifier *verifier = chart->findChild<ShardingVerifier *>();
    };

    static void showSharding(Window &w)
    {
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.charts()->setCurrentWidget(w.chart);
        QVERIFY(w.verifier);
        QVERIFY(w.chart->verifyButton()->isVisible());
        QVERIFY(w.chart->verifyButton()->isEnabled());
    }

private Q_SLOTS:
    void cancelKeepsTheWindowResponsive()
    {
        Window w;
        w.document.setScenario(scenarioWith(longLayer(), 2048), QStringLiteral("long layer"));
        w.document.flush();
        showSharding(w);
        const QString smallSummary = w.chart->summary();
        QVERIFY(smallSummary.contains("a reduced size"));
        QVERIFY(w.chart->verifyButton()->toolTip().contains("TFLOP"));
        const QString scenarioBefore = io::writeScenario(w.document.scenario());
        const int undoIndex = w.document.undoStack()->index();
        const int undoCount = w.document.undoStack()->count();

        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(10);
        QSignalSpy finished(w.verifier, &ShardingVerifier::finished);

        QTest::mouseClick(w.chart->verifyButton(), Qt::LeftButton);
        QVERIFY(w.verifier->isRunning());
        QVERIFY(!w.chart->verifyButton()->isVisible());
        QVERIFY(w.chart->cancelButton()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(w.chart->progressBar()->value() > 0, kPatienceMs);
        QVERIFY(w.verifier->isRunning());
        QVERIFY(ticks > 0);

        // An edit that does not touch the layer is evaluated while the check runs, and
        // does not stop it.
        QCOMPARE(w.document.report().dp, 2);
        QVERIFY(w.document.setField("dp", "4"));
        QTRY_COMPARE(w.document.report().dp, 4);
        QVERIFY(w.verifier->isRunning());
        w.document.undoStack()->undo();
        w.document.flush();

        QTest::mouseClick(w.chart->cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY(!w.verifier->isRunning());

        QVERIFY2(w.chart->summary().contains("cancelled"), qPrintable(w.chart->summary()));
        QVERIFY(w.chart->summary().contains("a reduced size"));
        QVERIFY(w.chart->verifyButton()->isVisible());
        QVERIFY(w.chart->verifyButton()->isEnabled());
        QVERIFY(!w.chart->progressBar()->isVisible());
        QCOMPARE(io::writeScenario(w.document.scenario()), scenarioBefore);
        QCOMPARE(w.document.undoStack()->index(), undoIndex);
        QCOMPARE(w.document.undoStack()->count(), undoCount + 1); // our own edit, undone
    }

    void changingTheLayerCancels()
    {
        Window w;
        w.document.setScenario(scenarioWith(longLayer(), 2048), QStringLiteral("long layer"));
        w.document.flush();
        showSharding(w);
        QSignalSpy finished(w.verifier, &ShardingVerifier::finished);
        QTest::mouseClick(w.chart->verifyButton(), Qt::LeftButton);
        QVERIFY(w.verifier->isRunning());

        QVERIFY(w.document.setField("tp", "4"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY2(w.chart->summary().contains("scenario changed"), qPrintable(w.chart->summary()));
        // The chart shows the new layer at T 4, from the reduced check.
        QVERIFY(w.chart->summary().contains("on 4 simulated devices"));
        QVERIFY(w.chart->verifyButton()->isEnabled());
    }

    // Regression: a layer too large to execute at full size on this computer (2 × 2^24 tokens
    // of Llama 3.1 70B's layer: about 2,000 TB at once) keeps its reduced check, and the
    // button says why it cannot run instead of starting a run that aborts the window.
    void tooLargeForThisComputer()
    {
        core::ModelSpec layer = longLayer();
        layer.hidden = 8192;
        layer.heads = 64;
        layer.kvHeads = 8;
        layer.ffnHidden = 28672;
        core::Scenario s = scenarioWith(layer, 1 << 24);
        s.microbatchSize = 2; // 2^25 tokens: more than the analysis used to accept
        Window w;
        w.document.setScenario(s, QStringLiteral("huge layer"));
        w.document.flush();
        QVERIFY(w.document.report().ok());
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.charts()->setCurrentWidget(w.chart);
        QVERIFY2(w.chart->summary().contains("at a reduced size"), qPrintable(w.chart->summary()));
        QPushButton *button = w.chart->verifyButton();
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->toolTip().contains("would hold"), qPrintable(button->toolTip()));
        QVERIFY(button->toolTip().contains("33554432 tokens"));
        QVERIFY(!w.verifier->start());
        QVERIFY(!w.verifier->isRunning());
    }

    void tinyLayerCompletesAtFullSize()
    {
        Window w;
        w.document.setScenario(scenarioWith(tinyLayer(), 64), QStringLiteral("tiny layer"));
        w.document.flush();
        showSharding(w);
        const QString scenarioBefore = io::writeScenario(w.document.scenario());
        const int undoCount = w.document.undoStack()->count();
        QSignalSpy finished(w.verifier, &ShardingVerifier::finished);

        QTest::mouseClick(w.chart->verifyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QCOMPARE(finished.at(0).at(0).toBool(), false);

        const QString summary = w.chart->summary();
        QVERIFY2(summary.contains("at the full size, h = 256, f = 1024, 64 tokens"),
                 qPrintable(summary));
        QVERIFY(summary.contains("Full-size check done"));
        QVERIFY(!summary.contains("not checked"));
        // Every strategy's relative error, the last column of the table, in float
        // precision: docs/DESIGN.md §3.4's check that each split computes the same Y.
        const QRegularExpression error(R"(<td align=right>([0-9.]+e[-+][0-9]+)</td></tr>)");
        int rows = 0;
        for (auto it = error.globalMatch(summary); it.hasNext(); ++rows) {
            const double relative = it.next().captured(1).toDouble();
            QVERIFY2(relative < 1e-5, qPrintable(QString::number(relative)));
        }
        QCOMPARE(rows, 4);
        QCOMPARE(io::writeScenario(w.document.scenario()), scenarioBefore);
        QCOMPARE(w.document.undoStack()->count(), undoCount);
        QVERIFY(w.chart->verifyButton()->isEnabled());
    }
};

QTEST_MAIN(TestVerification)
#include "tst_verification.moc"
