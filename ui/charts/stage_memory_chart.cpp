#include "ui/charts/stage_memory_chart.h"

#include "core/units.h"
#include "ui/charts/bar_labels.h"
#include "ui/charts/chart_style.h"
#include "ui/units.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

double toGb(std::int64_t bytes)
{
    return units::large(static_cast<double>(bytes));
}

} // namespace

StageMemoryChart::StageMemoryChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)),
      m_bars(new QStackedBarSeries), m_capacity(new QLineSeries),
      m_compareCapacity(new QLineSeries), m_stageAxis(new QBarCategoryAxis),
      m_memoryAxis(new QValueAxis), m_lineAxis(new QValueAxis)
{
    m_chart->setTitle(tr("Memory per device, by pipeline stage"));
    m_chart->legend()->setAlignment(Qt::AlignRight); // seven terms do not fit in a row
    m_view->setRenderHint(QPainter::Antialiasing);

    for (std::size_t i = 0; i < std::size(core::kMemoryTerms); ++i) {
        auto *set = new QBarSet(tr(core::kMemoryTerms[i].label));
        set->setColor(chart_style::series(i));
        set->setBorderColor(chart_style::series(i).darker(130));
        // Comparing, plan B's bars are the same colours, lighter ("selected" bars).
        set->setSelectedColor(chart_style::series(i).lighter(140));
        m_bars->append(set);
        m_sets.append(set);
    }
    m_chart->addSeries(m_bars);

    m_capacity->setName(tr("Device capacity"));
    m_capacity->setPen(chart_style::capacityPen());
    m_chart->addSeries(m_capacity);

    m_stageAxis->setTitleText(tr("Pipeline stage"));
    m_memoryAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(m_stageAxis, Qt::AlignBottom);
    m_chart->addAxis(m_memoryAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    chart_style::groupDigits(m_chart);
    // The capacity line spans the bars on a hidden value axis over the same range.
    m_lineAxis->setVisible(false);
    // It numbers the stages when the categories have no room for their labels.
    m_lineAxis->setTitleText(m_stageAxis->titleText());
    m_lineAxis->setLabelFormat(
        QStringLiteral("%.0f")); // "%d" prints nothing with localised numbers
    m_lineAxis->setTickType(QValueAxis::TicksDynamic);
    m_lineAxis->setTickAnchor(0);
    m_lineAxis->setTickInterval(1);
    m_lineAxis->setGridLineVisible(false);
    m_lineAxis->setMinorGridLineVisible(false);
    m_chart->addAxis(m_lineAxis, Qt::AlignBottom);
    m_bars->attachAxis(m_stageAxis);
    m_bars->attachAxis(m_memoryAxis);
    m_capacity->attachAxis(m_lineAxis);
    m_capacity->attachAxis(m_memoryAxis);

    // Plan B's capacity (File → Compare with…), dotted.
    m_compareCapacity->setPen(chart_style::groupCapacityPen());
    m_chart->addSeries(m_compareCapacity);
    m_compareCapacity->attachAxis(m_lineAxis);
    m_compareCapacity->attachAxis(m_memoryAxis);
    m_compareCapacity->setVisible(false);

    m_totals = new BarLabels(m_chart, m_bars, m_memoryAxis);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    // The labels that fit depend on the plot's width: chosen again once it is laid out.
    connect(m_chart, &QChart::plotAreaChanged, this, &StageMemoryChart::labelStages,
            Qt::QueuedConnection);
}

void StageMemoryChart::setReport(const core::Report &report, const core::Report *compare,
                                 const QString &compareName)
{
    // Comparing, each stage has two slots side by side: plan A's bar, then plan B's.
    std::vector<const core::Report *> plans{&report};
    if (compare)
        plans.push_back(compare);
    m_plans = static_cast<int>(plans.size());
    std::size_t count = 0;
    for (const core::Report *r : plans)
        count = std::max(count, r->stages.size());
    m_stages.clear();
    double peak = 0;
    for (std::size_t i = 0; i < count; ++i)
        for (int p = 0; p < m_plans; ++p) {
            const auto &stages = plans[std::size_t(p)]->stages;
            const bool present = i < stages.size();
            m_stages.append(
                {static_cast<int>(i), !present || stages[i].fits, compare ? p : -1, present});
            if (present)
                peak = std::max(peak, toGb(stages[i].totalBytes));
        }
    QList<int> slotsB;
    for (qsizetype j = 0; j < m_stages.size(); ++j)
        if (m_stages[j].plan == 1)
            slotsB << static_cast<int>(j);
    // Only what changed: at K=64 every new label or bar costs Qt Charts a layout of all 64.
    for (qsizetype t = 0; t < m_sets.size(); ++t) {
        QBarSet *set = m_sets[t];
        QList<qreal> values;
        for (const StageLabel &slot : std::as_const(m_stages))
            values << (slot.present ? toGb(plans[std::size_t(std::max(slot.plan, 0))]
                                               ->stages[std::size_t(slot.index)].*
                                           core::kMemoryTerms[t].bytes)
                                    : 0.0);
        // Qt Charts lays every bar out again for each value replaced, and twice for a set
        // refilled: a drag of the sequence length changes every stage's activations.
        qsizetype changed = 0;
        for (qsizetype j = 0; j < values.size() && j < set->count(); ++j)
            changed += set->at(int(j)) != values[j];
        if (set->count() != values.size() || changed > 2) {
            set->remove(0, set->count());
            set->append(values);
        } else {
            for (int j = 0; j < set->count(); ++j)
                if (set->at(j) != values[j])
                    set->replace(j, values[j]);
        }
        // Qt Charts keeps the selection as a set: its list comes in no particular order.
        QList<int> selected = set->selectedBars();
        std::sort(selected.begin(), selected.end());
        if (selected != slotsB) {
            set->deselectAllBars();
            set->selectBars(slotsB);
        }
    }
    labelStages();
    // Only the terms either plan has are listed in the legend.
    const auto markers = m_chart->legend()->markers(m_bars);
    bool legendChanged = false;
    for (qsizetype i = 0; i < m_sets.size() && i < markers.size(); ++i) {
        bool shown = false;
        for (int j = 0; j < m_sets[i]->count(); ++j)
            shown = shown || m_sets[i]->at(j) > 0;
        // Each setVisible() lays the whole chart out again; isVisible() is the graphics
        // item's, false until the legend is laid out, so the marker keeps what it was told.
        QLegendMarker *marker = markers[i];
        if (const QVariant was = marker->property("shownTerm"); !was.isValid() || was != shown) {
            marker->setVisible(shown);
            marker->setProperty("shownTerm", shown);
            legendChanged = true;
        }
    }
    // Qt Charts leaves the legend laid out for the entries it had (an entry shown again sits
    // unlabelled in a corner, the next one over another): lay it out anew, now or when shown.
    if (legendChanged) {
        if (isVisible())
            relayoutLegend();
        else
            m_legendStale = true;
    }

    // The lines run on a hidden axis in stages: slot j of the bars sits at j / m_plans.
    const double slots = static_cast<double>(m_stages.size());
    const double left = -0.5 / m_plans;
    const double right = (slots - 0.5) / m_plans;
    const double capacity = report.stages.empty() ? 0 : toGb(report.stages.front().capacityBytes);
    const double capacityB =
        compare && !compare->stages.empty() ? toGb(compare->stages.front().capacityBytes) : 0;
    m_compareCapacity->replace({QPointF(left, capacityB), QPointF(right, capacityB)});
    // On two lines: the legend is at most a third of the chart wide (presentation mode).
    m_compareCapacity->setName(tr("%1:<br>capacity %2 %3")
                                   .arg(compareName.toHtmlEscaped())
                                   .arg(capacityB, 0, 'f', 1)
                                   .arg(units::largeName()));
    m_compareCapacity->setVisible(compare != nullptr);
    peak = std::max(peak, capacityB);
    m_lineAxis->setRange(left, right);
    m_capacity->replace({QPointF(left, capacity), QPointF(right, capacity)});
    const QString capacityText =
        tr("capacity %1 %2").arg(capacity, 0, 'f', 1).arg(units::largeName());
    m_capacity->setName(
        compare ? tr("A (current):<br>%1").arg(capacityText)
                : tr("Capacity %1 %2").arg(capacity, 0, 'f', 1).arg(units::largeName()));
    m_memoryAxis->setTitleText(tr("Memory per device (%1)").arg(units::largeName()));

    chart_style::setNiceRange(m_memoryAxis, std::max(peak, capacity));

    QList<QPointF> tops;
    QStringList texts;
    m_totalsB.clear();
    for (qsizetype j = 0; j < m_stages.size(); ++j) {
        const StageLabel &slot = m_stages[j];
        if (!slot.present)
            continue;
        const core::StageReport &st =
            plans[std::size_t(std::max(slot.plan, 0))]->stages[std::size_t(slot.index)];
        const double total = toGb(st.totalBytes);
        tops << QPointF(static_cast<qreal>(j), total);
        if (slot.plan == 1)
            m_totalsB << total;
        // offload_layers: the activations the device does not hold, in host memory beside it.
        texts << (st.offloadedBytes > 0
                      ? tr("%1, + %2 on the host")
                            .arg(chartNumber(total), chartNumber(toGb(st.offloadedBytes)))
                      : chartNumber(total));
    }
    m_totals->setLines(compare ? QList<qreal>{capacity, capacityB} : QList<qreal>{capacity});
    m_totals->setLabels(tops, texts);
}

void StageMemoryChart::labelStages()
{
    // The room per stage: the plot's width once laid out, else most of the widget's.
    const qreal plot =
        m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : width() * 0.6;
    const qreal slot = m_stages.isEmpty() ? plot : plot / m_stages.size();
    const QFontMetricsF metrics(m_stageAxis->labelsFont());
    // Qt Charts keeps some of a category's width as padding.
    const qreal gap = metrics.horizontalAdvance(QStringLiteral("    "));
    auto widest = [&](auto label) {
        qreal w = 0;
        for (const StageLabel &stage : std::as_const(m_stages))
            w = std::max(w, metrics.horizontalAdvance(label(stage)) + gap);
        return w;
    };
    // Comparing, a slot is named by its plan: "A 3", "B 3".
    auto plan = [](const StageLabel &s) {
        return s.plan < 0 ? QString() : s.plan == 0 ? QStringLiteral("A") : QStringLiteral("B");
    };
    auto full = [&](const StageLabel &s) {
        if (s.plan >= 0)
            return s.fits ? tr("%1 %2").arg(plan(s)).arg(s.index)
                          : tr("%1 %2 ✗").arg(plan(s)).arg(s.index);
        return s.fits ? tr("Stage %1").arg(s.index) : tr("Stage %1 ✗ over").arg(s.index);
    };
    auto number = [&](const StageLabel &s) {
        const QString n = plan(s) + QString::number(s.index);
        return s.fits ? n : tr("%1 ✗").arg(n);
    };
    QStringList categories;
    int every = 0; // 0: every stage labelled on the category axis
    if (widest(full) <= slot) {
        for (const StageLabel &stage : std::as_const(m_stages))
            categories << full(stage);
    } else if (widest(number) <= slot) {
        for (const StageLabel &stage : std::as_const(m_stages))
            categories << number(stage);
    } else {
        // Qt Charts cuts a category's label to the category's width ("…" at K = 64): the
        // numbers go on the hidden stage-number axis instead, every n-th stage.
        const qreal needed = widest(number);
        for (const int step : {2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 256})
            if ((every = step) * slot >= needed)
                break;
        for (const StageLabel &stage : std::as_const(m_stages))
            categories << number(stage);
    }
    if (m_stageAxis->categories() != categories)
        m_stageAxis->setCategories(categories);
    const bool thinned = every > 0;
    if (m_stageAxis->labelsVisible() == thinned) {
        m_stageAxis->setLabelsVisible(!thinned);
        m_stageAxis->setTitleVisible(!thinned);
        m_lineAxis->setVisible(thinned);
    }
    if (thinned && m_lineAxis->tickInterval() != every)
        m_lineAxis->setTickInterval(every);
    fitLegend();
}

void StageMemoryChart::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_legendStale)
        return;
    m_legendStale = false;
    relayoutLegend();
}

void StageMemoryChart::relayoutLegend()
{
    // A change of side is the one change that makes Qt Charts place every visible entry anew.
    QLegend *legend = m_chart->legend();
    const Qt::Alignment alignment = legend->alignment();
    legend->setAlignment(alignment == Qt::AlignRight ? Qt::AlignLeft : Qt::AlignRight);
    legend->setAlignment(alignment);
}

void StageMemoryChart::fitLegend()
{
    // Qt Charts drops the legend's last entries when they are taller than the chart (large
    // text on a projector): the legend's text shrinks until every entry has a line.
    QLegend *legend = m_chart->legend();
    int entries = 0;
    for (QLegendMarker *marker : legend->markers())
        entries += marker->isVisible() ? 1 : 0;
    const qreal room = m_chart->size().height() - 2 * QFontMetricsF(m_chart->titleFont()).height();
    if (entries == 0 || room <= 0)
        return;
    QFont font = legend->font();
    const qreal perEntry = room / entries;
    // A marker's line is about 1.6 times the text's height (Qt Charts' legend layout).
    const qreal fits = perEntry / 1.6 / QFontMetricsF(font).height() * font.pointSizeF();
    if (fits < font.pointSizeF() && fits >= 4) {
        font.setPointSizeF(fits);
        legend->setFont(font);
    }
}

QStringList StageMemoryChart::shownLabels() const
{
    if (m_stageAxis->labelsVisible())
        return m_stageAxis->categories();
    // The numbered axis: a label at every tick from 0.
    const int every = static_cast<int>(m_lineAxis->tickInterval());
    QStringList labels;
    for (const StageLabel &slot : std::as_const(m_stages))
        labels << (slot.index % every == 0 && slot.plan <= 0 ? QString::number(slot.index)
                                                             : QString());
    return labels;
}

QList<qreal> StageMemoryChart::planValues(const QString &term, int plan) const
{
    for (const QBarSet *set : m_sets)
        if (set->label() == term) {
            QList<qreal> out;
            for (qsizetype i = 0; i < set->count() && i < m_stages.size(); ++i)
                if (m_stages[i].present && std::max(m_stages[i].plan, 0) == plan)
                    out << set->at(static_cast<int>(i));
            return out;
        }
    return {};
}

QList<qreal> StageMemoryChart::values(const QString &term) const
{
    return planValues(term, 0);
}

QList<int> StageMemoryChart::lighterSlots(const QString &term) const
{
    for (const QBarSet *set : m_sets)
        if (set->label() == term) {
            QList<int> slots = set->selectedBars();
            std::sort(slots.begin(), slots.end());
            return slots;
        }
    return {};
}

QList<qreal> StageMemoryChart::comparisonValues(const QString &term) const
{
    return m_plans > 1 ? planValues(term, 1) : QList<qreal>{};
}

qreal StageMemoryChart::capacityGb() const
{
    return m_capacity->count() > 0 ? m_capacity->at(0).y() : 0;
}

qreal StageMemoryChart::comparisonCapacityGb() const
{
    return m_compareCapacity->isVisible() && m_compareCapacity->count() > 0
               ? m_compareCapacity->at(0).y()
               : 0;
}

QString StageMemoryChart::comparisonCapacityName() const
{
    return m_compareCapacity->isVisible() ? m_compareCapacity->name() : QString();
}

QList<qreal> StageMemoryChart::comparison() const
{
    return m_totalsB;
}

QStringList StageMemoryChart::legendLabels() const
{
    QStringList out;
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (marker->isVisible() && marker->series()->isVisible())
            out << marker->label();
    return out;
}

QString StageMemoryChart::axisTitle() const
{
    return m_memoryAxis->titleText();
}

QString StageMemoryChart::capacityName() const
{
    return m_capacity->name();
}

QStringList StageMemoryChart::categories() const
{
    return m_stageAxis->categories();
}

} // namespace ui
