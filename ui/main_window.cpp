#include "ui/main_window.h"

#include "core/validate.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/controls_panel.h"
#include "ui/file_actions.h"
#include "ui/formula_panel.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/sharding_verifier.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

namespace ui {

MainWindow::MainWindow(ScenarioDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_files(new FileActions(document, this)),
      m_controls(new ControlsPanel(document)), m_note(new QLabel), m_verdict(new QLabel),
      m_charts(new QTabWidget), m_memoryChart(new StageMemoryChart),
      m_modelSizeChart(new ModelSizeChart), m_bubbleChart(new BubbleChart),
      m_shardingChart(new ShardingChart), m_formulas(new FormulaPanel),
      m_timeline(new TimelinePanel(document))
{
    resize(1280, 800);

    auto *scroll = new QScrollArea;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_controls->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width() + 4);
    auto *dock = new QDockWidget(tr("Scenario"));
    dock->setObjectName(QStringLiteral("controls"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::RichText);
    m_note->setObjectName(QStringLiteral("note"));
    // Mnemonics that no control in the scenario dock uses.
    m_charts->addTab(m_memoryChart, tr("Stage memor&y"));
    m_charts->addTab(m_bubbleChart, tr("B&ubble"));
    m_charts->addTab(m_timeline, tr("T&imeline"));
    m_charts->addTab(m_shardingChart, tr("S&harding"));
    new ShardingVerifier(document, m_shardingChart); // parented to the chart
    m_charts->addTab(m_modelSizeChart, tr("Model &weights"));
    connect(m_charts, &QTabWidget::currentChanged, this, &MainWindow::updateVisibleChart);

    auto *formulaDock = new QDockWidget(tr("Formulas"));
    formulaDock->setObjectName(QStringLiteral("formulas"));
    formulaDock->setWidget(m_formulas);
    m_formulas->setMinimumHeight(120);
    addDockWidget(Qt::BottomDockWidgetArea, formulaDock);
    resizeDocks({formulaDock}, {170}, Qt::Vertical);
    m_charts->setDocumentMode(true);

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(m_note);
    layout->addWidget(m_charts, 1);
    setCentralWidget(central);
    m_verdict->setObjectName(QStringLiteral("verdict"));
    statusBar()->addWidget(m_verdict, 1);

    createMenus();
    connect(document, &ScenarioDocument::changed, this, &MainWindow::refresh);
    connect(document, &ScenarioDocument::fileStateChanged, this, &MainWindow::updateTitle);
    refresh(FieldMask::all());
    updateTitle();
}

void MainWindow::updateTitle()
{
    const QString path = m_document->filePath();
    setWindowTitle(
        tr("%1[*] — Parascope").arg(path.isEmpty() ? tr("Untitled") : QFileInfo(path).fileName()));
    setWindowFilePath(path);
    setWindowModified(m_document->isModified());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_files->maybeSave()) {
        event->ignore();
        return;
    }
    Settings settings;
    settings.setLastScenario(io::writeScenario(m_document->scenario()));
    settings.setLastFile(m_document->filePath());
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState());
    event->accept();
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_files->addTo(file);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Parascope"), this, [this] {
        QMessageBox::about(this, tr("About Parascope"),
                           tr("<p><b>Parascope</b> %1</p><p>Explore how large language models "
                              "split across accelerators: pipeline bubbles, memory per stage, "
                              "tensor-parallel sharding.</p>")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::refresh(FieldMask keys)
{
    showNote();
    const core::Report &r = m_document->lastValidReport();
    if (!r.ok() || r.stages.empty())
        return;
    // Charts redraw when they are on screen; the others remember that they are stale.
    m_stale.insert(m_memoryChart);
    m_stale.insert(m_bubbleChart);
    if (keys.intersects(FieldMask::of({"model", "device", "tp"})))
        m_stale.insert(m_modelSizeChart);
    if (keys.intersects(FieldMask::of({"model", "device", "precision", "tp", "seq_len",
                                       "microbatch_size", "mfu", "inter_node_gb_per_s"})))
        m_stale.insert(m_shardingChart);
    updateVisibleChart();
    showVerdict();
}

void MainWindow::updateVisibleChart()
{
    QWidget *current = m_charts->currentWidget();
    if (m_stale.remove(current)) {
        const core::Report &r = m_document->lastValidReport();
        if (current == m_memoryChart)
            m_memoryChart->setReport(r);
        else if (current == m_modelSizeChart)
            m_modelSizeChart->setReport(r);
        else if (current == m_bubbleChart)
            m_bubbleChart->setScenario(m_document->lastValidScenario(), r);
        else if (current == m_shardingChart)
            updateSharding();
    }
    updateFormulas();
}

// The sharding demonstrator multiplies matrices (a few ms): only when its inputs
// changed and its chart is on screen.
void MainWindow::updateSharding()
{
    const core::Scenario &s = m_document->lastValidScenario();
    const core::ModelSpec *model = core::resolveModel(s, m_document->presets());
    const core::DeviceSpec *device = core::resolveDevice(s, m_document->presets());
    const auto request = model ? core::shardRequestFor(s, *model) : std::nullopt;
    if (request && device) {
        m_shardReport = core::analyzeSharding(*request, *device);
    } else {
        m_shardReport = {};
        m_shardReport.error = core::InputError{
            "model", "a model given only by its size has no feed-forward layer to split"};
    }
    m_shardingChart->setReport(m_shardReport, io::qs(m_document->lastValidReport().modelName));
}

void MainWindow::updateFormulas()
{
    FormulaPanel::Topic topic = FormulaPanel::Topic::memory;
    QWidget *current = m_charts->currentWidget();
    if (current == m_bubbleChart)
        topic = FormulaPanel::Topic::bubble;
    else if (current == m_shardingChart)
        topic = FormulaPanel::Topic::sharding;
    else if (current == m_modelSizeChart)
        topic = FormulaPanel::Topic::modelSize;
    m_formulas->show(topic, m_document->lastValidScenario(), m_document->lastValidReport(),
                     m_shardReport.ok() ? &m_shardReport : nullptr);
}

void MainWindow::showNote()
{
    const core::Report &current = m_document->report();
    QStringList lines;
    if (!current.ok()) {
        lines << tr("<span style='color:#b00020'><b>Cannot evaluate — %1.</b> The charts show "
                    "the last valid scenario.</span>")
                     .arg(io::qs(current.error->toString()).toHtmlEscaped());
    } else {
        for (const auto &w : current.warnings)
            lines << tr("<span style='color:#8a5a00'>⚠ %1</span>")
                         .arg(io::qs(w.message).toHtmlEscaped());
    }
    m_note->setText(lines.join(QStringLiteral("<br>")));
    m_note->setVisible(!lines.isEmpty());
}

void MainWindow::showVerdict()
{
    const core::Report &r = m_document->lastValidReport();
    QString verdict = tr("%1 devices (T=%2 × K=%3 × D=%4). Bubble %5, step %6 s. ")
                          .arg(r.devices)
                          .arg(r.tp)
                          .arg(r.pp)
                          .arg(r.dp)
                          .arg(QStringLiteral("%1 %").arg(100 * r.bubbleFraction, 0, 'f', 1))
                          .arg(r.makespanS, 0, 'g', 3);
    if (r.fits) {
        std::int64_t headroom = r.stages.front().headroomBytes;
        for (const auto &stage : r.stages)
            headroom = std::min(headroom, stage.headroomBytes);
        verdict += tr("Fits: every stage has at least %1 free.")
                       .arg(io::formatBytes(static_cast<double>(headroom)));
    } else {
        const auto &stage = r.stages[static_cast<std::size_t>(r.firstOverflowStage)];
        verdict += tr("Does not fit: stage %1 needs %2 of %3; its largest term is %4.")
                       .arg(stage.index)
                       .arg(io::formatBytes(static_cast<double>(stage.totalBytes)),
                            io::formatBytes(static_cast<double>(stage.capacityBytes)),
                            io::qs(r.firstOverflowTerm));
    }
    m_verdict->setText(verdict);
}

} // namespace ui
