#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"

#include <QObject>
#include <QString>

namespace ui {

// The one object between core and widgets: it owns the scenario, the presets
// and the latest report. Panels edit through it; charts redraw on `changed`.
// Bursts of edits are evaluated once per event-loop turn.
class ScenarioDocument : public QObject
{
    Q_OBJECT

public:
    explicit ScenarioDocument(core::Presets presets, QObject *parent = nullptr);

    const core::Presets &presets() const { return m_presets; }
    const core::Scenario &scenario() const { return m_scenario; }
    // The latest evaluation; its `error` is set when the scenario is invalid.
    const core::Report &report() const { return m_report; }
    // The last report without an error, for charts that keep showing it.
    const core::Report &lastValidReport() const { return m_lastValid; }

    void setScenario(const core::Scenario &scenario);
    // Sets one scenario key from its text form (the same as `--set`). Returns
    // false, and changes nothing, when the text does not parse.
    bool setField(const QString &key, const QString &value);

    // Evaluates now if an evaluation is pending (tests, export).
    void flush();

Q_SIGNALS:
    // Emitted after each evaluation.
    void changed();

private:
    void scheduleEvaluation();
    void evaluate();

    core::Presets m_presets;
    core::Scenario m_scenario;
    core::Report m_report;
    core::Report m_lastValid;
    bool m_pending = false;
};

} // namespace ui
