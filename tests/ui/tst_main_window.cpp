// The first window, through its real widgets, offscreen.
#include "core/units.h"
#include "io/presets_io.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QComboBox>
#include <QFontInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace ui;

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // TOOLCHAIN.md: without a font package text renders as empty boxes.
    void fontsAreInstalled() { QVERIFY(!QFontInfo(QFont()).family().isEmpty()); }

    void chartShowsTheDefaultScenario()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        StageMemoryChart *chart = window.memoryChart();
        // DESIGN §4 default: K = 4 stages on an 80 GiB H100.
        QCOMPARE(chart->categories().size(), 4);
        QCOMPARE(chart->capacityGb(), 80.0 * core::kGiB / core::kGB);
        const core::Report &r = document.report();
        const QList<qreal> weights = chart->values(QStringLiteral("Weights"));
        QCOMPARE(weights.size(), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(weights[i], static_cast<double>(r.stages[std::size_t(i)].weightsBytes) / 1e9);
        QCOMPARE(chart->values(QStringLiteral("Reserve")).constFirst(), 2.0 * core::kGiB / 1e9);
        QVERIFY(window.findChild<QLabel *>()->isVisible());
    }

    void choosingADeviceRedraws()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy changed(&document, &ScenarioDocument::changed);

        auto *device = window.findChild<QComboBox *>(QStringLiteral("device"));
        QVERIFY(device);
        device->setFocus();
        const int mi300x = device->findData(QStringLiteral("mi300x"));
        QVERIFY(mi300x >= 0);
        // Keyboard: move down to the MI300X entry, as a user would.
        while (device->currentIndex() < mi300x)
            QTest::keyClick(device, Qt::Key_Down);
        // Several key presses in one event-loop turn are evaluated once.
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(document.scenario().device, std::string("mi300x"));
        QCOMPARE(window.memoryChart()->capacityGb(), 192.0 * core::kGiB / core::kGB);
    }

    void invalidChoiceKeepsTheLastChart()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QList<qreal> before = window.memoryChart()->values(QStringLiteral("Weights"));

        auto *precision = window.findChild<QComboBox *>(QStringLiteral("precision"));
        precision->setFocus();
        // int4 is for inference only: training with it is refused (DESIGN §4).
        const int int4 = precision->findData(QStringLiteral("int4"));
        while (precision->currentIndex() < int4)
            QTest::keyClick(precision, Qt::Key_Down);
        QTRY_VERIFY(!document.report().ok());
        QCOMPARE(window.memoryChart()->values(QStringLiteral("Weights")), before);
        bool shown = false;
        for (QLabel *label : window.findChildren<QLabel *>())
            shown = shown ||
                    (label->isVisible() && label->text().contains(QStringLiteral("precision")));
        QVERIFY(shown);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
