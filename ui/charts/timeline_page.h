#pragma once

#include "ui/charts/chart_page.h"

#include <optional>

namespace ui {

class TimelinePanel;

// The simulated schedule, block by block, with its teaching controls (play, step, speed).
class TimelinePage : public ChartPage
{
public:
    QString id() const override { return QStringLiteral("timeline"); }
    QString title() const override;
    QString subject() const override;
    FieldMask dependsOn() const override;
    ChartNeeds needs() const override { return ChartNeeds::timeline; }
    QWidget *createWidget(ScenarioDocument *document) override;
    void update(const ChartInputs &inputs) override;
    QString formulas(const ChartInputs &inputs) const override;
    std::unique_ptr<QWidget> createImage(const ChartInputs &inputs, QWidget *parent) const override;
    ChartData data(const ChartInputs &inputs) const override;
    // The exported image's title: "Schedule, K = 4 stages, m = 16 micro-batches, 1f1b".
    static QString imageTitle(const core::Scenario &scenario);

private:
    TimelinePanel *m_panel = nullptr;
    // The scenario on screen: a redraw of the same one (sizes switched to GiB, plan B
    // loaded) leaves a running sweep alone.
    std::optional<core::Scenario> m_drawn;
};

} // namespace ui
