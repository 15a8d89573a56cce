#pragma once

#include "core/report.h"
#include "core/scenario.h"
#include "core/sharding.h"

#include <QTextBrowser>

namespace ui {

// The formulas behind the chart on screen, written out with the current
// numbers in them, each with its source.
class FormulaPanel : public QTextBrowser
{
    Q_OBJECT

public:
    enum class Topic
    {
        memory,
        bubble,
        timeline,
        sharding,
        modelSize
    };

    explicit FormulaPanel(QWidget *parent = nullptr);

    void show(Topic topic, const core::Scenario &scenario, const core::Report &report,
              const core::ShardReport *sharding = nullptr);

    // The HTML for a topic (also used by Help → Formulas & sources).
    static QString html(Topic topic, const core::Scenario &scenario, const core::Report &report,
                        const core::ShardReport *sharding = nullptr);
};

} // namespace ui
