#include "ui/planner/planner_panel.h"

#include "core/validate.h"
#include "io/examples_io.h"
#include "io/plan_io.h"
#include "io/save_file.h"
#include "io/serving_plan_io.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/plan_chart.h"
#include "ui/charts/serving_plan_chart.h"
#include "ui/config_actions.h"
#include "ui/planner/plan_runner.h"
#include "ui/planner/plan_table_model.h"
#include "ui/planner/plan_text.h"
#include "ui/planner/serving_table_model.h"
#include "ui/scenario_document.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/focus_wheel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

namespace ui {

namespace {

constexpr int kMaxGlobalBatch = 1 << 24;
constexpr int kMaxTop = 1000;
constexpr int kDefaultTop = 20;
constexpr double kMaxHeadroomGib = 1024;
// The targets' ranges: far beyond any deployment, and no wider than the boxes need.
constexpr double kMaxTpotMs = 1e5;
constexpr double kMaxTtftMs = 1e6;
constexpr double kMaxTokensPerS = 1e9;

QSpinBox *spinBox(const QString &name, int minimum, int maximum)
{
    auto *box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    box->setGroupSeparatorShown(true);
    box->setAccelerated(true);
    return box;
}

QString searchTooltip()
{
    return PlannerPanel::tr(
        "<p>Searches every way to split the model over N devices, T × K × D = N "
        "(tensor-parallel T, pipeline stages K, data-parallel D; from 16,384 tokens a "
        "sequence also splits over context-parallel C, T × C × K × D = N), with expert-parallel "
        "E for a model with experts, every ZeRO stage, pipeline schedule, micro-batch size, "
        "recomputation and sequence parallelism, for the explorer's model, device, precision, "
        "mode and sequence length.</p>"
        "<p>Layouts that do not fit the device's memory are rejected; the rest are ranked by "
        "step time. The search runs in the background: the window stays usable, and Cancel "
        "stops it.</p>");
}

QDoubleSpinBox *targetBox(const QString &name, double minimum, double maximum, int decimals,
                          double value, const QString &suffix)
{
    auto *box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    box->setAccelerated(true);
    box->setEnabled(false); // until its box is ticked
    return box;
}

QString servingSearchTooltip()
{
    return PlannerPanel::tr(
        "<p>Searches every replica shape T × K of at most N devices (tensor-parallel T, a "
        "power of two dividing the heads; pipeline stages K, at most one per layer) for the "
        "explorer's model, device, precisions, prompt length (seq_len) and output length "
        "(output_len). Each shape takes the largest batch that fits the device's memory with "
        "the headroom and meets the targets; D replicas of it fill the N devices.</p>"
        "<p>Shapes are ranked by output tokens per second per device. The search runs in the "
        "background: the window stays usable, and Cancel stops it.</p>");
}

QString servingSummaryTooltip()
{
    return PlannerPanel::tr(
        "<p><b>replica shapes searched</b>: every T × K of at most N devices.<br>"
        "<b>fit</b>: shapes whose largest batch fits memory with the headroom free (and meets "
        "the targets); the table lists the best Top of them.<br>"
        "<b>evaluations</b>: scenarios the search evaluated to find each shape's batch.</p>"
        "<p>The second line names the smallest deployment that fits: the fewest devices per "
        "replica, beyond N when nothing within N does. The rejected lines group the shapes "
        "that will not do by reason, with an example of each.</p>");
}

// "1 device", not "1 devices": one device is a deployment the examples ask about.
QString devicesSuffix(int devices)
{
    return devices == 1 ? PlannerPanel::tr(" device") : PlannerPanel::tr(" devices");
}

bool isServingScenario(const core::Scenario &s)
{
    return s.mode == core::Mode::inference;
}

QString summaryTooltip()
{
    return PlannerPanel::tr(
        "<p><b>considered</b>: every layout of the search space.<br>"
        "<b>evaluated</b>: simulated in full, with a pipeline schedule and a step time; "
        "these are the chart's points.<br>"
        "<b>pruned</b>: skipped because a lower bound on their step time already exceeds the "
        "top N's, so they could never make the list.<br>"
        "<b>fit</b>: every layout within the device's memory with the headroom left free, "
        "evaluated or pruned: a pruned layout's memory is checked without its step time, so "
        "the count is the same whatever Top and One per split are.<br>"
        "<b>rejected</b>: by reason — the largest memory term of the first stage that "
        "overflows, a global batch that D does not divide, or a limit of Parascope's that "
        "the layout passes (its key and the kind of problem, numbers as #). Layouts whose "
        "weights, gradients and optimizer states alone overflow are rejected without being "
        "evaluated.</p>"
        "<p>When nothing fits, the message names the smallest device count with a layout "
        "that does.</p>");
}

} // namespace

PlannerPanel::PlannerPanel(ScenarioDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_runner(new PlanRunner(this)),
      m_devices(spinBox(QStringLiteral("plannerDevices"), 1, core::limits::kPlanDevices)),
      m_globalBatch(spinBox(QStringLiteral("plannerGlobalBatch"), 1, kMaxGlobalBatch)),
      m_top(spinBox(QStringLiteral("plannerTop"), 1, kMaxTop)),
      m_distinct(new QCheckBox(tr("One per split"))),
      m_hybrid(new QCheckBox(tr("Hybrid sharding"))), m_offloading(new QCheckBox(tr("Offloading"))),
      m_headroom(new QDoubleSpinBox), m_rank(new QComboBox), m_fromScenario(new QToolButton),
      m_run(new QPushButton(tr("Run"))), m_cancel(new QPushButton(tr("Cancel"))),
      m_progress(new QProgressBar), m_summary(new QLabel), m_message(new QLabel),
      m_model(new PlanTableModel(this)), m_sorted(new QSortFilterProxyModel(this)),
      m_table(new QTableView), m_load(new QPushButton(tr("Load into explorer"))),
      m_exportCsv(new QPushButton(tr("Export CSV…"))), m_chart(new PlanChart),
      m_tpotOn(new QCheckBox(tr("Time per output token ≤"))),
      m_tpot(targetBox(QStringLiteral("plannerTpot"), 0.1, kMaxTpotMs, 1, 50, tr(" ms"))),
      m_ttftOn(new QCheckBox(tr("Time to first token ≤"))),
      m_ttft(targetBox(QStringLiteral("plannerTtft"), 1, kMaxTtftMs, 0, 2000, tr(" ms"))),
      m_rateOn(new QCheckBox(tr("Throughput ≥"))),
      m_rate(targetBox(QStringLiteral("plannerTokensPerS"), 1, kMaxTokensPerS, 0, 1000,
                       tr(" tokens/s"))),
      m_servingModel(new ServingTableModel(this)), m_servingChart(new ServingPlanChart),
      m_charts(new QWidget)
{
    setObjectName(QStringLiteral("plannerPanel"));

    m_devices->setSuffix(devicesSuffix(m_devices->value()));
    m_globalBatch->setToolTip(tr("Sequences per step over all replicas; each of the "
                                 "D replicas takes global batch ÷ D as m micro-batches of b. "
                                 "Starts at the explorer's m × b × D."));
    m_globalBatch->setSuffix(tr(" sequences"));
    m_top->setValue(kDefaultTop);
    m_distinct->setObjectName(QStringLiteral("plannerDistinct"));
    m_distinct->setChecked(true);
    m_distinct->setToolTip(
        tr("List only the fastest layout of each T, C, K, D, E, schedule and micro-batch size. "
           "Layouts that differ only in ZeRO stage, recomputation or sequence parallelism "
           "often take the same time; unticked, they fill the list. Changing it searches "
           "again."));
    m_hybrid->setObjectName(QStringLiteral("plannerHybrid"));
    m_hybrid->setToolTip(
        tr("Also try each layout at ZeRO 1 to 3 sharded within a node, or over the fewest "
           "nodes that hold its model states, and replicated across the rest, as PyTorch "
           "FSDP's hybrid sharding does (zero_replicas; docs/planner.md). "
           "Unticked, the scenario's ZeRO replicas are kept. Changing it searches again."));
    m_offloading->setObjectName(QStringLiteral("plannerOffloading"));
    m_offloading->setChecked(core::PlanRequest{}.offloading);
    m_offloading->setToolTip(
        tr("Under Megatron-LM, try each layout of one stage without recomputation that does "
           "not fit with the fewest first layers' activations offloaded to host memory that "
           "make it fit, as its --cpu-offloading-num-layers does; the host must hold them "
           "(offload_layers, host_memory_gb; docs/planner.md). Unticked, no layout offloads. "
           "Changing it searches again."));
    m_headroom->setObjectName(QStringLiteral("plannerHeadroom"));
    m_headroom->setRange(0, kMaxHeadroomGib);
    m_headroom->setDecimals(1);
    m_headroom->setSingleStep(0.5);
    m_headroom->setValue(core::PlanRequest{}.headroomGib);
    m_headroom->setSuffix(tr(" GiB"));
    m_headroom->setToolTip(
        tr("Memory every device must leave free, on top of the scenario's reserve, for a "
           "layout to count as fitting (default 2 GiB). The memory model is an estimate "
           "(docs/planner.md, \"Headroom\"): a layout that fills the device to the last "
           "gigabyte is likely to run out of memory in practice. In inference it bounds the "
           "batch: the KV cache grows with it until the headroom is reached."));
    m_rank->setObjectName(QStringLiteral("plannerRank"));
    m_rank->addItem(tr("Step time"), static_cast<int>(core::PlanRank::time));
    m_rank->addItem(tr("Cost per token"), static_cast<int>(core::PlanRank::cost));
    m_rank->addItem(tr("Energy per token"), static_cast<int>(core::PlanRank::energy));
    m_rank->setToolTip(
        tr("<p>What the fitting layouts are ranked by.</p>"
           "<p><b>Step time</b>: the fastest on exactly N devices.<br>"
           "<b>Cost per token</b>: the fewest device-hours per million tokens, over every "
           "device count that divides N (N ÷ N' copies of the job fill the cluster); more "
           "devices are often faster but cost more per token.<br>"
           "<b>Energy per token</b>: the fewest joules per million tokens, every device at its "
           "TDP (an upper bound); with one kind of device it ranks as cost does.</p>"));
    m_fromScenario->setObjectName(QStringLiteral("plannerFromScenario"));
    m_fromScenario->setText(tr("From scenario"));
    m_fromScenario->setToolTip(tr("Take N and the global batch from the explorer again "
                                  "(T × C × K × D and m × b × D), and follow its changes."));

    // The deployment planner's targets: a ticked box makes its number a limit.
    m_tpotOn->setObjectName(QStringLiteral("plannerTpotOn"));
    m_ttftOn->setObjectName(QStringLiteral("plannerTtftOn"));
    m_rateOn->setObjectName(QStringLiteral("plannerTokensPerSOn"));
    const QString tpotTip =
        tr("Time per output token target, in milliseconds: the mean decode step after the "
           "first token may take at most this long. A larger batch makes every token slower, "
           "so the target caps each shape's batch. Unticked: no target, the largest batch "
           "that fits.");
    const QString ttftTip =
        tr("Time to first token target, in milliseconds: the prefill of the whole batch's "
           "prompts may take at most this long. Unticked: no target.");
    const QString rateTip =
        tr("Throughput target, in output tokens per second over all replicas: a shape gets as "
           "many replicas as the target needs, and is rejected when N devices cannot hold "
           "them. Unticked: replicas fill the N devices.");
    for (const auto &[check, box, tip, name] :
         {std::tuple{m_tpotOn, m_tpot, tpotTip, tr("Time per output token target")},
          std::tuple{m_ttftOn, m_ttft, ttftTip, tr("Time to first token target")},
          std::tuple{m_rateOn, m_rate, rateTip, tr("Throughput target")}}) {
        check->setToolTip(tip);
        box->setToolTip(tip);
        box->setAccessibleName(name);
        connect(check, &QCheckBox::toggled, box, &QWidget::setEnabled);
    }

    for (QAbstractSpinBox *box : std::initializer_list<QAbstractSpinBox *>{
             m_devices, m_globalBatch, m_top, m_tpot, m_ttft, m_rate})
        box->installEventFilter(this);
    // The panel scrolls in its dock: the wheel scrolls it unless the control has the focus.
    for (QWidget *control : std::initializer_list<QWidget *>{
             m_devices, m_globalBatch, m_top, m_headroom, m_rank, m_tpot, m_ttft, m_rate})
        wheelOnlyWhenFocused(control);

    m_run->setObjectName(QStringLiteral("plannerRun"));
    m_cancel->setObjectName(QStringLiteral("plannerCancel"));
    m_cancel->setToolTip(tr("Stop the search; the table keeps the previous results."));
    m_progress->setObjectName(QStringLiteral("plannerProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setFormat(tr("Searching… %p %"));
    m_progress->setToolTip(tr("Layout splits searched, then layouts evaluated from the most "
                              "promising down until the rest are pruned."));

    m_summary->setObjectName(QStringLiteral("plannerSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setObjectName(QStringLiteral("plannerMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::RichText);
    m_message->hide();

    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(PlanTableModel::SortRole);
    m_table->setObjectName(QStringLiteral("plannerTable"));
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(PlanTableModel::rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_load->setObjectName(QStringLiteral("plannerLoad"));
    m_load->setEnabled(false);
    m_chart->setObjectName(QStringLiteral("plannerChart"));

    // The inputs wrap onto a second row rather than widen a narrow dock; a label stays with
    // its field, Run with Cancel.
    auto *inputs = m_inputs = new FlowLayout;
    inputs->setSpacing(12);
    auto group = [inputs](std::initializer_list<QWidget *> widgets) {
        auto *box = new QWidget;
        auto *row = new QHBoxLayout(box);
        row->setContentsMargins(0, 0, 0, 0);
        for (QWidget *w : widgets)
            row->addWidget(w);
        inputs->addWidget(box);
        return box;
    };
    auto labelFor = [](const QString &text, QWidget *field) {
        auto *label = new QLabel(text);
        label->setBuddy(field);
        label->setToolTip(field->toolTip());
        return label;
    };
    m_devicesLabel = labelFor(tr("Devices N:"), m_devices);
    group({m_devicesLabel, m_devices});
    m_trainingInputs << group({labelFor(tr("Global batch:"), m_globalBatch), m_globalBatch});
    m_servingInputs << group({m_tpotOn, m_tpot}) << group({m_ttftOn, m_ttft})
                    << group({m_rateOn, m_rate});
    m_topLabel = labelFor(tr("Top:"), m_top);
    group({m_topLabel, m_top});
    inputs->addWidget(m_distinct);
    m_trainingInputs << m_distinct;
    inputs->addWidget(m_hybrid);
    m_trainingInputs << m_hybrid;
    inputs->addWidget(m_offloading);
    m_trainingInputs << m_offloading;
    group({labelFor(tr("Headroom:"), m_headroom), m_headroom});
    m_trainingInputs << group({labelFor(tr("Rank by:"), m_rank), m_rank});
    inputs->addWidget(m_fromScenario);
    group({m_run, m_cancel});

    auto *tableSide = new QWidget;
    auto *tableLayout = new QVBoxLayout(tableSide);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    // The summary and the messages above the table they describe: the chart beside takes the
    // dock's full height, which a dock under an example's explanation has little of.
    // The progress in the summary's place while a search runs: in the row of inputs, where its
    // place had to be kept while hidden, it took a row of the dock's height of its own.
    tableLayout->addWidget(m_progress);
    tableLayout->addWidget(m_summary);
    tableLayout->addWidget(m_message);
    tableLayout->addWidget(m_table, 1);
    auto *loadRow = new QHBoxLayout;
    loadRow->addWidget(m_load);
    auto *loadHint = new QLabel(tr("or double-click a row; Edit → Undo takes it back."));
    loadHint->setWordWrap(true);
    loadRow->addWidget(loadHint, 1);
    loadRow->addWidget(m_exportCsv);
    tableLayout->addLayout(loadRow);

    auto *splitter = m_splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("plannerSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(tableSide);
    m_servingChart->setObjectName(QStringLiteral("servingPlanChart"));
    // One chart shown, the other hidden rather than stacked: a hidden one does not hold the
    // dock to its minimum height.
    auto *charts = new QVBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(m_chart);
    charts->addWidget(m_servingChart);
    splitter->addWidget(m_charts);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    connect(splitter, &QSplitter::splitterMoved, this, [this] { m_splitterMoved = true; });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(inputs);
    layout->addWidget(splitter, 1);

    connect(m_run, &QPushButton::clicked, this, &PlannerPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &PlannerPanel::cancel);
    connect(m_load, &QPushButton::clicked, this, &PlannerPanel::loadSelected);
    m_exportCsv->setObjectName(QStringLiteral("plannerExportCsv"));
    m_exportCsv->setEnabled(false);
    connect(m_exportCsv, &QPushButton::clicked, this, &PlannerPanel::exportCsv);
    connect(m_fromScenario, &QToolButton::clicked, this, [this] {
        m_followScenario = true;
        takeInputsFromScenario();
    });
    for (QSpinBox *box : {m_devices, m_globalBatch})
        connect(box, &QSpinBox::valueChanged, this, [this] { m_followScenario = false; });
    // Not while the user types: a new suffix rewrites the text being typed.
    connect(m_devices, &QSpinBox::valueChanged, this, [this](int n) {
        if (!m_devices->hasFocus())
            m_devices->setSuffix(devicesSuffix(n));
    });
    connect(m_devices, &QSpinBox::editingFinished, this,
            [this] { m_devices->setSuffix(devicesSuffix(m_devices->value())); });
    // The list on show answers the other question: search again (milliseconds).
    for (QCheckBox *box : {m_distinct, m_hybrid, m_offloading})
        connect(box, &QCheckBox::toggled, this, [this] {
            if (m_result || isRunning())
                run();
        });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        const int row = m_sorted->mapToSource(index).row();
        if (m_serving)
            load(m_servingModel->candidate(row));
        else
            load(m_model->candidate(row));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &PlannerPanel::onSelectionChanged);
    // A row's menu: load it, or take it to the framework's launch (docs/import.md).
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint &at) {
        if (!m_table->indexAt(at).isValid())
            return;
        QMenu menu(this);
        menu.addAction(tr("&Load into the scenario"), this, &PlannerPanel::loadSelected);
        if (!m_serving) {
            menu.addSeparator();
            for (const auto &[framework, text] :
                 {std::pair{core::Framework::megatron, tr("Copy as &Megatron-LM arguments")},
                  std::pair{core::Framework::torchtitan, tr("Copy as &torchtitan TOML")},
                  std::pair{core::Framework::deepspeed, tr("Copy as &DeepSpeed config")}})
                menu.addAction(text, this, [this, framework = framework] {
                    if (auto reason = copySelectedAs(framework))
                        QMessageBox::warning(this, tr("Cannot copy"), *reason);
                });
        }
        menu.exec(m_table->viewport()->mapToGlobal(at));
    });
    const auto selectSourceRow = [this](const QAbstractItemModel *model, int index) {
        if (m_sorted->sourceModel() != model)
            return;
        const QModelIndex row = m_sorted->mapFromSource(model->index(index, 0));
        m_table->setCurrentIndex(row);
        m_table->scrollTo(row);
    };
    connect(m_chart, &PlanChart::candidateClicked, this,
            [this, selectSourceRow](int index) { selectSourceRow(m_model, index); });
    connect(m_servingChart, &ServingPlanChart::candidateClicked, this,
            [this, selectSourceRow](int index) { selectSourceRow(m_servingModel, index); });
    connect(m_runner, &PlanRunner::progressChanged, this, &PlannerPanel::onProgress);
    connect(m_runner, &PlanRunner::finished, this, &PlannerPanel::onFinished);
    connect(m_runner, &PlanRunner::servingFinished, this, &PlannerPanel::onServingFinished);
    connect(document, &ScenarioDocument::changed, this, &PlannerPanel::onDocumentChanged);

    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    takeInputsFromScenario();
    m_serving = !isServingScenario(m_document->scenario()); // followMode() sets up either way
    followMode();
    setRunning(false);
}

bool PlannerPanel::isRunning() const
{
    return m_runner->isRunning();
}

std::optional<core::PlanCandidate> PlannerPanel::selectedCandidate() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (m_serving || rows.isEmpty())
        return std::nullopt;
    return m_model->candidate(m_sorted->mapToSource(rows.constFirst()).row());
}

std::optional<core::ServingCandidate> PlannerPanel::selectedServingCandidate() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (!m_serving || rows.isEmpty())
        return std::nullopt;
    return m_servingModel->candidate(m_sorted->mapToSource(rows.constFirst()).row());
}

void PlannerPanel::takeInputsFromScenario()
{
    if (!m_followScenario)
        return;
    const core::Scenario &s = m_document->scenario();
    const QSignalBlocker blockDevices(m_devices);
    const QSignalBlocker blockBatch(m_globalBatch);
    m_devices->setValue(s.devices());
    m_devices->setSuffix(devicesSuffix(s.devices()));
    m_globalBatch->setValue(s.microbatches * s.microbatchSize * s.dp);
}

void PlannerPanel::followMode()
{
    const bool serving = isServingScenario(m_document->scenario());
    if (serving == m_serving)
        return;
    m_serving = serving;
    m_cancelNote.clear(); // about the other mode's search
    for (QWidget *w : std::as_const(m_trainingInputs))
        w->setVisible(!serving);
    for (QWidget *w : std::as_const(m_servingInputs))
        w->setVisible(serving);
    m_devicesLabel->setText(serving ? tr("Devices available:") : tr("Devices N:"));
    m_devices->setToolTip(
        serving ? tr("Devices N available for the deployment. Replica shapes T × K of at most N "
                     "devices are searched, and D = N ÷ (T × K) replicas of each fill them (or "
                     "as many as the throughput target needs). Starts at the explorer's "
                     "T × K × D.")
                : tr("Devices N to split the model over: T × C × K × D = N. Starts at the "
                     "explorer's T × C × K × D."));
    m_devicesLabel->setToolTip(m_devices->toolTip());
    m_top->setToolTip(serving ? tr("How many of the shapes with the most output tokens per "
                                   "second per device to list, and to draw.")
                              : tr("How many of the fastest layouts that fit to list. A longer "
                                   "list prunes less: more layouts are evaluated in full."));
    m_topLabel->setToolTip(m_top->toolTip());
    m_run->setToolTip((serving ? servingSearchTooltip() : searchTooltip()) +
                      tr("<p>Enter in any of the fields runs it too.</p>"));
    m_load->setToolTip(
        serving ? tr("Set the explorer's layout to the selected row's: T, K, D replicas, m "
                     "micro-batches of b sequences (no ZeRO, GPipe, no recomputation, no "
                     "sequence parallelism), as one step that Edit → Undo takes back.")
                : tr("Set the explorer's layout (T, C, K, D, E, ZeRO, schedule, b, m, "
                     "recomputation, sequence parallelism) to the selected row's, as one "
                     "step that Edit → Undo takes back."));
    m_table->setToolTip(serving ? tr("The replica shapes with the most output tokens per second "
                                     "per device that fit and meet the targets. Click a header "
                                     "to sort; double-click a row or press Enter to load it "
                                     "into the explorer.")
                                : tr("The fastest layouts that fit. Click a header to sort; "
                                     "double-click a row or press Enter to load it into the "
                                     "explorer."));
    m_exportCsv->setToolTip(
        tr("Save the candidates as a CSV table, every number at full precision, as parascope "
           "plan %1--format csv prints them.")
            .arg(serving ? QStringLiteral("--mode inference ") : QString()));
    m_sorted->setSourceModel(serving ? static_cast<QAbstractItemModel *>(m_servingModel)
                                     : static_cast<QAbstractItemModel *>(m_model));
    m_table->sortByColumn(PlanTableModel::rank, Qt::AscendingOrder);
    m_chart->setVisible(!serving);
    m_servingChart->setVisible(serving);
    showResult();
}

core::ServingPlanRequest PlannerPanel::servingRequestFromInputs() const
{
    core::ServingPlanRequest request;
    request.base = m_document->scenario();
    request.devices = m_devices->value();
    request.top = m_top->value();
    request.headroomGib = m_headroom->value();
    if (m_tpotOn->isChecked())
        request.tpotTargetS = m_tpot->value() * 1e-3;
    if (m_ttftOn->isChecked())
        request.ttftTargetS = m_ttft->value() * 1e-3;
    if (m_rateOn->isChecked())
        request.tokensPerSTarget = m_rate->value();
    return request;
}

void PlannerPanel::run()
{
    // The mode of the scenario now, even before the document's change notice arrives.
    followMode();
    m_devices->setSuffix(devicesSuffix(m_devices->value()));
    m_cancelNote.clear();
    m_fraction = 0;
    if (m_serving) {
        m_runner->start(servingRequestFromInputs(), m_document->presets());
    } else {
        core::PlanRequest request;
        request.base = m_document->scenario();
        request.devices = m_devices->value();
        request.globalBatch = m_globalBatch->value();
        request.top = m_top->value();
        request.distinct = m_distinct->isChecked();
        request.hybridSharding = m_hybrid->isChecked();
        request.offloading = m_offloading->isChecked();
        request.headroomGib = m_headroom->value();
        request.rank = static_cast<core::PlanRank>(m_rank->currentData().toInt());
        m_runner->start(request, m_document->presets());
    }
    setRunning(true);
    showMessages();
}

void PlannerPanel::planExample(const io::ExamplePlan &plan)
{
    for (const auto &[check, box, target] :
         {std::tuple{m_tpotOn, m_tpot, plan.tpotMs}, std::tuple{m_ttftOn, m_ttft, plan.ttftMs},
          std::tuple{m_rateOn, m_rate, std::optional<double>{}}}) {
        check->setChecked(target.has_value());
        if (target)
            box->setValue(*target);
    }
    m_followScenario = true;
    takeInputsFromScenario();
    run();
}

void PlannerPanel::cancel()
{
    if (isRunning())
        m_runner->cancel();
}

bool PlannerPanel::loadSelected()
{
    if (const auto candidate = selectedServingCandidate()) {
        load(*candidate);
        return true;
    }
    const auto candidate = selectedCandidate();
    if (!candidate)
        return false;
    load(*candidate);
    return true;
}

std::optional<QString> PlannerPanel::copySelectedAs(core::Framework framework)
{
    const auto candidate = selectedCandidate();
    if (!candidate)
        return tr("select a training layout first");
    return ConfigActions::copyAs(candidate->apply(m_document->scenario()), m_document->presets(),
                                 framework);
}

void PlannerPanel::load(const core::PlanCandidate &candidate)
{
    m_document->setScenario(candidate.apply(m_document->scenario()),
                            tr("Planner: %1").arg(io::layoutText(candidate)));
}

void PlannerPanel::load(const core::ServingCandidate &candidate)
{
    m_document->setScenario(candidate.apply(m_document->scenario()),
                            tr("Planner: %1").arg(io::servingShapeText(candidate)));
}

void PlannerPanel::unitsChanged()
{
    m_model->unitsChanged();
    m_servingModel->unitsChanged();
    m_chart->unitsChanged();
}

void PlannerPanel::focusInputs()
{
    m_devices->setFocus(Qt::ShortcutFocusReason);
    m_devices->selectAll();
}

bool PlannerPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        auto *box = qobject_cast<QAbstractSpinBox *>(watched);
        if (box && (key == Qt::Key_Return || key == Qt::Key_Enter)) {
            box->interpretText(); // the value typed so far, before the search reads it
            run();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PlannerPanel::changeEvent(QEvent *event)
{
    // Message colours are picked for a light or a dark window.
    if (event->type() == QEvent::PaletteChange)
        showMessages();
    // Rows as tall as the text, in presentation mode too.
    if (event->type() == QEvent::FontChange)
        m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    QWidget::changeEvent(event);
}

void PlannerPanel::onDocumentChanged()
{
    takeInputsFromScenario();
    followMode();
    const core::Scenario &now = m_document->scenario();
    m_model->setLoaded(plan_text::layoutOf(now));
    m_servingModel->setLoaded(core::PlanLayout::of(now));
    // Each mode's search is stale when anything but the layout it chooses has changed; a
    // change of mode is one, so a search of the other mode is stale until it comes back.
    if (m_result) {
        m_changedInputs = plan_text::changedInputs(m_resultRequest.base, now);
        m_stale = !m_changedInputs.isEmpty();
        m_model->setStale(m_stale);
    }
    if (m_servingResult) {
        m_servingChangedInputs = plan_text::changedInputs(m_servingRequest.base, now);
        m_servingStale = !m_servingChangedInputs.isEmpty();
        m_servingModel->setStale(m_servingStale);
    }
    showMessages();
}

void PlannerPanel::onProgress(double fraction)
{
    m_fraction = fraction;
    m_progress->setValue(static_cast<int>(std::lround(fraction * 1000)));
}

void PlannerPanel::onFinished(const core::PlanResult &result)
{
    setRunning(false);
    if (result.cancelled) {
        m_cancelNote = m_result ? tr("Search cancelled at %1 %; the table shows the previous "
                                     "search.")
                                      .arg(std::floor(100 * m_fraction))
                                : tr("Search cancelled at %1 %.").arg(std::floor(100 * m_fraction));
        showMessages();
        Q_EMIT finished(true);
        return;
    }
    m_result = result;
    m_resultRequest = m_runner->request();
    const core::ModelSpec *model = core::resolveModel(m_resultRequest.base, m_document->presets());
    m_model->setCandidates(result.candidates, model && model->hasExperts());
    if (result.error) {
        m_chart->clear(tr("Nothing to draw: the request is invalid (the message beside the table "
                          "says why)."));
    } else {
        const core::DeviceSpec *device =
            core::resolveDevice(m_resultRequest.base, m_document->presets());
        m_chart->setResult(result, device ? device->capacityBytes() : 0);
    }
    onDocumentChanged(); // stale already, if the explorer changed while it searched
    if (!m_serving)      // else it waits, with its selection, until the mode comes back
        showResult();
    Q_EMIT finished(false);
}

void PlannerPanel::onServingFinished(const core::ServingPlanResult &result)
{
    setRunning(false);
    if (result.cancelled) {
        m_cancelNote = m_servingResult
                           ? tr("Search cancelled at %1 %; the table shows the "
                                "previous search.")
                                 .arg(std::floor(100 * m_fraction))
                           : tr("Search cancelled at %1 %.").arg(std::floor(100 * m_fraction));
        showMessages();
        Q_EMIT finished(true);
        return;
    }
    m_servingResult = result;
    m_servingRequest = m_runner->servingRequest();
    m_servingModel->setCandidates(result.candidates);
    if (result.error)
        m_servingChart->clear(
            tr("Nothing to draw: the request is invalid (the message beside the table says "
               "why)."));
    else
        m_servingChart->setResult(result);
    onDocumentChanged();
    if (m_serving)
        showResult();
    Q_EMIT finished(false);
}

void PlannerPanel::showResult()
{
    showSummary();
    // C and E only where they say something (PlanTableModel::isColumnShown); the deployments'
    // table shows all its columns.
    for (int column = 0; column < m_sorted->columnCount(); ++column)
        m_table->setColumnHidden(column, !m_serving && !m_model->isColumnShown(column));
    if (m_sorted->rowCount() > 0)
        m_table->selectRow(0);
    // The deployments' table is wider than the training one (its last column is the whole
    // shape): it takes the width it needs, leaving the chart its minimum and a little more,
    // unless the user has set the split.
    if (!m_splitterMoved && m_splitter->width() > 0) {
        const int total = m_splitter->width() - m_splitter->handleWidth();
        int table = total / 2;
        if (m_serving) {
            m_table->resizeColumnsToContents();
            const int wanted = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() +
                               m_table->verticalScrollBar()->sizeHint().width();
            const int chart = m_charts->minimumSizeHint().width() + 40;
            table = std::clamp(wanted, total / 2, std::max(total / 2, total - chart));
        }
        m_splitter->setSizes({table, total - table});
    }
    m_exportCsv->setEnabled(m_sorted->rowCount() > 0);
    onSelectionChanged();
    showMessages();
}

void PlannerPanel::showSummary()
{
    if (m_serving) {
        m_summary->setTextFormat(Qt::RichText);
        m_summary->setToolTip(servingSummaryTooltip());
        if (!m_servingResult) {
            m_summary->setText(tr("Finds the replica shapes of at most N devices with the most "
                                  "output tokens per second per device that fit and meet the "
                                  "targets. Set N and the targets, then Run (Enter)."));
            return;
        }
        const core::ServingPlanResult &r = *m_servingResult;
        if (r.error) {
            m_summary->setText(tr("No search: the request is invalid."));
            return;
        }
        QStringList lines{plan_text::servingSummary(m_servingRequest, r).toHtmlEscaped(),
                          io::smallestText(m_servingRequest, r).toHtmlEscaped()};
        const QStringList rejected = io::servingRejectionsText(r.rejected);
        for (qsizetype i = 0; i < rejected.size(); ++i)
            lines << (i == 0 ? tr("Rejected: %1") : QStringLiteral("%1"))
                         .arg(rejected.at(i).toHtmlEscaped());
        m_summary->setText(lines.join(QStringLiteral("<br>")));
        return;
    }
    m_summary->setTextFormat(Qt::PlainText);
    if (!m_result) {
        m_summary->setToolTip(summaryTooltip());
        m_summary->setText(tr("Finds the fastest layouts of N devices that fit. Set N and the "
                              "global batch, then Run (Enter)."));
    } else if (m_result->error) {
        m_summary->setToolTip(summaryTooltip());
        m_summary->setText(tr("No search: the request is invalid."));
    } else {
        m_summary->setText(plan_text::summary(m_resultRequest, *m_result));
        m_summary->setToolTip(summaryTooltip() + plan_text::rejectionExamples(m_result->rejected));
    }
}

void PlannerPanel::onSelectionChanged()
{
    if (m_serving) {
        const auto candidate = selectedServingCandidate();
        m_servingChart->setSelected(candidate);
        m_load->setEnabled(candidate.has_value());
    } else {
        const auto candidate = selectedCandidate();
        m_chart->setSelected(candidate);
        m_load->setEnabled(candidate.has_value());
    }
}

int PlannerPanel::heightForWidth(int width) const
{
    const QMargins margins = layout()->contentsMargins();
    return margins.top() + m_inputs->heightForWidth(width - margins.left() - margins.right()) +
           layout()->spacing() + m_splitter->minimumSizeHint().height() + margins.bottom();
}

void PlannerPanel::setRunning(bool running)
{
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    m_summary->setVisible(!running);
    if (running)
        m_progress->setValue(0);
}

void PlannerPanel::showMessages()
{
    const bool dark = chart_style::isDark(palette());
    const QString error = dark ? QStringLiteral("#ff7b7b") : QStringLiteral("#b00020");
    const QString warning = dark ? QStringLiteral("#f0c060") : QStringLiteral("#8a5a00");
    QStringList lines;
    const bool shown = m_serving ? m_servingResult.has_value() : m_result.has_value();
    if (shown && !isRunning()) {
        const auto problem = m_serving
                                 ? plan_text::servingProblem(m_servingRequest, *m_servingResult)
                                 : plan_text::problem(m_resultRequest, *m_result);
        if (problem)
            lines << QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                         .arg(error, problem->toHtmlEscaped());
    }
    if (shown && isStale())
        lines << QStringLiteral("<span style='color:%1'>⚠ %2</span>")
                     .arg(warning,
                          tr("The explorer's %1 changed since this search: these results are "
                             "for the previous inputs — Run again.")
                              .arg((m_serving ? m_servingChangedInputs : m_changedInputs)
                                       .join(QStringLiteral(", ")))
                              .toHtmlEscaped());
    if (!m_cancelNote.isEmpty())
        lines << m_cancelNote.toHtmlEscaped();
    m_message->setText(lines.join(QStringLiteral("<br>")));
    m_message->setVisible(!lines.isEmpty());
}

std::optional<QString> PlannerPanel::writeCsv(const QString &path) const
{
    if (m_serving)
        return io::saveFile(path, io::toCsv(io::servingPlanTable(m_servingModel->candidates())));
    return io::saveFile(path, io::toCsv(io::planTable(m_model->candidates())));
}

void PlannerPanel::exportCsv()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the candidates"),
        QDir::home().filePath(m_serving ? QStringLiteral("deployments.csv")
                                        : QStringLiteral("plan.csv")),
        tr("CSV table (*.csv)"));
    if (path.isEmpty())
        return;
    if (auto reason = writeCsv(path))
        QMessageBox::warning(this, tr("Export failed"), *reason);
}

} // namespace ui
