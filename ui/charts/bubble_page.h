#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class BubbleChart;

// The bubble fraction against m for the current K, one closed-form curve per schedule, with
// the simulated point; plan B's point beside it when comparing.
class BubblePage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("bubble"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;

    // The closed form and the simulation, also written out under the timeline.
    static QString bubbleFormulas(const core::Scenario &s, const core::Report &r);

private:
    BubbleChart *m_chart = nullptr;
};

} // namespace ui
