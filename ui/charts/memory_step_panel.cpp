#include "ui/charts/memory_step_panel.h"

#include "core/memory_timeline.h"
#include "ui/charts/memory_step_chart.h"
#include "ui/playhead.h"
#include "ui/widgets/focus_wheel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace ui {

namespace {

QString scheduleText(core::Schedule schedule)
{
    switch (schedule) {
    case core::Schedule::gpipe:
        return QObject::tr("GPipe");
    case core::Schedule::oneFOneB:
        return QObject::tr("1F1B");
    case core::Schedule::interleaved:
        return QObject::tr("interleaved 1F1B");
    case core::Schedule::zbH1:
        return QObject::tr("ZB-H1");
    case core::Schedule::dualPipeV:
        return QObject::tr("DualPipeV");
    case core::Schedule::dualPipe:
        return QObject::tr("DualPipe");
    }
    return {};
}

int shownStage(const ChartInputs &inputs, int stage)
{
    const int count = static_cast<int>(inputs.report.stages.size());
    return stage >= 0 && stage < count ? stage : core::highestStage(inputs.report);
}

} // namespace

MemoryStepPanel::MemoryStepPanel(Playhead *playhead, QWidget *parent)
    : QWidget(parent), m_playhead(playhead), m_chart(new MemoryStepChart), m_stage(new QComboBox),
      m_play(new QToolButton), m_summary(new QLabel)
{
    m_stage->setObjectName(QStringLiteral("memoryStage"));
    m_stage->setToolTip(tr("The pipeline stage whose device is drawn; at first the one with "
                           "the highest peak"));
    // Wide enough for "Highest peak (63)" without measuring every item on each change.
    m_stage->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    wheelOnlyWhenFocused(m_stage); // as the scenario's pickers: changed by the wheel once focused
    m_stage->setMinimumContentsLength(18);
    m_play->setObjectName(QStringLiteral("memoryPlay"));
    m_play->setText(tr("Play / pause"));
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_play->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_play->setToolTip(tr("Sweep the Timeline's schedule: this curve is drawn as it runs (F5)"));
    m_summary->setObjectName(QStringLiteral("memorySummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    // A row of its own under the bar, wrapping at the page's width: beside the controls, at
    // presentation mode's largest text, it widened the window past a 1,280-pixel screen.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // Its lines at the width it has, but no floor of its own: the height it would need at its
    // narrowest must not keep the charts from giving way to the docks.
    m_summary->setMinimumHeight(1);

    auto *stageLabel = new QLabel(tr("Stage:"));
    stageLabel->setBuddy(m_stage);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(stageLabel);
    bar->addWidget(m_stage);
    bar->addSpacing(12);
    bar->addWidget(m_play);
    bar->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 1);

    connect(m_stage, &QComboBox::currentIndexChanged, this, &MemoryStepPanel::redraw);
    if (m_playhead) {
        connect(m_play, &QToolButton::clicked, m_playhead, &Playhead::requestTogglePlay);
        connect(m_playhead, &Playhead::moved, this, &MemoryStepPanel::followPlayhead);
        connect(m_playhead, &Playhead::visibleRangeChanged, this, &MemoryStepPanel::followPlayhead);
    } else {
        m_play->hide();
    }
}

int MemoryStepPanel::stage() const
{
    return m_chart->timeline().stage;
}

int MemoryStepPanel::pickedStage() const
{
    const QVariant picked = m_stage->currentData();
    return picked.isValid() ? picked.toInt() : -1;
}

void MemoryStepPanel::setInputs(const ChartInputs &inputs)
{
    m_scenario = inputs.scenario;
    m_report = &inputs.report;
    m_presets = &inputs.presets;
    // The first entry follows the report's highest stage; the others name one.
    const int picked = m_stage->currentIndex();
    const int count = static_cast<int>(inputs.report.stages.size());
    const int highest = core::highestStage(inputs.report);
    {
        // Rebuilt only when the stages change: each item added lays the combo box (and the
        // window around it) out again, 65 times at K = 64 on every edit otherwise.
        const QSignalBlocker block(m_stage);
        if (m_stage->count() != count + 1) {
            m_stage->clear();
            m_stage->addItem(tr("Highest peak (%1)").arg(highest), -1);
            for (int i = 0; i < count; ++i)
                m_stage->addItem(tr("Stage %1").arg(i), i);
            m_stage->setCurrentIndex(picked > 0 && picked <= count ? picked : 0);
        } else if (const QString first = tr("Highest peak (%1)").arg(highest);
                   m_stage->itemText(0) != first) {
            m_stage->setItemText(0, first);
        }
    }
    redraw();
}

void MemoryStepPanel::redraw()
{
    if (!m_report || !m_presets)
        return;
    const ChartInputs inputs{*m_scenario, *m_presets, *m_report};
    const int stage = pickedStage();
    draw(m_chart, inputs, stage);
    m_summary->setText(summaryText(inputs, shownStage(inputs, stage)));
    followPlayhead();
}

// The Timeline's playhead and range, when they belong to the schedule drawn here: a
// Timeline still showing an older scenario leaves this chart whole.
void MemoryStepPanel::followPlayhead()
{
    if (!m_playhead)
        return;
    const double makespan = m_chart->timeline().makespan;
    const bool same = makespan > 0 && std::abs(m_playhead->makespan() - makespan) <=
                                          1e-12 * std::max(1.0, makespan);
    m_chart->setPlayhead(same ? m_playhead->time() : makespan, same && m_playhead->isSweeping());
    if (same)
        m_chart->setVisibleRange(m_playhead->visibleStart(), m_playhead->visibleEnd());
    else
        m_chart->setVisibleRange(0, makespan);
}

QString MemoryStepPanel::stageTitle(const ChartInputs &inputs, int stage)
{
    // Inference runs the forward passes only, whatever the training schedule says.
    return tr("stage %1 of %2 · %3 · m = %4")
        .arg(stage)
        .arg(inputs.report.pp)
        .arg(inputs.scenario.mode == core::Mode::training ? scheduleText(inputs.scenario.schedule)
                                                          : tr("forward only (inference)"))
        .arg(inputs.scenario.microbatches);
}

QString MemoryStepPanel::summaryText(const ChartInputs &inputs, int stage)
{
    const core::Report &r = inputs.report;
    if (stage < 0 || stage >= static_cast<int>(r.stages.size()))
        return {};
    const core::StageReport &st = r.stages[static_cast<std::size_t>(stage)];
    if (r.mode != core::Mode::training)
        return tr("Inference keeps no activations for a backward pass: memory is flat.");
    const QString alive = QString::number(st.inflightMicrobatches, 'g', 4);
    const int m = inputs.scenario.microbatches;
    switch (inputs.scenario.schedule) {
    case core::Schedule::gpipe:
        return tr("GPipe runs every forward first: all %1 of %2 micro-batches' activations are "
                  "alive at once.")
            .arg(alive)
            .arg(m);
    case core::Schedule::oneFOneB:
        // No-break spaces keep the formula on one line when the note wraps.
        return tr("1F1B frees one micro-batch per backward: at most %1 of %2 alive on stage %3 "
                  "(min(K\u00a0−\u00a0s,\u00a0m)).")
            .arg(alive)
            .arg(m)
            .arg(stage);
    case core::Schedule::interleaved:
        return tr("Interleaved 1F1B keeps chunks of the stage's layers: at most %1 of %2 "
                  "micro-batches' worth alive.")
            .arg(alive)
            .arg(m);
    case core::Schedule::zbH1:
        return tr("ZB-H1 frees activations at W, not B: at most %1 of %2 micro-batches alive.")
            .arg(alive)
            .arg(m);
    case core::Schedule::dualPipeV:
        // deepseek-ai/DualPipe, README: PP + 1 = 2K + 1 chunks of activations on every stage.
        return tr("DualPipeV keeps chunks of 1/2 of the stage, freed by a whole B or by a "
                  "zero-bubble B's W: at most %1 of %2 micro-batches' worth alive "
                  "(2K\u00a0+\u00a01 = %3 chunks).")
            .arg(alive)
            .arg(m)
            .arg(2 * inputs.report.pp + 1);
    case core::Schedule::dualPipe:
        // deepseek-ai/DualPipe, README: PP + 1 = K + 1 chunks, each one of the device's two
        // stages (its stage of each direction).
        return tr("DualPipe keeps chunks of one stage, half of the device's two, freed by a "
                  "whole B or by a zero-bubble B's W: at most %1 of %2 micro-batches' worth "
                  "alive (K\u00a0+\u00a01 = %3 chunks).")
            .arg(alive)
            .arg(m)
            .arg(inputs.report.pp + 1);
    }
    return {};
}

void MemoryStepPanel::draw(MemoryStepChart *chart, const ChartInputs &inputs, int stage)
{
    const core::Report &r = inputs.report;
    if (r.timelineRefused) {
        chart->setMessage(tr("Too many blocks to simulate: %1.")
                              .arg(QString::fromStdString(r.timelineRefused->toString())));
        return;
    }
    if (r.timeline.empty() || r.stages.empty()) {
        chart->setMessage(tr("No schedule to show."));
        return;
    }
    stage = shownStage(inputs, stage);
    chart->setTimeline(core::memoryTimeline(inputs.scenario, inputs.presets, r, stage),
                       stageTitle(inputs, stage), r.timeInLayerUnits);
}

} // namespace ui
