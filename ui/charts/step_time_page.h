#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class StepTimeChart;

// Where one step's time goes on every pipeline stage, by part (docs/step_time.md); its
// formulas list the busiest stage's operations.
class StepTimePage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("step-time"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;
    std::optional<QString> unavailable(const ChartInputs &inputs) const override;

    // The busiest stage's parts adding up to the step time, and the throughput that follows;
    // also written out under the timeline. Empty without a step time.
    static QString stepTimeFormulas(const core::Scenario &s, const core::Report &r);

private:
    StepTimeChart *m_chart = nullptr;
};

} // namespace ui
