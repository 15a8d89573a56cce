#include "ui/planner/planner_panel.h"

#include "core/validate.h"
#include "io/plan_io.h"
#include "io/save_file.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/plan_chart.h"
#include "ui/planner/plan_runner.h"
#include "ui/planner/plan_table_model.h"
#include "ui/planner/plan_text.h"
#include "ui/scenario_document.h"
#include "ui/widgets/flow_layout.h"

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
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace ui {

namespace {

constexpr int kMaxGlobalBatch = 1 << 24;
constexpr int kMaxTop = 1000;
constexpr int kDefaultTop = 20;
constexpr double kMaxHeadroomGib = 1024;

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
        "(tensor-parallel T, pipeline stages K, data-parallel D), with every ZeRO stage, "
        "pipeline schedule, micro-batch size, recomputation and sequence parallelism, for "
        "the explorer's model, device, precision, mode and sequence length.</p>"
        "<p>Layouts that do not fit the device's memory are rejected; the rest are ranked by "
        "step time. The search runs in the background: the window stays usable, and Cancel "
        "stops it.</p>");
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
      m_distinct(new QCheckBox(tr("One per split"))), m_headroom(new QDoubleSpinBox),
      m_rank(new QComboBox), m_fromScenario(new QToolButton), m_run(new QPushButton(tr("Run"))),
      m_cancel(new QPushButton(tr("Cancel"))), m_progress(new QProgressBar), m_summary(new QLabel),
      m_message(new QLabel), m_model(new PlanTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)), m_table(new QTableView),
      m_load(new QPushButton(tr("Load into explorer"))),
      m_exportCsv(new QPushButton(tr("Export CSV…"))), m_chart(new PlanChart)
{
    setObjectName(QStringLiteral("plannerPanel"));

    m_devices->setToolTip(tr("Devices N to split the model over: T × K × D = N. Starts at the "
                             "explorer's T × K × D."));
    m_devices->setSuffix(tr(" devices"));
    m_globalBatch->setToolTip(tr("Sequences per step over all replicas; each of the "
                                 "D replicas takes global batch ÷ D as m micro-batches of b. "
                                 "Starts at the explorer's m × b × D."));
    m_globalBatch->setSuffix(tr(" sequences"));
    m_top->setValue(kDefaultTop);
    m_top->setToolTip(tr("How many of the fastest layouts that fit to list. A longer list "
                         "prunes less: more layouts are evaluated in full."));
    m_distinct->setObjectName(QStringLiteral("plannerDistinct"));
    m_distinct->setChecked(true);
    m_distinct->setToolTip(
        tr("List only the fastest layout of each T, K, D, schedule and micro-batch size. "
           "Layouts that differ only in ZeRO stage, recomputation or sequence parallelism "
           "often take the same time; unticked, they fill the list. Changing it searches "
           "again."));
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
           "gigabyte is likely to run out of memory in practice."));
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
                                  "(T × K × D and m × b × D), and follow its changes."));
    for (QSpinBox *box : {m_devices, m_globalBatch, m_top})
        box->installEventFilter(this);

    m_run->setObjectName(QStringLiteral("plannerRun"));
    m_run->setToolTip(searchTooltip() + tr("<p>Enter in any of the fields runs it too.</p>"));
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
    m_summary->setToolTip(summaryTooltip());
    m_summary->setText(tr("Finds the fastest layouts of N devices that fit. Set N and the "
                          "global batch, then Run (Enter)."));
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
    m_table->setToolTip(tr("The fastest layouts that fit. Click a header to sort; double-click "
                           "a row or press Enter to load it into the explorer."));
    m_load->setObjectName(QStringLiteral("plannerLoad"));
    m_load->setEnabled(false);
    m_load->setToolTip(tr("Set the explorer's layout (T, K, D, ZeRO, schedule, b, m, "
                          "recomputation, sequence parallelism) to the selected row's, as one "
                          "step that Edit → Undo takes back."));
    m_chart->setObjectName(QStringLiteral("plannerChart"));

    // The inputs wrap onto a second row rather than widen a narrow dock; a label stays with
    // its field, Run with Cancel.
    auto *inputs = new FlowLayout;
    inputs->setSpacing(12);
    auto group = [inputs](std::initializer_list<QWidget *> widgets) {
        auto *box = new QWidget;
        auto *row = new QHBoxLayout(box);
        row->setContentsMargins(0, 0, 0, 0);
        for (QWidget *w : widgets)
            row->addWidget(w);
        inputs->addWidget(box);
    };
    auto labelFor = [](const QString &text, QWidget *field) {
        auto *label = new QLabel(text);
        label->setBuddy(field);
        label->setToolTip(field->toolTip());
        return label;
    };
    group({labelFor(tr("Devices N:"), m_devices), m_devices});
    group({labelFor(tr("Global batch:"), m_globalBatch), m_globalBatch});
    group({labelFor(tr("Top:"), m_top), m_top});
    inputs->addWidget(m_distinct);
    group({labelFor(tr("Headroom:"), m_headroom), m_headroom});
    group({labelFor(tr("Rank by:"), m_rank), m_rank});
    inputs->addWidget(m_fromScenario);
    group({m_run, m_cancel});
    m_progress->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 30);
    // Its place is kept while it is hidden: starting a search must not rewrap the row.
    QSizePolicy keep = m_progress->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_progress->setSizePolicy(keep);
    inputs->addWidget(m_progress);

    auto *tableSide = new QWidget;
    auto *tableLayout = new QVBoxLayout(tableSide);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    auto *loadRow = new QHBoxLayout;
    loadRow->addWidget(m_load);
    auto *loadHint = new QLabel(tr("or double-click a row; Edit → Undo takes it back."));
    loadHint->setWordWrap(true);
    loadRow->addWidget(loadHint, 1);
    loadRow->addWidget(m_exportCsv);
    tableLayout->addLayout(loadRow);

    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("plannerSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(tableSide);
    splitter->addWidget(m_chart);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(inputs);
    layout->addWidget(m_summary);
    layout->addWidget(m_message);
    layout->addWidget(splitter, 1);

    connect(m_run, &QPushButton::clicked, this, &PlannerPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &PlannerPanel::cancel);
    connect(m_load, &QPushButton::clicked, this, &PlannerPanel::loadSelected);
    m_exportCsv->setObjectName(QStringLiteral("plannerExportCsv"));
    m_exportCsv->setEnabled(false);
    m_exportCsv->setToolTip(tr("Save the candidates as a CSV table, every number at full "
                               "precision, as parascope plan --format csv prints them."));
    connect(m_exportCsv, &QPushButton::clicked, this, &PlannerPanel::exportCsv);
    connect(m_fromScenario, &QToolButton::clicked, this, [this] {
        m_followScenario = true;
        takeInputsFromScenario();
    });
    for (QSpinBox *box : {m_devices, m_globalBatch})
        connect(box, &QSpinBox::valueChanged, this, [this] { m_followScenario = false; });
    // The list on show answers the other question: search again (milliseconds).
    connect(m_distinct, &QCheckBox::toggled, this, [this] {
        if (m_result || isRunning())
            run();
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        load(m_model->candidate(m_sorted->mapToSource(index).row()));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &PlannerPanel::onSelectionChanged);
    connect(m_chart, &PlanChart::candidateClicked, this, [this](int index) {
        const QModelIndex row = m_sorted->mapFromSource(m_model->index(index, 0));
        m_table->setCurrentIndex(row);
        m_table->scrollTo(row);
    });
    connect(m_runner, &PlanRunner::progressChanged, this, &PlannerPanel::onProgress);
    connect(m_runner, &PlanRunner::finished, this, &PlannerPanel::onFinished);
    connect(document, &ScenarioDocument::changed, this, &PlannerPanel::onDocumentChanged);

    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    takeInputsFromScenario();
    setRunning(false);
}

bool PlannerPanel::isRunning() const
{
    return m_runner->isRunning();
}

std::optional<core::PlanCandidate> PlannerPanel::selectedCandidate() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return std::nullopt;
    return m_model->candidate(m_sorted->mapToSource(rows.constFirst()).row());
}

void PlannerPanel::takeInputsFromScenario()
{
    if (!m_followScenario)
        return;
    const core::Scenario &s = m_document->scenario();
    const QSignalBlocker blockDevices(m_devices);
    const QSignalBlocker blockBatch(m_globalBatch);
    m_devices->setValue(s.devices());
    m_globalBatch->setValue(s.microbatches * s.microbatchSize * s.dp);
}

void PlannerPanel::run()
{
    core::PlanRequest request;
    request.base = m_document->scenario();
    request.devices = m_devices->value();
    request.globalBatch = m_globalBatch->value();
    request.top = m_top->value();
    request.distinct = m_distinct->isChecked();
    request.headroomGib = m_headroom->value();
    request.rank = static_cast<core::PlanRank>(m_rank->currentData().toInt());
    m_cancelNote.clear();
    m_fraction = 0;
    m_runner->start(request, m_document->presets());
    setRunning(true);
    showMessages();
}

void PlannerPanel::cancel()
{
    if (isRunning())
        m_runner->cancel();
}

bool PlannerPanel::loadSelected()
{
    const auto candidate = selectedCandidate();
    if (!candidate)
        return false;
    load(*candidate);
    return true;
}

void PlannerPanel::load(const core::PlanCandidate &candidate)
{
    m_document->setScenario(candidate.apply(m_document->scenario()),
                            tr("Planner: %1").arg(io::layoutText(candidate)));
}

void PlannerPanel::unitsChanged()
{
    m_model->unitsChanged();
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
        auto *box = qobject_cast<QSpinBox *>(watched);
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
    const core::Scenario &now = m_document->scenario();
    m_model->setLoaded(plan_text::layoutOf(now));
    if (m_result) {
        m_changedInputs = plan_text::changedInputs(m_resultRequest.base, now);
        m_stale = !m_changedInputs.isEmpty();
        m_model->setStale(m_stale);
        showMessages();
    }
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
    m_model->setCandidates(result.candidates);
    const core::Scenario &base = m_resultRequest.base;
    if (result.error) {
        m_summary->setText(tr("No search: the request is invalid."));
        m_chart->clear(tr("No search result."));
    } else {
        m_summary->setText(plan_text::summary(m_resultRequest, result));
        m_summary->setToolTip(summaryTooltip() + plan_text::rejectionExamples(result.rejected));
        const core::DeviceSpec *device = core::resolveDevice(base, m_document->presets());
        m_chart->setResult(result, device ? device->capacityBytes() : 0);
    }
    onDocumentChanged(); // stale already, if the explorer changed while it searched
    if (m_model->rowCount() > 0)
        m_table->selectRow(0);
    m_exportCsv->setEnabled(m_model->rowCount() > 0);
    onSelectionChanged();
    showMessages();
    Q_EMIT finished(false);
}

void PlannerPanel::onSelectionChanged()
{
    const auto candidate = selectedCandidate();
    m_chart->setSelected(candidate);
    m_load->setEnabled(candidate.has_value());
}

void PlannerPanel::setRunning(bool running)
{
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    if (running)
        m_progress->setValue(0);
}

void PlannerPanel::showMessages()
{
    const bool dark = chart_style::isDark(palette());
    const QString error = dark ? QStringLiteral("#ff7b7b") : QStringLiteral("#b00020");
    const QString warning = dark ? QStringLiteral("#f0c060") : QStringLiteral("#8a5a00");
    QStringList lines;
    if (m_result && !isRunning()) {
        if (auto problem = plan_text::problem(m_resultRequest, *m_result))
            lines << QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                         .arg(error, problem->toHtmlEscaped());
    }
    if (m_result && m_stale)
        lines << QStringLiteral("<span style='color:%1'>⚠ %2</span>")
                     .arg(warning, tr("The explorer's %1 changed since this search: these "
                                      "results are for the previous inputs — Run again.")
                                       .arg(m_changedInputs.join(QStringLiteral(", ")))
                                       .toHtmlEscaped());
    if (!m_cancelNote.isEmpty())
        lines << m_cancelNote.toHtmlEscaped();
    m_message->setText(lines.join(QStringLiteral("<br>")));
    m_message->setVisible(!lines.isEmpty());
}

std::optional<QString> PlannerPanel::writeCsv(const QString &path) const
{
    return io::saveFile(path, io::toCsv(io::planTable(m_model->candidates())));
}

void PlannerPanel::exportCsv()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the candidates"), QDir::home().filePath(QStringLiteral("plan.csv")),
        tr("CSV table (*.csv)"));
    if (path.isEmpty())
        return;
    if (auto reason = writeCsv(path))
        QMessageBox::warning(this, tr("Export failed"), *reason);
}

} // namespace ui
