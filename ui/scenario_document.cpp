#include "ui/scenario_document.h"

#include "core/evaluate.h"
#include "core/fields.h"

#include <QTimer>

namespace ui {

ScenarioDocument::ScenarioDocument(core::Presets presets, QObject *parent)
    : QObject(parent), m_presets(std::move(presets))
{
    evaluate();
}

void ScenarioDocument::setScenario(const core::Scenario &scenario)
{
    m_scenario = scenario;
    scheduleEvaluation();
}

bool ScenarioDocument::setField(const QString &key, const QString &value)
{
    core::Scenario next = m_scenario;
    if (core::setField(next, key.toStdString(), value.toStdString()))
        return false;
    if (next == m_scenario)
        return true;
    m_scenario = std::move(next);
    scheduleEvaluation();
    return true;
}

void ScenarioDocument::flush()
{
    if (m_pending)
        evaluate();
}

void ScenarioDocument::scheduleEvaluation()
{
    if (m_pending)
        return;
    m_pending = true;
    QTimer::singleShot(0, this, &ScenarioDocument::flush);
}

void ScenarioDocument::evaluate()
{
    m_pending = false;
    m_report = core::evaluate(m_scenario, m_presets);
    if (m_report.ok())
        m_lastValid = m_report;
    Q_EMIT changed();
}

} // namespace ui
