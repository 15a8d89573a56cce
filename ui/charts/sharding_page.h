#pragma once

#include "core/sharding.h"
#include "ui/charts/chart_page.h"

#include <optional>

namespace ui {

class ShardingChart;

// The four ways to split a feed-forward layer across T devices, executed at a reduced size
// (a few ms of matrix products, so only when its inputs change and it is on screen), with
// the full-size check of ShardingVerifier.
class ShardingPage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("sharding"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;

private:
    ShardingChart *m_chart = nullptr;
    std::optional<core::ShardReport> m_report; // the analysis on screen, once there is one
    QString m_followedModel; // the model and E the expert demonstrator last took its layer from
};

} // namespace ui
