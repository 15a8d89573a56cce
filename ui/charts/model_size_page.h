#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class ModelSizeChart;

// The model's weights at every precision against one device and T devices.
class ModelSizePage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("model-size"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;

private:
    ModelSizeChart *m_chart = nullptr;
};

} // namespace ui
