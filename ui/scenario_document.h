#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"

#include <QObject>
#include <QString>
#include <bitset>
#include <optional>

class QUndoStack;

namespace ui {

class Playhead;

// Which scenario keys changed: bit i is core::scenarioFields()[i]. Charts
// compare it with the keys they depend on and skip work that does not
// concern them.
class FieldMask
{
public:
    FieldMask() = default;
    static FieldMask of(std::initializer_list<const char *> keys);
    static FieldMask all();
    // The keys whose values differ between two scenarios.
    static FieldMask between(const core::Scenario &a, const core::Scenario &b);

    // One bit a scenario key: room for this many (tst_scenario_document checks the table fits).
    static constexpr std::size_t kCapacity = 128;

    bool intersects(FieldMask other) const { return (m_bits & other.m_bits).any(); }
    bool contains(const QString &key) const;
    bool isEmpty() const { return m_bits.none(); }
    FieldMask &operator|=(FieldMask other)
    {
        m_bits |= other.m_bits;
        return *this;
    }
    bool operator==(const FieldMask &) const = default;

private:
    std::bitset<kCapacity> m_bits;
};

// The one object between core and widgets: it owns the scenario, the presets,
// the undo stack and the latest report. Panels edit through it; charts redraw
// on `changed`. Every edit is an undoable command, and however many edits
// arrive in one event-loop turn, the scenario is evaluated once.
class ScenarioDocument : public QObject
{
    Q_OBJECT

public:
    explicit ScenarioDocument(core::Presets presets, QObject *parent = nullptr);
    ~ScenarioDocument() override;

    const core::Presets &presets() const { return m_presets; }
    const core::Scenario &scenario() const { return m_scenario; }
    // The latest evaluation; its `error` is set when the scenario is invalid.
    const core::Report &report() const { return m_currentIsValid ? m_lastValid : m_report; }
    // The last report without an error, for charts that keep showing it.
    const core::Report &lastValidReport() const { return m_lastValid; }
    // The scenario that produced lastValidReport().
    const core::Scenario &lastValidScenario() const { return m_lastValidScenario; }
    QUndoStack *undoStack() const { return m_undo; }
    // The Timeline's sweep, which the pages that draw time through the step share.
    Playhead *playhead() const { return m_playhead; }

    // Starts afresh on a scenario (a file opened at start-up): no undo step,
    // and the undo history is cleared.
    void reset(const core::Scenario &scenario);

    // Replaces the whole scenario as one undoable step (open, example).
    void setScenario(const core::Scenario &scenario, const QString &description);
    // The same for a built-in example: an untitled document nobody has edited stays
    // unmodified, since an example, like the default scenario, needs no saving.
    void loadExample(const core::Scenario &scenario, const QString &description);

    // Sets one key from its text form (the same as `--set`). Returns false,
    // and changes nothing, when the text does not parse. Edits that carry
    // the same non-zero `gesture` (one slider drag, one burst of key, wheel
    // or arrow-button steps on a control) merge into one undo step.
    bool setField(const QString &key, const QString &value, int gesture = 0);
    QString fieldText(const QString &key) const;

    // A new gesture id for a drag or a burst of key presses that should become one undo step.
    int beginGesture() { return ++m_lastGesture; }

    // Evaluates now if an evaluation is pending (tests, export).
    void flush();

    // Whether evaluations keep every block of the simulated schedule (Report::timeline): only
    // while a chart that draws them is on screen, since at K=64, m=1024 they are 131,072
    // blocks, 4 MB to fill in, move and copy on every edit. Turning it on evaluates the
    // timeline of the last valid scenario now, if its report has none.
    void setTimelineWanted(bool wanted);
    bool timelineWanted() const { return m_timelineWanted; }
    // Whether lastValidReport() holds the timeline.
    bool hasTimeline() const { return m_lastValidHasTimeline; }
    // Makes lastValidReport() hold the timeline, evaluating it now if it does not (export).
    // A pending evaluation stays pending: flush() first for the latest scenario.
    void ensureTimeline();

    // The scenario's file, empty for an unsaved scenario.
    QString filePath() const { return m_filePath; }
    // Changed since it was opened or saved.
    bool isModified() const;
    // Reads a scenario file and starts afresh on it. A file that does not
    // read or names an unknown preset is refused with the reason, and the
    // current scenario stays.
    std::optional<QString> open(const QString &path);
    // Saves atomically; on failure the old file is intact and the reason returned.
    std::optional<QString> save(const QString &path);
    // Starts afresh on a scenario that came from `path` (or from nowhere).
    void adopt(const core::Scenario &scenario, const QString &path, bool modified);

Q_SIGNALS:
    // The file path or the modified state changed.
    void fileStateChanged();

    // Emitted after each evaluation with the keys changed since the last one.
    void changed(ui::FieldMask keys);

private:
    friend class ScenarioCommand;
    // Sets the scenario without an undo step (used by the undo commands).
    void apply(const core::Scenario &scenario);
    void scheduleEvaluation();
    void evaluate();

    core::Presets m_presets;
    core::Scenario m_scenario;
    core::Scenario m_evaluated;
    core::Report m_report; // the latest report when it has an error
    core::Report m_lastValid;
    core::Scenario m_lastValidScenario;
    bool m_currentIsValid = true; // the latest report is m_lastValid (one copy, not two)
    bool m_timelineWanted = false;
    bool m_lastValidHasTimeline = false;
    QUndoStack *m_undo;
    Playhead *m_playhead;
    QString m_filePath;
    bool m_modifiedWithoutHistory = false;
    int m_lastGesture = 0;
    bool m_pending = false;
};

} // namespace ui
