#pragma once

#include "ui/charts/chart_page.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace ui {

class MemoryStepChart;
class Playhead;

// The Memory over the step tab: a stage picker, Play / Pause for the Timeline's sweep, a
// line on how many micro-batches the schedule keeps, and the chart. It follows the shared
// playhead (ui::Playhead) and asks it to play; it never touches the Timeline.
class MemoryStepPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryStepPanel(Playhead *playhead, QWidget *parent = nullptr);

    // Draws a stage of the inputs (their report holds the timeline): the one picked, or the
    // highest while the picker says so.
    void setInputs(const ChartInputs &inputs);

    MemoryStepChart *chart() const { return m_chart; }
    QComboBox *stagePicker() const { return m_stage; }
    QToolButton *playButton() const { return m_play; }
    QLabel *summary() const { return m_summary; }
    // The stage on screen.
    int stage() const;
    // The stage the picker names, or -1 for the highest (also before anything is drawn).
    int pickedStage() const;

    // A chart of one stage of the inputs, as the tab draws it; stage -1 is the highest.
    static void draw(MemoryStepChart *chart, const ChartInputs &inputs, int stage);
    // "Stage 0 of 4 · 1F1B · m = 8", the chart's title.
    static QString stageTitle(const ChartInputs &inputs, int stage);
    // Why a peak is what it is: "1F1B keeps at most 4 of 8 micro-batches' activations ...".
    static QString summaryText(const ChartInputs &inputs, int stage);

private:
    void redraw();
    void followPlayhead();

    Playhead *m_playhead;
    MemoryStepChart *m_chart;
    QComboBox *m_stage;
    QToolButton *m_play;
    QLabel *m_summary;
    std::optional<core::Scenario> m_scenario;
    // The report drawn from, not a copy (its schedule is 131,072 blocks at K = 64, m = 1024):
    // the document's last valid report, which the window updates this page for whenever it
    // changes while the page shows, or an export's, which outlives the image.
    const core::Report *m_report = nullptr;
    const core::Presets *m_presets = nullptr;
};

} // namespace ui
