#include "ui/charts/expert_chart.h"

#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/units.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/focus_wheel.h"
#include "ui/widgets/wrapped_label.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

// The window's controls stay below the core's caps where they can: E up to 16 keeps one
// bar per device readable, and 64 experts is DeepSeek-V2's fine-grained count.
constexpr int kMostExperts = 64;
constexpr int kMostDevices = 16;
constexpr int kMostTokens = 4096;
constexpr double kMostSkew = 20;

// Bytes in B, kB or MB (KiB, MiB when sizes are binary) as the largest value needs.
double expertBytesUnit(double peak, QString *name)
{
    const bool binary = units::current() == io::SizeUnit::gib;
    const double k = binary ? 1024.0 : 1000.0;
    if (peak >= k * k) {
        *name = binary ? QStringLiteral("MiB") : QStringLiteral("MB");
        return k * k;
    }
    if (peak >= k) {
        *name = binary ? QStringLiteral("KiB") : QStringLiteral("kB");
        return k;
    }
    *name = QStringLiteral("B");
    return 1;
}

QString expertBytesText(double bytes)
{
    QString name;
    const double unit = expertBytesUnit(bytes, &name);
    return QStringLiteral("%1 %2").arg(bytes / unit, 0, 'f', unit > 1 ? 1 : 0).arg(name);
}

// One bar chart over the devices, with a line across it on a hidden axis of the same
// span (as the memory chart's capacity line).
void setUpDeviceChart(QChart *chart, QBarCategoryAxis *devices, QValueAxis *values,
                      QValueAxis *lineAxis)
{
    chart->legend()->setAlignment(Qt::AlignBottom);
    devices->setTitleText(ExpertChart::tr("Simulated device"));
    values->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(devices, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);
    // The lines span the bars on this axis; it numbers the devices when their categories
    // have no room for every label.
    lineAxis->setVisible(false);
    lineAxis->setTitleText(devices->titleText());
    lineAxis->setLabelFormat(QStringLiteral("%.0f"));
    lineAxis->setTickType(QValueAxis::TicksDynamic);
    lineAxis->setTickAnchor(0);
    lineAxis->setTickInterval(1);
    lineAxis->setGridLineVisible(false);
    lineAxis->setMinorGridLineVisible(false);
    chart->addAxis(lineAxis, Qt::AlignBottom);
    chart_style::keepAxesReadable(chart);
    chart_style::groupDigits(chart);
}

// Qt Charts cuts a category's label to its width ("…" for "10" at E = 16): then every n-th
// device is numbered on the line axis instead, as the memory chart numbers its stages.
void thinDeviceLabels(QChart *chart, QBarCategoryAxis *devices, QValueAxis *numbers,
                      QValueAxis *redundant = nullptr)
{
    const int count = int(devices->count());
    if (count == 0 || chart->plotArea().width() <= 0)
        return;
    const qreal slot = chart->plotArea().width() / count;
    const QFontMetricsF metrics(devices->labelsFont());
    // Qt Charts keeps some of a category's width as padding.
    const qreal needed =
        metrics.horizontalAdvance(QString::number(count - 1) + QStringLiteral("    "));
    int every = 0;
    if (needed > slot)
        for (const int step : {2, 4, 5, 8, 10, 16})
            if ((every = step) * slot >= needed)
                break;
    const bool thinned = every > 0;
    if (devices->labelsVisible() == thinned) {
        devices->setLabelsVisible(!thinned);
        numbers->setVisible(thinned);
    }
    if (thinned && numbers->tickInterval() != every)
        numbers->setTickInterval(every);
    // A short chart (the largest text) gives its axis title's line to the labels, which Qt
    // Charts otherwise cuts to "…", as the feed-forward chart does; the table names devices.
    const bool roomForTitle = chart->size().height() >= 16 * metrics.height();
    if (devices->isTitleVisible() != (roomForTitle && !thinned))
        devices->setTitleVisible(roomForTitle && !thinned);
    if (numbers->isTitleVisible() != (roomForTitle && thinned))
        numbers->setTitleVisible(roomForTitle && thinned);
    // A value axis whose title only repeats the chart's title and legend gives up its line
    // too ("co…" for "copies").
    if (redundant && redundant->isTitleVisible() != roomForTitle)
        redundant->setTitleVisible(roomForTitle);
}

QPen referencePen()
{
    QPen pen(chart_style::vermillion(), 2.5, Qt::DashLine);
    return pen;
}

// A control and its label, which names it to a screen reader.
QWidget *labelled(const QString &text, QWidget *control)
{
    auto *box = new QWidget;
    auto *row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    auto *label = new QLabel(text);
    label->setBuddy(control);
    row->addWidget(label);
    row->addWidget(control);
    return box;
}

} // namespace

ExpertChart::ExpertChart(QWidget *parent)
    : QWidget(parent), m_experts(new QSpinBox), m_topK(new QSpinBox), m_devices(new QComboBox),
      m_skew(new QDoubleSpinBox), m_tokens(new QSpinBox), m_loadChart(new QChart),
      m_loadView(new QChartView(m_loadChart)), m_loadSet(new QBarSet(tr("Copies received"))),
      m_meanLine(new QLineSeries), m_loadDevices(new QBarCategoryAxis), m_loadAxis(new QValueAxis),
      m_loadLineAxis(new QValueAxis), m_bytesChart(new QChart),
      m_bytesView(new QChartView(m_bytesChart)), m_dispatchSet(new QBarSet(tr("Dispatch"))),
      m_combineSet(new QBarSet(tr("Combine"))), m_expectedLine(new QLineSeries),
      m_bytesDevices(new QBarCategoryAxis), m_bytesAxis(new QValueAxis),
      m_bytesLineAxis(new QValueAxis), m_verification(new WrappedLabel),
      m_summary(new WrappedLabel), m_summaryScroll(new QScrollArea), m_controls(new QWidget),
      m_pageScroll(new QScrollArea)
{
    const core::ExpertRoutingInputs defaults;
    m_experts->setObjectName(QStringLiteral("moeExperts"));
    m_experts->setRange(1, kMostExperts);
    m_experts->setValue(defaults.experts);
    m_experts->setToolTip(tr("<p>Experts in the layer, each a SwiGLU feed-forward with its own "
                             "weights (Mixtral has 8, DeepSeek-V2 64 routed).</p>"));
    m_topK->setObjectName(QStringLiteral("moeTopK"));
    m_topK->setRange(1, defaults.experts);
    m_topK->setValue(defaults.topK);
    m_topK->setToolTip(tr("<p>Experts each token is sent to (Mixtral: 2, Switch Transformer: 1). "
                          "Their gate weights are the softmax over every expert, renormalised "
                          "over the k chosen.</p>"));
    m_devices->setObjectName(QStringLiteral("moeDevices"));
    m_devices->setToolTip(tr("<p>E, the simulated devices of the expert-parallel group. Device d "
                             "owns experts d·n/E … (d+1)·n/E − 1 and starts with tokens/E "
                             "tokens, as a data-parallel rank would. E divides the experts; "
                             "up to %1 here.</p>")
                              .arg(kMostDevices));
    m_skew->setObjectName(QStringLiteral("moeSkew"));
    m_skew->setRange(0, kMostSkew);
    m_skew->setSingleStep(0.5);
    m_skew->setDecimals(1);
    m_skew->setValue(defaults.skew);
    m_skew->setSuffix(tr(" logit"));
    m_skew->setToolTip(
        tr("<p>The router's skew: a bias added to its logits, this much for expert 0, falling "
           "linearly "
           "to 0 for the last expert. 0 is a balanced random router (each logit has a "
           "standard deviation of 1); 2 to 4 already sends most tokens to device 0's "
           "experts.</p>"));
    m_tokens->setObjectName(QStringLiteral("moeTokens"));
    m_tokens->setRange(1, kMostTokens);
    m_tokens->setValue(int(defaults.tokens));
    m_tokens->setToolTip(tr("<p>Tokens in the batch, split evenly over the E devices before "
                            "routing: E must divide them.</p>"));
    m_devices->setSizeAdjustPolicy(QComboBox::AdjustToContents); // "16" as well as "1"
    offerDevices();
    m_devices->setCurrentIndex(m_devices->findData(defaults.devices));

    auto *flow = new FlowLayout(m_controls);
    // No mnemonics: the scenario's controls and the menus take every letter but J
    // (tst_main_window::mnemonicsAreUnique); Tab reaches these in this order.
    flow->addWidget(labelled(tr("Experts:"), m_experts));
    flow->addWidget(labelled(tr("Top-k:"), m_topK));
    flow->addWidget(labelled(tr("Devices E:"), m_devices));
    flow->addWidget(labelled(tr("Skew:"), m_skew));
    flow->addWidget(labelled(tr("Tokens:"), m_tokens));
    // The page scrolls when it is short: the wheel scrolls it unless the control has the focus.
    for (QWidget *control :
         std::initializer_list<QWidget *>{m_experts, m_topK, m_devices, m_skew, m_tokens})
        wheelOnlyWhenFocused(control);

    // Load per device, with the mean.
    m_loadSet->setColor(chart_style::blue());
    auto *loadBars = new QBarSeries;
    loadBars->append(m_loadSet);
    m_loadChart->addSeries(loadBars);
    m_meanLine->setPen(referencePen());
    m_loadChart->addSeries(m_meanLine);
    setUpDeviceChart(m_loadChart, m_loadDevices, m_loadAxis, m_loadLineAxis);
    m_loadAxis->setTitleText(tr("Load per device (copies)"));
    loadBars->attachAxis(m_loadDevices);
    loadBars->attachAxis(m_loadAxis);
    m_meanLine->attachAxis(m_loadLineAxis);
    m_meanLine->attachAxis(m_loadAxis);

    // Bytes each device sent, by all-to-all, with the balanced expectation.
    m_dispatchSet->setColor(chart_style::skyBlue());
    m_combineSet->setColor(chart_style::green());
    auto *bytesBars = new QBarSeries;
    bytesBars->append(m_dispatchSet);
    bytesBars->append(m_combineSet);
    m_bytesChart->addSeries(bytesBars);
    m_expectedLine->setPen(referencePen());
    m_bytesChart->addSeries(m_expectedLine);
    setUpDeviceChart(m_bytesChart, m_bytesDevices, m_bytesAxis, m_bytesLineAxis);
    bytesBars->attachAxis(m_bytesDevices);
    bytesBars->attachAxis(m_bytesAxis);
    m_expectedLine->attachAxis(m_bytesLineAxis);
    m_expectedLine->attachAxis(m_bytesAxis);

    for (QChartView *view : {m_loadView, m_bytesView})
        view->setRenderHint(QPainter::Antialiasing);
    connect(
        m_loadChart, &QChart::plotAreaChanged, this,
        [this] { thinDeviceLabels(m_loadChart, m_loadDevices, m_loadLineAxis, m_loadAxis); },
        Qt::QueuedConnection);
    connect(
        m_bytesChart, &QChart::plotAreaChanged, this,
        [this] { thinDeviceLabels(m_bytesChart, m_bytesDevices, m_bytesLineAxis); },
        Qt::QueuedConnection);
    m_charts = new QBoxLayout(QBoxLayout::LeftToRight);
    m_charts->setContentsMargins(0, 0, 0, 0);
    m_charts->addWidget(m_loadView, 1);
    m_charts->addWidget(m_bytesView, 1);

    m_verification->setObjectName(QStringLiteral("moeVerification"));
    m_verification->setTextFormat(Qt::RichText);
    m_verification->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summary->setObjectName(QStringLiteral("moeSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summaryScroll->setFrameShape(QFrame::NoFrame);
    m_summaryScroll->setWidgetResizable(true);
    m_summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The verification line and the table scroll together, as the feed-forward page's do.
    auto *text = new QWidget;
    auto *textLayout = new QVBoxLayout(text);
    textLayout->setContentsMargins(0, 0, 0, 0);
    textLayout->addWidget(m_verification);
    textLayout->addWidget(m_summary);
    m_summaryScroll->setWidget(text);

    // Everything scrolls when the page is shorter than the controls and readable charts (a
    // projector at the largest text); otherwise only the table does.
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_controls);
    layout->addLayout(m_charts, 1);
    layout->addWidget(m_summaryScroll);
    m_pageScroll->setObjectName(QStringLiteral("moePage"));
    m_pageScroll->setFrameShape(QFrame::NoFrame);
    m_pageScroll->setWidgetResizable(true);
    m_pageScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_pageScroll->setWidget(page);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_pageScroll);

    connect(m_experts, &QSpinBox::valueChanged, this, [this](int experts) {
        m_topK->setMaximum(experts);
        offerDevices();
        run();
    });
    connect(m_topK, &QSpinBox::valueChanged, this, &ExpertChart::run);
    connect(m_devices, &QComboBox::currentIndexChanged, this, &ExpertChart::run);
    connect(m_skew, &QDoubleSpinBox::valueChanged, this, &ExpertChart::run);
    connect(m_tokens, &QSpinBox::valueChanged, this, &ExpertChart::run);
    run();
}

void ExpertChart::followModel(int experts, int topK, int ep)
{
    {
        const QSignalBlocker quietExperts(m_experts);
        const QSignalBlocker quietTopK(m_topK);
        m_experts->setValue(std::clamp(experts, 1, kMostExperts));
        m_topK->setMaximum(m_experts->value());
        m_topK->setValue(std::clamp(topK, 1, m_experts->value()));
    }
    offerDevices(std::max(ep, 1));
    run();
}

void ExpertChart::offerDevices(int wanted)
{
    const int experts = m_experts->value();
    if (wanted <= 0)
        wanted = m_devices->count() ? m_devices->currentData().toInt() : 1;
    const QSignalBlocker quiet(m_devices);
    m_devices->clear();
    int chosen = 0;
    for (int e = 1; e <= std::min(experts, kMostDevices); ++e) {
        if (experts % e != 0)
            continue;
        // The largest E that divides the experts and is at most the one chosen before.
        if (e <= wanted)
            chosen = m_devices->count();
        m_devices->addItem(QString::number(e), e);
    }
    m_devices->setCurrentIndex(chosen);
}

core::ExpertRoutingInputs ExpertChart::inputs() const
{
    core::ExpertRoutingInputs in;
    in.experts = m_experts->value();
    in.topK = m_topK->value();
    in.devices = m_devices->currentData().toInt();
    in.skew = m_skew->value();
    in.tokens = m_tokens->value();
    return in;
}

void ExpertChart::run()
{
    m_result = core::runExpertParallel(inputs());
    draw();
    Q_EMIT updated();
}

void ExpertChart::draw()
{
    const core::ExpertRoutingResult &r = m_result;
    const core::ExpertRoutingInputs &in = r.inputs;
    for (QBarSet *set : {m_loadSet, m_dispatchSet, m_combineSet})
        set->remove(0, set->count());
    if (!r.ok()) {
        m_loadDevices->clear();
        m_bytesDevices->clear();
        m_meanLine->clear();
        m_expectedLine->clear();
        m_loadChart->setTitle(tr("Load per device"));
        m_bytesChart->setTitle(tr("Sent per device"));
        m_verification->setText(
            tr("<b>Not executed:</b> %1").arg(io::qs(r.error->toString()).toHtmlEscaped()));
        m_summary->clear();
        fitSummary();
        return;
    }
    QStringList names;
    double peakBytes = r.balancedBytesPerDevice;
    double peakLoad = r.meanLoad;
    for (std::size_t d = 0; d < r.devices.size(); ++d) {
        names << QString::number(d);
        const core::ExpertDevice &device = r.devices[d];
        peakLoad = std::max(peakLoad, double(device.load));
        peakBytes =
            std::max({peakBytes, double(device.dispatchBytes), double(device.combineBytes)});
    }
    QString unitName;
    m_bytesUnit = expertBytesUnit(peakBytes, &unitName);
    for (const core::ExpertDevice &device : r.devices) {
        m_loadSet->append(double(device.load));
        m_dispatchSet->append(double(device.dispatchBytes) / m_bytesUnit);
        m_combineSet->append(double(device.combineBytes) / m_bytesUnit);
    }
    const double left = -0.5, right = double(r.devices.size()) - 0.5;
    for (QBarCategoryAxis *axis : {m_loadDevices, m_bytesDevices})
        if (axis->categories() != names)
            axis->setCategories(names);
    for (QValueAxis *axis : {m_loadLineAxis, m_bytesLineAxis})
        axis->setRange(left, right);
    thinDeviceLabels(m_loadChart, m_loadDevices, m_loadLineAxis, m_loadAxis);
    thinDeviceLabels(m_bytesChart, m_bytesDevices, m_bytesLineAxis);
    m_meanLine->replace({QPointF(left, r.meanLoad), QPointF(right, r.meanLoad)});
    m_meanLine->setName(tr("Mean %1").arg(r.meanLoad, 0, 'f', r.meanLoad < 100 ? 1 : 0));
    const double expected = r.balancedBytesPerDevice / m_bytesUnit;
    m_expectedLine->replace({QPointF(left, expected), QPointF(right, expected)});
    // The value is the line's height on the axis and in the table: the legend stays short
    // enough for the largest text.
    m_expectedLine->setName(tr("Balanced"));
    chart_style::setNiceRange(m_loadAxis, std::max(peakLoad, 1.0));
    chart_style::setNiceRange(m_bytesAxis, std::max(peakBytes / m_bytesUnit, 1.0));
    m_bytesAxis->setTitleText(tr("Sent per device (%1)").arg(unitName));
    m_loadChart->setTitle(tr("Load, imbalance %1×").arg(r.imbalance, 0, 'f', 2));
    m_bytesChart->setTitle(tr("All-to-all bytes sent"));

    m_verification->setText(
        tr("<b>%1</b> on %2 simulated devices: %3 tokens, h %4, expert ffn %5 (SwiGLU), %6 "
           "experts, top-%7. Against the unsharded layer: max error %8, relative %9 "
           "(tolerance %10).")
            .arg(r.passed ? tr("Executed and checked") : tr("Executed; the check FAILED"))
            .arg(in.devices)
            .arg(in.tokens)
            .arg(in.hidden)
            .arg(in.expertFfn)
            .arg(in.experts)
            .arg(in.topK)
            .arg(r.maxAbsError, 0, 'e', 1)
            .arg(r.maxRelError, 0, 'e', 1)
            .arg(core::kExpertTolerance, 0, 'e', 0));

    QString rows;
    const int perDevice = in.experts / in.devices;
    for (std::size_t d = 0; d < r.devices.size(); ++d) {
        const core::ExpertDevice &device = r.devices[d];
        QStringList perExpert;
        for (std::int64_t n : device.receivedPerExpert)
            perExpert << QString::number(n);
        const QString owned = perDevice == 1 ? QString::number(device.firstExpert)
                                             : QStringLiteral("%1–%2")
                                                   .arg(device.firstExpert)
                                                   .arg(device.firstExpert + perDevice - 1);
        rows += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td align=right>%4</td>"
                               "<td align=right>%5</td><td align=right>%6</td></tr>")
                    .arg(d)
                    .arg(owned, perExpert.join(QStringLiteral(", ")))
                    .arg(device.load)
                    .arg(expertBytesText(double(device.dispatchBytes)),
                         expertBytesText(double(device.combineBytes)));
    }
    m_summary->setText(
        tr("<table cellspacing=6><tr><th align=left>Device</th><th align=left>Experts</th>"
           "<th align=left>Copies per expert</th><th>Load</th><th>Dispatch</th>"
           "<th>Combine</th></tr>%1</table>"
           "Imbalance = the largest load ÷ the mean, %9 copies. Balanced routing sends tokens/E × "
           "k × h × %2 B × (E−1)/E = %3 × %4 × %5 × %2 × "
           "%6/%7 = %8 per device per direction (GShard, Lepikhin et al. 2021). A copy for the "
           "device's own expert costs nothing.")
            .arg(rows)
            .arg(in.bytesPerValue)
            .arg(in.tokens / in.devices)
            .arg(in.topK)
            .arg(in.hidden)
            .arg(in.devices - 1)
            .arg(in.devices)
            .arg(expertBytesText(r.balancedBytesPerDevice))
            .arg(r.meanLoad, 0, 'f', r.meanLoad < 100 ? 1 : 0));
    fitSummary();
}

void ExpertChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitSummary();
}

void ExpertChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // A larger text wraps the controls and the table: measured once they are laid out.
    if (event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &ExpertChart::fitSummary);
}

void ExpertChart::fitSummary()
{
    const int textWidth = m_summaryScroll->viewport()->width();
    int need = 0;
    for (QLabel *label : {m_verification, m_summary}) {
        const int height = label->heightForWidth(textWidth > 0 ? textWidth : width());
        need += height > 0 ? height : label->sizeHint().height();
    }
    // The charts first, as the feed-forward page keeps its chart: 60 % of the room below the
    // controls, and at least twelve lines of text (title, plot, axis, legend) where there is
    // that much; the text has the rest, never less than two lines, and scrolls. At most what
    // is left, so the table never makes the page taller.
    const int line = fontMetrics().height();
    // Side by side while each chart is at least eighteen lines wide, else one above the other.
    const auto direction =
        width() >= 2 * 18 * line ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_charts->direction() != direction)
        m_charts->setDirection(direction);
    // Readable charts: a title, a legend, the axes and a plot of four lines or more.
    const int chartHeight = 10 * line;
    for (QChartView *view : {m_loadView, m_bytesView})
        view->setMinimumHeight(chartHeight);
    const int chartsMinimum =
        direction == QBoxLayout::LeftToRight ? chartHeight : 2 * chartHeight + line;
    const int below = height() - m_controls->height();
    const int charts = std::max(chartsMinimum + 2 * line, below * 3 / 5);
    const int room = std::min(need, std::max(below - charts, 2 * line));
    m_summaryScroll->setFixedHeight(std::max(room, 0));
}

QList<qreal> ExpertChart::loads() const
{
    QList<qreal> out;
    for (int i = 0; i < m_loadSet->count(); ++i)
        out << m_loadSet->at(i);
    return out;
}

qreal ExpertChart::meanLine() const
{
    return m_meanLine->count() ? m_meanLine->at(0).y() : 0;
}

QList<qreal> ExpertChart::bytes(const QString &direction) const
{
    const QBarSet *set = direction == QLatin1String("dispatch") ? m_dispatchSet : m_combineSet;
    QList<qreal> out;
    for (int i = 0; i < set->count(); ++i)
        out << set->at(i);
    return out;
}

qreal ExpertChart::expectationLine() const
{
    return m_expectedLine->count() ? m_expectedLine->at(0).y() : 0;
}

QString ExpertChart::verification() const
{
    return m_verification->text();
}

QString ExpertChart::summary() const
{
    return m_summary->text();
}

} // namespace ui
