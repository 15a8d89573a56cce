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
#include <QScatterSeries>
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
      m_bars(new QStackedBarSeries), m_capacity(new QLineSeries), m_compare(new QScatterSeries),
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
    m_lineAxis->setLabelFormat(QStringLiteral("%d"));
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

    // Plan B (File → Compare with…): its totals as black diamonds, its capacity dotted.
    m_compare->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
    m_compare->setMarkerSize(16);
    m_compare->setColor(chart_style::black());
    m_compare->setBorderColor(Qt::white);
    m_compareCapacity->setPen(chart_style::groupCapacityPen());
    for (QXYSeries *series :
         {static_cast<QXYSeries *>(m_compare), static_cast<QXYSeries *>(m_compareCapacity)}) {
        m_chart->addSeries(series);
        series->attachAxis(m_lineAxis);
        series->attachAxis(m_memoryAxis);
        series->setVisible(false);
    }

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
    m_stages.clear();
    double peak = 0;
    for (const auto &stage : report.stages) {
        m_stages.append({stage.index, stage.fits});
        peak = std::max(peak, toGb(stage.totalBytes));
    }
    QList<QPointF> totalsB;
    if (compare)
        for (const auto &stage : compare->stages) {
            totalsB.append(QPointF(stage.index, toGb(stage.totalBytes)));
            peak = std::max(peak, toGb(stage.totalBytes));
            if (stage.index >= m_stages.size())
                m_stages.append({stage.index, true});
        }
    // Only what changed: at K=64 every new label or bar costs Qt Charts a layout of all 64.
    for (qsizetype i = 0; i < m_sets.size(); ++i) {
        QBarSet *set = m_sets[i];
        QList<qreal> values;
        for (const auto &stage : report.stages)
            values << toGb(stage.*core::kMemoryTerms[i].bytes);
        if (set->count() != values.size()) {
            set->remove(0, set->count());
            set->append(values);
            continue;
        }
        for (int j = 0; j < set->count(); ++j)
            if (set->at(j) != values[j])
                set->replace(j, values[j]);
    }
    labelStages();
    // Only the terms this scenario has are listed in the legend.
    const auto markers = m_chart->legend()->markers(m_bars);
    for (qsizetype i = 0; i < m_sets.size() && i < markers.size(); ++i) {
        const QList<qreal> values = this->values(m_sets[i]->label());
        const bool shown = std::any_of(values.begin(), values.end(), [](qreal v) { return v > 0; });
        // Each setVisible() lays the whole chart out again; isVisible() is the graphics
        // item's, false until the legend is laid out, so the marker keeps what it was told.
        QLegendMarker *marker = markers[i];
        if (const QVariant was = marker->property("shownTerm"); !was.isValid() || was != shown) {
            marker->setVisible(shown);
            marker->setProperty("shownTerm", shown);
        }
    }

    const double capacity = report.stages.empty() ? 0 : toGb(report.stages.front().capacityBytes);
    const double stages = static_cast<double>(m_stages.size());
    m_compare->replace(totalsB);
    m_compare->setName(tr("%1: total per device").arg(compareName));
    m_compare->setVisible(compare != nullptr);
    const double capacityB =
        compare && !compare->stages.empty() ? toGb(compare->stages.front().capacityBytes) : 0;
    m_compareCapacity->replace({QPointF(-0.5, capacityB), QPointF(stages - 0.5, capacityB)});
    m_compareCapacity->setName(tr("%1: capacity %2 %3")
                                   .arg(compareName)
                                   .arg(capacityB, 0, 'f', 1)
                                   .arg(units::largeName()));
    m_compareCapacity->setVisible(compare && capacityB != capacity);
    peak = std::max(peak, capacityB);
    m_lineAxis->setRange(-0.5, stages - 0.5);
    m_capacity->replace({QPointF(-0.5, capacity), QPointF(stages - 0.5, capacity)});
    m_capacity->setName(tr("Capacity %1 %2").arg(capacity, 0, 'f', 1).arg(units::largeName()));
    m_memoryAxis->setTitleText(tr("Memory per device (%1)").arg(units::largeName()));

    chart_style::setNiceRange(m_memoryAxis, std::max(peak, capacity));

    QList<QPointF> tops;
    QStringList texts;
    for (const auto &stage : report.stages) {
        tops << QPointF(stage.index, toGb(stage.totalBytes));
        texts << chartNumber(toGb(stage.totalBytes));
    }
    m_totals->setLines(m_compareCapacity->isVisible() ? QList<qreal>{capacity, capacityB}
                                                      : QList<qreal>{capacity});
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
    auto full = [this](const StageLabel &s) {
        return s.fits ? tr("Stage %1").arg(s.index) : tr("Stage %1 ✗ over").arg(s.index);
    };
    auto number = [this](const StageLabel &s) {
        return s.fits ? QString::number(s.index) : tr("%1 ✗").arg(s.index);
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
    for (qsizetype i = 0; i < m_stages.size(); ++i)
        labels << (i % every == 0 ? QString::number(i) : QString());
    return labels;
}

QList<qreal> StageMemoryChart::values(const QString &term) const
{
    for (const QBarSet *set : m_sets)
        if (set->label() == term) {
            QList<qreal> out;
            for (int i = 0; i < set->count(); ++i)
                out << set->at(i);
            return out;
        }
    return {};
}

qreal StageMemoryChart::capacityGb() const
{
    return m_capacity->count() > 0 ? m_capacity->at(0).y() : 0;
}

QList<qreal> StageMemoryChart::comparison() const
{
    QList<qreal> out;
    if (m_compare->isVisible())
        for (const QPointF &p : m_compare->points())
            out << p.y();
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
