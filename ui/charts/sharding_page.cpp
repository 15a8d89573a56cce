#include "ui/charts/sharding_page.h"

#include "core/validate.h"
#include "io/text.h"
#include "ui/charts/expert_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/formula_panel.h"
#include "ui/sharding_verifier.h"

#include <QObject>
#include <QPushButton>
#include <QTabBar>

namespace ui {

QString ShardingPage::title() const
{
    return QObject::tr("Sharding");
}

QString ShardingPage::subject() const
{
    return QObject::tr("Tensor-parallel sharding");
}

// The keys core::shardRequestFor reads, and the device.
FieldMask ShardingPage::dependsOn() const
{
    return FieldMask::of({"model", "device", "precision", "tp", "ep", "seq_len", "microbatch_size",
                          "mfu", "inter_node_gb_per_s"});
}

QWidget *ShardingPage::createWidget(ScenarioDocument *document)
{
    m_chart = new ShardingChart;
    new ShardingVerifier(document, m_chart, dependsOn()); // parented to the chart
    return m_chart;
}

void ShardingPage::update(const ChartInputs &inputs)
{
    m_report = core::analyzeScenarioSharding(inputs.scenario, inputs.presets);
    m_chart->setReport(*m_report, io::qs(inputs.report.modelName));
    // The expert demonstrator has its own controls; when the scenario's model or E changes to
    // one with experts, they start from its experts, top-k and E (docs/sharding.md).
    const core::ModelSpec *model = core::resolveModel(inputs.scenario, inputs.presets);
    const QString followed = model && model->hasExperts()
                                 ? io::qs(model->id) + u'/' + QString::number(inputs.scenario.ep)
                                 : QString();
    if (!followed.isEmpty() && followed != m_followedModel)
        m_chart->experts()->followModel(model->experts, model->expertsPerToken, inputs.scenario.ep);
    m_followedModel = followed;
    m_chart->experts()->redraw();
}

std::unique_ptr<QWidget> ShardingPage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<ShardingChart>(parent);
    chart->setReport(core::analyzeScenarioSharding(inputs.scenario, inputs.presets),
                     io::qs(inputs.report.modelName));
    chart->verifyButton()->hide(); // a button means nothing in an image
    chart->modeBar()->hide();      // the image is the feed-forward splits
    return chart;
}

QString ShardingPage::formulas(const ChartInputs &inputs) const
{
    using formula::block;
    const core::Scenario &s = inputs.scenario;
    QString out = block(
        QObject::tr("Ring all-reduce"),
        QStringLiteral("2(T−1)/T × payload = 2×%1/%2 × payload per device").arg(s.tp - 1).arg(s.tp),
        QObject::tr("Patarasuk & Yuan 2009; all-gather and reduce-scatter move (T−1)/T"));
    out += block(QObject::tr("Columns then rows"), QStringLiteral("one all-reduce of tokens × h"),
                 QObject::tr("Shoeybi et al. 2019 (Megatron-LM), §3, Fig. 3a"));
    out += block(QObject::tr("Rows then rows"),
                 QStringLiteral("all-reduce(tokens × f) + all-reduce(tokens × h)"),
                 QObject::tr("Splitting both matrices the same way needs more "
                             "all-reduces; docs/sharding.md"));
    out += block(QObject::tr("Expert parallel, each all-to-all"),
                 QStringLiteral("tokens/E × k × h × bytes × (E−1)/E sent per device"),
                 QObject::tr("Lepikhin et al. 2021 (GShard), dispatch and combine; balanced "
                             "routing, one copy per (token, expert); docs/sharding.md"));
    // The link, once the page has analysed this scenario's layer.
    if (m_report && m_report->ok())
        out += block(QObject::tr("Link"),
                     QStringLiteral("%1, %2 GB/s per direction; best split %3× faster")
                         .arg(io::qs(core::toString(m_report->link.kind)))
                         .arg(m_report->link.gbPerS)
                         .arg(m_report->speedupBestOverWorst, 0, 'f', 2),
                     QObject::tr("docs/DESIGN.md §3.2: NVLink figures halved to per direction"));
    return out;
}

// One row per way of splitting the two matrices, as the chart's bars.
ChartData ShardingPage::data(const ChartInputs &inputs) const
{
    const core::ShardReport report = core::analyzeScenarioSharding(inputs.scenario, inputs.presets);
    ChartData d;
    d.title =
        QObject::tr("Tensor-parallel sharding of a feed-forward layer, T = %1").arg(report.tp);
    d.columns << ChartColumn{QStringLiteral("first matrix"), {}}
              << ChartColumn{QStringLiteral("second matrix"), {}}
              << ChartColumn{QStringLiteral("all-reduces"), {}}
              << ChartColumn{QStringLiteral("all-gathers"), {}}
              << ChartColumn{QStringLiteral("reduce-scatters"), {}}
              << ChartColumn{QStringLiteral("payload"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("wire per device"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("compute"), QStringLiteral("s")}
              << ChartColumn{QStringLiteral("communication"), QStringLiteral("s")}
              << ChartColumn{QStringLiteral("total"), QStringLiteral("s")}
              << ChartColumn{QStringLiteral("max abs error"), {}}
              << ChartColumn{QStringLiteral("max rel error"), {}};
    auto optional = [](const std::optional<double> &v) {
        return v ? ChartValue(*v) : ChartValue(std::monostate());
    };
    if (!report.ok())
        return d;
    for (const core::StrategyReport &st : report.strategies)
        d.rows << QList<ChartValue>{io::qs(core::toString(st.w1)),
                                    io::qs(core::toString(st.w2)),
                                    qint64(st.counts.allReduce),
                                    qint64(st.counts.allGather),
                                    qint64(st.counts.reduceScatter),
                                    qint64(st.payloadBytes),
                                    st.wireBytesPerDevice,
                                    st.computeS,
                                    st.commS,
                                    st.totalS,
                                    optional(st.maxAbsError),
                                    optional(st.maxRelError)};
    return d;
}

} // namespace ui
