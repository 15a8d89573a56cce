#include "ui/charts/model_size_chart.h"

#include "core/units.h"
#include "io/text.h"
#include "ui/charts/bar_labels.h"
#include "ui/charts/chart_style.h"
#include "ui/units.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace ui {

ModelSizeChart::ModelSizeChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)),
      m_weights(new QBarSet(tr("Weights"))), m_device(new QLineSeries), m_group(new QLineSeries),
      m_precisionAxis(new QBarCategoryAxis), m_sizeAxis(new QValueAxis), m_lineAxis(new QValueAxis)
{
    m_chart->setTitle(tr("Model weights by precision"));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_view->setRenderHint(QPainter::Antialiasing);

    auto *bars = new QBarSeries;
    m_weights->setColor(chart_style::skyBlue());
    m_weights->setSelectedColor(chart_style::weights());
    bars->append(m_weights);
    m_chart->addSeries(bars);

    m_device->setPen(chart_style::capacityPen());
    m_group->setPen(chart_style::groupCapacityPen());
    m_chart->addSeries(m_device);
    m_chart->addSeries(m_group);

    m_precisionAxis->setTitleText(tr("Precision"));
    m_sizeAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(m_precisionAxis, Qt::AlignBottom);
    m_chart->addAxis(m_sizeAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    chart_style::groupDigits(m_chart);
    m_lineAxis->setVisible(false);
    m_chart->addAxis(m_lineAxis, Qt::AlignBottom);
    bars->attachAxis(m_precisionAxis);
    bars->attachAxis(m_sizeAxis);
    for (QLineSeries *line : {m_device, m_group}) {
        line->attachAxis(m_lineAxis);
        line->attachAxis(m_sizeAxis);
    }

    m_labels = new BarLabels(m_chart, bars, m_sizeAxis);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void ModelSizeChart::setReport(const core::Report &report)
{
    QStringList categories;
    QList<qreal> values;
    for (const auto &size : report.sizeByPrecision) {
        categories << io::qs(core::toString(size.precision));
        values << units::large(static_cast<double>(size.bytes));
    }
    m_weights->remove(0, m_weights->count());
    m_weights->append(values);
    // The scenario's precision stands out.
    for (qsizetype i = 0; i < categories.size(); ++i)
        if (report.sizeByPrecision[std::size_t(i)].precision == report.precision)
            m_weights->selectBar(int(i));
    m_precisionAxis->setCategories(categories);
    m_chart->setTitle(tr("%1: weights by precision").arg(io::qs(report.modelName)));

    const double device =
        report.stages.empty()
            ? 0
            : units::large(static_cast<double>(report.stages.front().capacityBytes));
    const double group = device * report.tp;
    const double n = static_cast<double>(categories.size());
    m_lineAxis->setRange(-0.5, n - 0.5);
    m_device->replace({QPointF(-0.5, device), QPointF(n - 0.5, device)});
    m_group->replace({QPointF(-0.5, group), QPointF(n - 0.5, group)});
    m_device->setName(tr("One %1 (%2 %3)")
                          .arg(io::qs(report.deviceName))
                          .arg(device, 0, 'f', 1)
                          .arg(units::largeName()));
    m_group->setName(
        tr("T = %1 devices (%2 %3)").arg(report.tp).arg(group, 0, 'f', 1).arg(units::largeName()));
    m_sizeAxis->setTitleText(tr("Weights (%1)").arg(units::largeName()));
    m_group->setVisible(report.tp > 1);
    QList<QPointF> tops;
    QStringList texts;
    for (qsizetype i = 0; i < values.size(); ++i) {
        tops << QPointF(double(i), values[i]);
        texts << chartNumber(values[i]);
    }
    m_labels->setLines(report.tp > 1 ? QList<qreal>{device, group} : QList<qreal>{device});
    m_labels->setLabels(tops, texts);

    const double peak = values.isEmpty() ? 0 : *std::max_element(values.begin(), values.end());
    chart_style::setNiceRange(m_sizeAxis, std::max({peak, device, report.tp > 1 ? group : 0.0}));
}

QList<qreal> ModelSizeChart::values() const
{
    QList<qreal> out;
    for (int i = 0; i < m_weights->count(); ++i)
        out << m_weights->at(i);
    return out;
}

QString ModelSizeChart::highlighted() const
{
    const QList<int> selected = m_weights->selectedBars();
    return selected.size() == 1 ? m_precisionAxis->at(selected.constFirst()) : QString();
}

QStringList ModelSizeChart::categories() const
{
    return m_precisionAxis->categories();
}

qreal ModelSizeChart::deviceCapacityGb() const
{
    return m_device->count() > 0 ? m_device->at(0).y() : 0;
}

qreal ModelSizeChart::groupCapacityGb() const
{
    return m_group->count() > 0 ? m_group->at(0).y() : 0;
}

} // namespace ui
