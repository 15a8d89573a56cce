#pragma once

#include "ui/charts/chart_page.h"

namespace ui {

class ServingChart;

// Serving (docs/inference.md): the latency-throughput curve as the batch grows, and memory
// against the context.
class ServingPage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("serving"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;
    std::optional<QString> unavailable(const ChartInputs &inputs) const override;

private:
    ServingChart *m_chart = nullptr;
};

} // namespace ui
