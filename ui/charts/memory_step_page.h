#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class MemoryStepPanel;

// One device's memory against time through one step, for a stage picked on the page: flat
// model states, activations rising with each forward and falling with each backward, the
// last stage's cached outputs, the capacity and the peak; it follows the Timeline's sweep.
class MemoryStepPage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("memory-over-step"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    ChartNeeds needs() const override { return ChartNeeds::timeline; }
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;

private:
    MemoryStepPanel *m_panel = nullptr;
};

} // namespace ui
