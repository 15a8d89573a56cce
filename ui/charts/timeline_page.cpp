#include "ui/charts/timeline_page.h"

#include "io/text.h"
#include "ui/charts/bubble_page.h"
#include "ui/charts/step_time_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/formula_panel.h"
#include "ui/playhead.h"

#include <QEvent>
#include <QLabel>
#include <QObject>
#include <QVBoxLayout>

namespace ui {

namespace {

// The exported schedule with a title above it, bold and a little larger than the chart's
// text as the step-time chart's, following the font the export gives it.
class TitledTimeline : public QWidget
{
public:
    TitledTimeline(const QString &title, QWidget *parent)
        : QWidget(parent), m_title(new QLabel(title)), m_chart(new TimelineChart)
    {
        m_title->setObjectName(QStringLiteral("title"));
        m_title->setAlignment(Qt::AlignCenter);
        auto *layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_title);
        layout->addWidget(m_chart, 1);
        fitTitleFont();
    }

    TimelineChart *chart() const { return m_chart; }

protected:
    void changeEvent(QEvent *event) override
    {
        if (event->type() == QEvent::FontChange)
            fitTitleFont();
        QWidget::changeEvent(event);
    }

private:
    void fitTitleFont()
    {
        QFont title = font();
        title.setBold(true);
        title.setPointSizeF(title.pointSizeF() * 1.15);
        m_title->setFont(title);
    }

    QLabel *m_title;
    TimelineChart *m_chart;
};

// The schedule the timeline runs: inference runs the forwards in order, whatever the
// training schedule says.
core::Schedule drawnSchedule(const core::Scenario &s)
{
    return s.mode == core::Mode::training ? s.schedule : core::Schedule::gpipe;
}

} // namespace

QString TimelinePage::imageTitle(const core::Scenario &s)
{
    QString schedule = io::qs(core::toString(s.schedule));
    if (s.schedule == core::Schedule::interleaved)
        schedule += QStringLiteral(" (v = %1)").arg(s.virtualStages);
    else if (s.schedule == core::Schedule::dualPipeV)
        schedule += QObject::tr(" (2 chunks a stage, in a V)");
    else if (s.schedule == core::Schedule::dualPipe)
        schedule += QObject::tr(" (2 chunks a stage, one each way)");
    return QObject::tr("Schedule, K = %1 stages, m = %2 micro-batches, %3")
        .arg(s.pp)
        .arg(s.microbatches)
        .arg(schedule);
}

QString TimelinePage::title() const
{
    return QObject::tr("Timeline");
}

QString TimelinePage::subject() const
{
    return QObject::tr("Schedule");
}

// Every block's time follows from the whole scenario.
FieldMask TimelinePage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *TimelinePage::createWidget(ScenarioDocument *document)
{
    m_panel = new TimelinePanel;
    // The sweep and the range, for the pages that draw time through the step beside it.
    if (Playhead *playhead = document ? document->playhead() : nullptr) {
        TimelineChart *chart = m_panel->chart();
        QObject::connect(chart, &TimelineChart::playheadChanged, playhead, [chart, playhead] {
            playhead->setTime(chart->playhead(), chart->isTeaching(), chart->makespan());
        });
        QObject::connect(chart, &TimelineChart::visibleRangeChanged, playhead, [chart, playhead] {
            playhead->setVisibleRange(chart->visibleStart(), chart->visibleEnd());
        });
    }
    return m_panel;
}

void TimelinePage::update(const ChartInputs &inputs)
{
    if (m_drawn == inputs.scenario)
        return;
    m_drawn = inputs.scenario;
    m_panel->setReport(inputs.report, drawnSchedule(inputs.scenario));
}

std::unique_ptr<QWidget> TimelinePage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto image = std::make_unique<TitledTimeline>(imageTitle(inputs.scenario), parent);
    image->chart()->setReport(inputs.report, drawnSchedule(inputs.scenario));
    return image;
}

QString TimelinePage::formulas(const ChartInputs &inputs) const
{
    const core::Scenario &s = inputs.scenario;
    const core::Report &r = inputs.report;
    return StepTimePage::stepTimeFormulas(s, r) +
           formula::block(
               QObject::tr("Pipeline makespan"),
               QStringLiteral("makespan = %1 %2 for m = %3 micro-batches on K = %4 stages")
                   .arg(r.makespanS, 0, 'g', 4)
                   .arg(r.timeInLayerUnits ? QObject::tr("layer-times") : QStringLiteral("s"))
                   .arg(s.microbatches)
                   .arg(s.pp),
               QObject::tr("Each block: its layers' operations (docs/step_time.md) plus the "
                           "blocking send to the next stage; recomputation runs before its "
                           "backward")) +
           BubblePage::bubbleFormulas(s, r);
}

ChartData TimelinePage::data(const ChartInputs &inputs) const
{
    const core::Report &r = inputs.report;
    const QString unit = r.timeInLayerUnits ? QStringLiteral("layer-times") : QStringLiteral("s");
    ChartData d;
    d.title = imageTitle(inputs.scenario);
    d.columns << ChartColumn{QStringLiteral("stage"), {}}
              << ChartColumn{QStringLiteral("micro-batch"), {}}
              << ChartColumn{QStringLiteral("chunk"), {}} << ChartColumn{QStringLiteral("kind"), {}}
              << ChartColumn{QStringLiteral("start"), unit}
              << ChartColumn{QStringLiteral("end"), unit}
              << ChartColumn{QStringLiteral("send"), unit};
    for (const core::ScheduleOp &op : r.timeline)
        d.rows << QList<ChartValue>{qint64(op.stage), qint64(op.microbatch),
                                    qint64(op.chunk), QString::fromLatin1(core::opLetter(op.kind)),
                                    op.start,         op.end,
                                    op.send};
    return d;
}

} // namespace ui
