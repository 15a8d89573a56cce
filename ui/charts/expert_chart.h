#pragma once

#include "core/expert_routing.h"

#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QBoxLayout;
class QChart;
class QChartView;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineSeries;
class QScrollArea;
class QSpinBox;
class QValueAxis;

namespace ui {

// The expert-parallel demonstrator (core/expert_routing.h, docs/sharding.md): its own
// controls (experts, top-k, devices E, router skew, tokens), the load each simulated device
// received with the mean, the bytes each sent in the two all-to-alls with the balanced
// expectation, and the line saying it was executed and checked. Every change of a control
// runs core::runExpertParallel again; its inputs are capped to tens of milliseconds, so on
// the GUI thread, as the feed-forward demonstrator's reduced check.
class ExpertChart : public QWidget
{
    Q_OBJECT

public:
    explicit ExpertChart(QWidget *parent = nullptr);

    // The inputs the controls describe, and the run on screen.
    core::ExpertRoutingInputs inputs() const;
    const core::ExpertRoutingResult &result() const { return m_result; }

    QSpinBox *expertsBox() const { return m_experts; }
    QSpinBox *topKBox() const { return m_topK; }
    QComboBox *devicesBox() const { return m_devices; }
    QDoubleSpinBox *skewBox() const { return m_skew; }
    QSpinBox *tokensBox() const { return m_tokens; }

    // What is drawn, for tests: copies received per device; the mean line's height; bytes
    // sent per device in "dispatch" or "combine", in units of bytesUnit() bytes; the
    // balanced expectation's line, in the same unit.
    QList<qreal> loads() const;
    qreal meanLine() const;
    QList<qreal> bytes(const QString &direction) const;
    qreal expectationLine() const;
    double bytesUnit() const { return m_bytesUnit; }
    QString verification() const;
    QString summary() const;

    // Draws the run on screen again (the window's size unit changed).
    void redraw() { draw(); }
    // Takes the scenario model's experts and top-k, at most the demonstrator's 64 experts, and
    // the scenario's E, or the largest E at most it that divides them (docs/sharding.md).
    void followModel(int experts, int topK, int ep);

Q_SIGNALS:
    // After a run is drawn.
    void updated();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void run();
    void draw();
    void offerDevices(int wanted = 0); // E: the divisors of the experts; 0 keeps the chosen
    void fitSummary();

    QSpinBox *m_experts;
    QSpinBox *m_topK;
    QComboBox *m_devices;
    QDoubleSpinBox *m_skew;
    QSpinBox *m_tokens;

    QChart *m_loadChart;
    QChartView *m_loadView;
    QBarSet *m_loadSet;
    QLineSeries *m_meanLine;
    QBarCategoryAxis *m_loadDevices;
    QValueAxis *m_loadAxis;
    QValueAxis *m_loadLineAxis;

    QChart *m_bytesChart;
    QChartView *m_bytesView;
    QBarSet *m_dispatchSet;
    QBarSet *m_combineSet;
    QLineSeries *m_expectedLine;
    QBarCategoryAxis *m_bytesDevices;
    QValueAxis *m_bytesAxis;
    QValueAxis *m_bytesLineAxis;

    QLabel *m_verification;
    QLabel *m_summary;
    QScrollArea *m_summaryScroll;
    QWidget *m_controls;
    QScrollArea *m_pageScroll;
    QBoxLayout *m_charts = nullptr;
    core::ExpertRoutingResult m_result;
    double m_bytesUnit = 1;
};

} // namespace ui
