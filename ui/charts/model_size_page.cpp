#include "ui/charts/model_size_page.h"

#include "io/text.h"
#include "ui/charts/model_size_chart.h"
#include "ui/formula_panel.h"

#include <QObject>

namespace ui {

QString ModelSizePage::title() const
{
    return QObject::tr("Model weights");
}

QString ModelSizePage::subject() const
{
    return QObject::tr("Model size");
}

// The model's size at each precision, the scenario's precision, one device's memory and T.
FieldMask ModelSizePage::dependsOn() const
{
    return FieldMask::of({"model", "device", "tp", "precision"});
}

QWidget *ModelSizePage::createWidget(ScenarioDocument *)
{
    return m_chart = new ModelSizeChart;
}

void ModelSizePage::update(const ChartInputs &inputs)
{
    m_chart->setReport(inputs.report);
}

std::unique_ptr<QWidget> ModelSizePage::createImage(const ChartInputs &inputs,
                                                    QWidget *parent) const
{
    auto chart = std::make_unique<ModelSizeChart>(parent);
    chart->setReport(inputs.report);
    return chart;
}

QString ModelSizePage::formulas(const ChartInputs &inputs) const
{
    using formula::block;
    using formula::bytes;
    const core::Report &r = inputs.report;
    QString rows;
    for (const auto &size : r.sizeByPrecision)
        rows += QStringLiteral("%1: %2<br>")
                    .arg(io::qs(core::toString(size.precision)), bytes(size.nominalBytes));
    QString exact;
    for (const auto &size : r.sizeByPrecision)
        if (size.precision == r.precision)
            exact = block(
                QObject::tr("The bars: exact count × bytes per value"),
                // The format's own bytes a value: the bar is the weights stored in it, not the
                // 16-bit copy FP8 or NVFP4 training may hold (weightBytesPerParam).
                QStringLiteral("%1 × %2 B = %3")
                    .arg(io::formatCount(r.params))
                    .arg(core::bitsPerValue(size.precision) / 8)
                    .arg(bytes(size.bytes)),
                QObject::tr("Parameters counted from the architecture (docs/DESIGN.md §3.1)"));
    return exact +
           block(QObject::tr("Published tables: nominal size × bytes per value"),
                 QStringLiteral("%1 × bytes =<br>%2").arg(io::formatCount(r.nominalParams), rows),
                 QObject::tr("docs/worked-examples.md §1 (405B → 810 / 405 / 202.5 GB); q8_0 and "
                             "q4_0 carry an FP16 scale per 32 weights (llama.cpp), nvfp4 an FP8 "
                             "scale per 16 (NVIDIA's NVFP4)"));
}

// The whole model's weights at every precision, in bytes.
ChartData ModelSizePage::data(const ChartInputs &inputs) const
{
    const core::Report &r = inputs.report;
    ChartData d;
    d.title = QObject::tr("Weights of %1 by precision").arg(io::qs(r.modelName));
    d.columns << ChartColumn{QStringLiteral("precision"), {}}
              << ChartColumn{QStringLiteral("exact"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("nominal"), QStringLiteral("bytes")};
    for (const core::PrecisionSize &size : r.sizeByPrecision)
        d.rows << QList<ChartValue>{io::qs(core::toString(size.precision)), qint64(size.bytes),
                                    qint64(size.nominalBytes)};
    return d;
}

} // namespace ui
