#include "ui/scenario_document.h"

#include "core/evaluate.h"
#include "core/fields.h"
#include "core/validate.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "ui/playhead.h"

#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

namespace ui {

namespace {

int fieldIndex(std::string_view key)
{
    const auto fields = core::scenarioFields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i].key == key)
            return static_cast<int>(i);
    return -1;
}

} // namespace

FieldMask FieldMask::of(std::initializer_list<const char *> keys)
{
    FieldMask mask;
    for (const char *key : keys) {
        const int i = fieldIndex(key);
        Q_ASSERT_X(i >= 0, "FieldMask::of", key);
        if (i >= 0)
            mask.m_bits.set(std::size_t(i));
    }
    return mask;
}

FieldMask FieldMask::all()
{
    FieldMask mask;
    for (std::size_t i = 0; i < core::scenarioFields().size(); ++i)
        mask.m_bits.set(i);
    return mask;
}

FieldMask FieldMask::between(const core::Scenario &a, const core::Scenario &b)
{
    FieldMask mask;
    const auto fields = core::scenarioFields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (core::fieldText(a, fields[i].key) != core::fieldText(b, fields[i].key))
            mask.m_bits.set(std::size_t(i));
    // An inline model or device can change without its id changing.
    if (a.customModel != b.customModel)
        mask |= FieldMask::of({"model"});
    if (a.customDevice != b.customDevice)
        mask |= FieldMask::of({"device"});
    return mask;
}

bool FieldMask::contains(const QString &key) const
{
    const int i = fieldIndex(key.toStdString());
    return i >= 0 && m_bits.test(std::size_t(i));
}

// One generic undoable edit: the scenario before and after. Edits of the same
// key within one gesture (a slider drag, a held arrow key) merge.
class ScenarioCommand : public QUndoCommand
{
public:
    ScenarioCommand(ScenarioDocument *document, core::Scenario before, core::Scenario after,
                    const QString &text, int key, int gesture)
        : QUndoCommand(text), m_document(document), m_before(std::move(before)),
          m_after(std::move(after)), m_key(key), m_gesture(gesture)
    {}

    void undo() override { m_document->apply(m_before); }
    void redo() override { m_document->apply(m_after); }
    int id() const override { return m_gesture != 0 ? 1 : -1; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = static_cast<const ScenarioCommand *>(other);
        if (next->m_key != m_key || next->m_gesture != m_gesture)
            return false;
        m_after = next->m_after;
        setText(next->text());
        // A drag back to where it started changes nothing: QUndoStack drops the step, and a
        // document that was saved is clean again.
        setObsolete(m_after == m_before);
        return true;
    }

private:
    ScenarioDocument *m_document;
    core::Scenario m_before;
    core::Scenario m_after;
    int m_key;
    int m_gesture;
};

ScenarioDocument::ScenarioDocument(core::Presets presets, QObject *parent)
    : QObject(parent), m_presets(std::move(presets)), m_undo(new QUndoStack(this)),
      m_playhead(new Playhead(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, &ScenarioDocument::fileStateChanged);
    m_lastValid = core::evaluate(m_scenario, m_presets);
    m_evaluated = m_scenario;
}

ScenarioDocument::~ScenarioDocument() = default;

bool ScenarioDocument::isModified() const
{
    return m_modifiedWithoutHistory || !m_undo->isClean();
}

std::optional<QString> ScenarioDocument::open(const QString &path)
{
    core::Scenario scenario;
    if (auto e = io::readScenarioFile(path, scenario))
        return io::qs(e->toString());
    if (auto e = core::validate(scenario, m_presets))
        return io::qs(e->toString());
    adopt(scenario, path, false);
    return std::nullopt;
}

std::optional<QString> ScenarioDocument::save(const QString &path)
{
    if (auto reason = io::writeScenarioFile(path, m_scenario))
        return reason;
    m_filePath = path;
    m_modifiedWithoutHistory = false;
    m_undo->setClean();
    Q_EMIT fileStateChanged();
    return std::nullopt;
}

void ScenarioDocument::adopt(const core::Scenario &scenario, const QString &path, bool modified)
{
    reset(scenario);
    m_filePath = path;
    m_modifiedWithoutHistory = modified;
    Q_EMIT fileStateChanged();
}

void ScenarioDocument::reset(const core::Scenario &scenario)
{
    m_undo->clear();
    apply(scenario);
}

void ScenarioDocument::setScenario(const core::Scenario &scenario, const QString &description)
{
    if (scenario == m_scenario)
        return;
    m_undo->push(new ScenarioCommand(this, m_scenario, scenario, description, -1, 0));
}

void ScenarioDocument::loadExample(const core::Scenario &scenario, const QString &description)
{
    const bool untouched = m_filePath.isEmpty() && !isModified();
    setScenario(scenario, description);
    if (untouched)
        m_undo->setClean();
}

bool ScenarioDocument::setField(const QString &key, const QString &value, int gesture)
{
    core::Scenario next = m_scenario;
    if (core::setField(next, key.toStdString(), value.toStdString()))
        return false;
    if (next == m_scenario)
        return true;
    m_undo->push(new ScenarioCommand(this, m_scenario, std::move(next),
                                     tr("Set %1 to %2").arg(key, value),
                                     fieldIndex(key.toStdString()), gesture));
    return true;
}

QString ScenarioDocument::fieldText(const QString &key) const
{
    return QString::fromStdString(core::fieldText(m_scenario, key.toStdString()));
}

void ScenarioDocument::apply(const core::Scenario &scenario)
{
    m_scenario = scenario;
    scheduleEvaluation();
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

void ScenarioDocument::setTimelineWanted(bool wanted)
{
    m_timelineWanted = wanted;
    if (wanted)
        ensureTimeline();
}

void ScenarioDocument::ensureTimeline()
{
    if (m_lastValidHasTimeline || !m_lastValid.ok())
        return;
    m_lastValid = core::evaluate(m_lastValidScenario, m_presets, {.timeline = true});
    m_lastValidHasTimeline = true;
}

void ScenarioDocument::evaluate()
{
    m_pending = false;
    const FieldMask keys = FieldMask::between(m_evaluated, m_scenario);
    m_evaluated = m_scenario;
    core::Report report = core::evaluate(m_scenario, m_presets, {.timeline = m_timelineWanted});
    m_currentIsValid = report.ok();
    if (m_currentIsValid) {
        m_lastValid = std::move(report);
        m_lastValidScenario = m_scenario;
        m_lastValidHasTimeline = m_timelineWanted;
        m_report = {};
    } else {
        m_report = std::move(report);
    }
    Q_EMIT changed(keys);
}

} // namespace ui
