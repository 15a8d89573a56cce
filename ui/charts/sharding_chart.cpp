#include "ui/charts/sharding_chart.h"

#include "core/comm_cost.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/expert_chart.h"
#include "ui/units.h"
#include "ui/widgets/wrapped_label.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QTabBar>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

const core::Collective kKinds[] = {core::Collective::allReduce, core::Collective::allGather,
                                   core::Collective::reduceScatter};

QString kindName(core::Collective kind)
{
    switch (kind) {
    case core::Collective::allReduce:
        return QStringLiteral("all-reduce");
    case core::Collective::allGather:
        return QStringLiteral("all-gather");
    case core::Collective::reduceScatter:
        return QStringLiteral("reduce-scatter");
    }
    return {};
}

// "columns → rows": W1's split, then W2's.
QString strategyName(const core::StrategyReport &s)
{
    return QStringLiteral("%1 → %2").arg(io::qs(core::toString(s.w1)),
                                         io::qs(core::toString(s.w2)));
}

QString counts(const core::CollectiveCounts &c)
{
    QStringList parts;
    if (c.allReduce)
        parts << QStringLiteral("%1 all-reduce").arg(c.allReduce);
    if (c.allGather)
        parts << QStringLiteral("%1 all-gather").arg(c.allGather);
    if (c.reduceScatter)
        parts << QStringLiteral("%1 reduce-scatter").arg(c.reduceScatter);
    return parts.isEmpty() ? QStringLiteral("no collective") : parts.join(QStringLiteral(" + "));
}

QString seconds(double s)
{
    return s >= 1e-3 ? QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 2)
                     : QStringLiteral("%1 µs").arg(s * 1e6, 0, 'f', 1);
}

} // namespace

ShardingChart::ShardingChart(QWidget *parent)
    : QWidget(parent), m_modes(new QTabBar), m_pages(new QStackedWidget),
      m_experts(new ExpertChart), m_chart(new QChart), m_view(new QChartView(m_chart)),
      m_strategyAxis(new QBarCategoryAxis), m_bytesAxis(new QValueAxis),
      m_summary(new WrappedLabel), m_verifyButton(new QPushButton(tr("Verify at full size"))),
      m_progress(new QProgressBar), m_cancelButton(new QPushButton(tr("Cancel")))
{
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_view->setRenderHint(QPainter::Antialiasing);
    auto *bars = new QStackedBarSeries;
    const QColor colours[] = {chart_style::vermillion(), chart_style::skyBlue(),
                              chart_style::purple()};
    for (int i = 0; i < 3; ++i) {
        auto *set = new QBarSet(kindName(kKinds[i]));
        set->setColor(colours[i]);
        bars->append(set);
        m_sets.append(set);
    }
    m_chart->addSeries(bars);
    m_strategyAxis->setTitleText(tr("W1 [h, f] split by … → W2 [f, h] split by …"));
    m_bytesAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(m_strategyAxis, Qt::AlignBottom);
    m_chart->addAxis(m_bytesAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, &ShardingChart::fitCategories);
    chart_style::groupDigits(m_chart);
    bars->attachAxis(m_strategyAxis);
    bars->attachAxis(m_bytesAxis);

    m_summary->setTextFormat(Qt::RichText);
    m_summary->setObjectName(QStringLiteral("shardingSummary"));
    m_summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // The table may be cut on a narrow window rather than widen it.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *tensor = new QWidget;
    auto *layout = new QVBoxLayout(tensor);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    auto *scroll = m_summaryScroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("shardingSummaryScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_summary);
    layout->addWidget(scroll);

    m_verifyButton->setObjectName(QStringLiteral("verifyFullSize"));
    m_cancelButton->setObjectName(QStringLiteral("cancelVerify"));
    m_progress->setObjectName(QStringLiteral("verifyProgress"));
    m_progress->setRange(0, 1000);
    auto *row = new QHBoxLayout;
    row->addWidget(m_verifyButton);
    row->addWidget(m_progress, 1);
    row->addWidget(m_cancelButton);
    // Takes the width only while the bar, which stretches, is hidden.
    row->addStretch();
    layout->addLayout(row);
    setVerifying(false);

    // Two demonstrators, one page: the tabs take the keyboard's focus and arrow keys.
    m_modes->setObjectName(QStringLiteral("shardingMode"));
    m_modes->setExpanding(false);
    m_modes->setDrawBase(false);
    m_modes->addTab(tr("Tensor parallel (rows, columns)"));
    m_modes->setTabToolTip(0, tr("The four ways to split W1 and W2 over the scenario's T "
                                 "devices, executed and compared with the unsharded layer."));
    m_modes->addTab(tr("Expert parallel (mixture of experts)"));
    m_modes->setTabToolTip(1, tr("A mixture-of-experts layer routed to E simulated devices: "
                                 "dispatch, experts, combine, executed and compared with the "
                                 "unsharded layer, with the bytes each device sends."));
    m_pages->addWidget(tensor);
    m_pages->addWidget(m_experts);
    connect(m_modes, &QTabBar::currentChanged, m_pages, &QStackedWidget::setCurrentIndex);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_modes);
    outer->addWidget(m_pages, 1);
}

void ShardingChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // The page's own width: the layout has not yet given the scroll area's viewport its new
    // width, which may still be the old or the first one.
    fitSummary(width());
}

void ShardingChart::fitCategories()
{
    // "columns → rows" where each bar's slot holds it; else "c → r", then "c→r", under an
    // axis title that spells the letters out (a projector at the largest text).
    const double slot = m_chart->plotArea().width() / std::max<qsizetype>(m_categories.size(), 1);
    const QFontMetricsF metrics(m_strategyAxis->labelsFont());
    const auto allFit = [&](const QStringList &names) {
        return std::all_of(names.begin(), names.end(), [&](const QString &name) {
            return metrics.horizontalAdvance(name) <= 0.9 * slot;
        });
    };
    QStringList shown = m_categories;
    const bool fits = allFit(shown);
    if (!fits) {
        for (QString &name : shown)
            name = name.replace(QStringLiteral("columns"), QStringLiteral("c"))
                       .replace(QStringLiteral("rows"), QStringLiteral("r"));
        if (!allFit(shown))
            for (QString &name : shown)
                name.remove(QLatin1Char(' '));
    }
    const QString title = fits ? tr("W1 [h, f] split by … → W2 [f, h] split by …")
                               : tr("W1 → W2 split: c = columns, r = rows");
    if (m_strategyAxis->categories() != shown)
        m_strategyAxis->setCategories(shown);
    // A short chart (a projector at the largest text) gives its axis title's line to the
    // labels, which Qt Charts otherwise cuts to "…"; the table below names the splits. The
    // view's height decides, which the title does not change.
    const bool roomForTitle = m_view->height() >= 16 * metrics.height();
    if (m_strategyAxis->isTitleVisible() != roomForTitle)
        m_strategyAxis->setTitleVisible(roomForTitle);
    if (m_strategyAxis->titleText() != title)
        m_strategyAxis->setTitleText(title);
}

void ShardingChart::fitSummary(int width)
{
    if (!m_summaryScroll)
        return;
    int need = m_summary->heightForWidth(width);
    if (need <= 0)
        need = m_summary->sizeHint().height();
    // The chart first: its title, axes, legend and a readable plot take about fourteen lines
    // of text; the table has what is left, and never less than three lines.
    const int line = fontMetrics().height();
    const int room = std::min(need, std::max(m_pages->height() - 14 * line, 3 * line));
    // A scroll bar only where the table is cut: one that may appear makes the scroll area
    // measure the table again at the width the bar would leave, on every change of the text.
    m_summaryScroll->setVerticalScrollBarPolicy(room < need ? Qt::ScrollBarAsNeeded
                                                            : Qt::ScrollBarAlwaysOff);
    m_summaryScroll->setFixedHeight(std::max(room, 0));
}

void ShardingChart::setVerifying(bool running)
{
    m_verifyButton->setVisible(!running);
    m_progress->setVisible(running);
    m_cancelButton->setVisible(running);
}

void ShardingChart::setVerifyProgress(double fraction, const QString &detail)
{
    m_progress->setValue(static_cast<int>(std::lround(fraction * 1000)));
    // %p is the bar's own percentage; arg() leaves it alone.
    m_progress->setFormat(tr("Full-size check: %p % — %1").arg(detail));
}

void ShardingChart::setNote(const QString &note)
{
    m_note = note;
    showSummary();
}

void ShardingChart::showSummary()
{
    m_summary->setText(m_note.isEmpty()
                           ? m_table
                           : m_table +
                                 QStringLiteral("<p><b>%1</b></p>").arg(m_note.toHtmlEscaped()));
    // New text at the width the label has: the scroll area asks it for its height at that
    // width too, which then costs no second layout of the table.
    fitSummary(isVisible() ? m_summaryScroll->viewport()->width() : width());
}

void ShardingChart::setReport(const core::ShardReport &r, const QString &modelName)
{
    for (QBarSet *set : std::as_const(m_sets))
        set->remove(0, set->count());
    m_note.clear();
    if (!r.ok()) {
        m_categories.clear();
        m_strategyAxis->clear();
        m_chart->setTitle(tr("Feed-forward sharding"));
        m_table = tr("<b>Cannot analyse this layer:</b> %1")
                      .arg(io::qs(r.error->toString()).toHtmlEscaped());
        showSummary();
        return;
    }
    QStringList categories;
    double peak = 0;
    for (const auto &s : r.strategies) {
        categories << strategyName(s);
        double total = 0;
        for (int i = 0; i < 3; ++i) {
            double bytes = 0;
            for (const auto &c : s.collectives)
                if (c.kind == kKinds[i])
                    bytes += core::wireBytesPerDevice(c.kind, c.payloadBytes, r.tp);
            m_sets[i]->append(units::small(bytes));
            total += units::small(bytes);
        }
        peak = std::max(peak, total);
    }
    m_categories = categories;
    fitCategories();
    m_bytesAxis->setTitleText(tr("Sent per device per layer (%1)").arg(units::smallName()));
    // Only the kinds of collective some split needs are listed in the legend.
    const auto markers = m_chart->legend()->markers();
    for (qsizetype i = 0; i < m_sets.size() && i < markers.size(); ++i) {
        const QList<qreal> sent = values(m_sets[i]->label());
        markers[i]->setVisible(
            std::any_of(sent.begin(), sent.end(), [](qreal v) { return v > 0; }));
    }
    chart_style::setNiceRange(m_bytesAxis, std::max(peak, 1.0));
    m_chart->setTitle(tr("%1 FFN layer: h %2, f %3, %4 tokens, T %5")
                          .arg(modelName)
                          .arg(r.requested.hidden)
                          .arg(r.requested.ffn)
                          .arg(r.requested.tokens)
                          .arg(r.tp) +
                      (r.tp == 1 ? tr(": one device, nothing to send") : QString()));

    QString rows;
    for (std::size_t i = 0; i < r.strategies.size(); ++i) {
        const auto &s = r.strategies[i];
        const QString error =
            s.maxRelError ? QStringLiteral("%1").arg(*s.maxRelError, 0, 'e', 1) : tr("not checked");
        const bool best = int(i) == r.best;
        rows += QStringLiteral("<tr><td>%1%2</td><td>%3</td><td align=right>%4</td>"
                               "<td align=right>%5</td><td align=right>%6</td></tr>")
                    .arg(strategyName(s), best ? tr(" (best)") : QString(), counts(s.counts),
                         seconds(s.commS), seconds(s.totalS), error);
    }
    const QString checked =
        r.executed.hidden > 0
            ? tr("Every split really executed on %1 simulated devices at %5h = %2, f = %3, "
                 "%4 tokens and compared with the unsharded product.")
                  .arg(r.tp)
                  .arg(r.executed.hidden)
                  .arg(r.executed.ffn)
                  .arg(r.executed.tokens)
                  .arg(r.executed == r.requested ? tr("the full size, ") : tr("a reduced size, "))
        : r.checkNotRun.empty()
            ? tr("Not executed.")
            : tr("Not executed: %1.").arg(io::qs(r.checkNotRun).toHtmlEscaped());
    m_table =
        (tr("<table cellspacing=6><tr><th align=left>W1 → W2</th><th align=left>Collectives</th>"
            "<th>Comm.</th><th>Layer</th><th>Rel. error</th></tr>%1</table>"
            "%2 Times on the %3 link, the multiplies at %4; the best split is %5× faster "
            "than the worst.")
             .arg(rows, checked, io::qs(core::toString(r.link.kind)),
                  r.mfuForced ? tr("the scenario's MFU, %1").arg(r.matmulEfficiency, 0, 'g', 3)
                              : tr("the device's matrix-multiply efficiency, %1 of its peak")
                                    .arg(r.matmulEfficiency, 0, 'g', 3))
             .arg(r.speedupBestOverWorst, 0, 'f', 2));
    showSummary();
}

QList<qreal> ShardingChart::values(const QString &kind) const
{
    for (const QBarSet *set : m_sets)
        if (set->label() == kind) {
            QList<qreal> out;
            for (int i = 0; i < set->count(); ++i)
                out << set->at(i);
            return out;
        }
    return {};
}

QStringList ShardingChart::categories() const
{
    return m_categories;
}

QString ShardingChart::summary() const
{
    return m_summary->text();
}

} // namespace ui
