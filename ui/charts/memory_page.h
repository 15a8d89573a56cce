#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class StageMemoryChart;

// Memory of one device per pipeline stage, by term, against its capacity; plan B's totals
// beside it when comparing.
class MemoryPage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("memory"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;

private:
    StageMemoryChart *m_chart = nullptr;
};

} // namespace ui
