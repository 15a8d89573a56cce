#include "ui/main_window.h"

#include "core/evaluate.h"
#include "core/validate.h"
#include "io/examples_io.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "ui/charts/chart_pages.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/timeline_panel.h"
#include "ui/config_actions.h"
#include "ui/controls_panel.h"
#include "ui/export/export_actions.h"
#include "ui/file_actions.h"
#include "ui/formula_panel.h"
#include "ui/planner/planner_panel.h"
#include "ui/playhead.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/sources_dialog.h"
#include "ui/units.h"
#include "ui/widgets/dock_toggle.h"
#include "ui/widgets/wrapped_label.h"

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QGraphicsOpacityEffect>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>
#include <cmath>

namespace ui {

namespace {

// The status line: wrapped, with the height MainWindow holds for it (holdVerdictHeight).
// A layout asks a label that wraps for its height at the width of its size hint, and the
// main window gives the status bar that height: the text's length, not the window's width,
// would decide it.
class VerdictLabel : public WrappedLabel
{
public:
    bool hasHeightForWidth() const override { return false; }
};

// After the first stage over its capacity: how many are, and the furthest over where that is
// another stage (core's does-not-fit warning, in the unit the window shows).
QString furthestOver(const core::Report &r)
{
    if (r.overflowStages < 2)
        return {};
    QString out = MainWindow::tr("; %1 stages do not fit").arg(r.overflowStages);
    if (r.worstOverflowStage != r.firstOverflowStage && r.worstOverflowStage >= 0) {
        const auto &worst = r.stages[std::size_t(r.worstOverflowStage)];
        out += MainWindow::tr(", the furthest over stage %1 with %2, most of it %3")
                   .arg(worst.index)
                   .arg(units::format(double(worst.totalBytes)), io::qs(r.worstOverflowTerm));
    }
    return out;
}

} // namespace

MainWindow::MainWindow(ScenarioDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_files(new FileActions(document, this)),
      m_config(new ConfigActions(document, this)), m_controls(new ControlsPanel(document)),
      m_note(new WrappedLabel), m_verdict(new VerdictLabel), m_charts(new QTabWidget),
      m_example(new QFrame), m_exampleText(new QLabel), m_formulas(new FormulaPanel),
      m_planner(new PlannerPanel(document))
{
    // 1280 × 800 where the screen has room, never more than the screen (less its panels and
    // the window's frame).
    const QRect screen = this->screen()->availableGeometry();
    resize(std::min(1280, screen.width() * 95 / 100), std::min(800, screen.height() * 9 / 10));
    // A scenario file or a framework's file dropped on the window (openDropped).
    setAcceptDrops(true);

    auto *scroll = m_controlsScroll = new QScrollArea;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    auto *dock = m_controlsDock = new QDockWidget(tr("Scenario"));
    dock->setObjectName(QStringLiteral("controls"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    // A framework whose names for ZeRO stages are longer widens the panel, and narrows it back.
    connect(m_controls, &ControlsPanel::widthWanted, this, [this] {
        fitLayout(false);
        resizeDocks({m_controlsDock}, {m_controlsScroll->minimumWidth()}, Qt::Horizontal);
    });

    // The explanation of a loaded example, beside the charts it explains.
    m_example->setFrameShape(QFrame::StyledPanel);
    m_example->setObjectName(QStringLiteral("example"));
    m_exampleText->setWordWrap(true);
    m_exampleText->setTextFormat(Qt::RichText);
    m_exampleText->setObjectName(QStringLiteral("exampleText"));
    auto *closeExample = new QToolButton;
    closeExample->setText(QStringLiteral("×"));
    closeExample->setToolTip(tr("Hide the explanation"));
    closeExample->setAutoRaise(true);
    connect(closeExample, &QToolButton::clicked, m_example, &QWidget::hide);
    auto *exampleLayout = new QHBoxLayout(m_example);
    exampleLayout->addWidget(m_exampleText, 1);
    exampleLayout->addWidget(closeExample, 0, Qt::AlignTop);
    m_example->hide();

    m_note->setTextFormat(Qt::RichText);
    m_note->setObjectName(QStringLiteral("note"));
    // A warning that one setting answers carries an Apply link ("set:recompute_layers=43"):
    // clicked, or reached with Tab and Enter, it sets that key as one undoable edit.
    m_note->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_note, &QLabel::linkActivated, this, [this](const QString &link) {
        const QString setting = link.section(QLatin1Char(':'), 1);
        const QString key = setting.section(QLatin1Char('='), 0, 0);
        if (link.startsWith(QStringLiteral("set:")) && !key.isEmpty())
            m_document->setField(key, setting.section(QLatin1Char('='), 1));
    });
    for (auto &page : createChartPages()) {
        QWidget *widget = page->createWidget(document);
        const int index = m_charts->addTab(widget, page->title());
        // Ctrl+1 … Ctrl+9 pick a tab, as in a browser: the letters are the controls' and the
        // menus' (tst_main_window, mnemonicsAreUnique).
        if (index < 9) {
            const QKeySequence keys(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + index));
            auto *select = new QShortcut(keys, this);
            connect(select, &QShortcut::activated, this,
                    [this, index] { m_charts->setCurrentIndex(index); });
            m_charts->setTabToolTip(
                index, tr("%1 (%2)").arg(page->subject(), keys.toString(QKeySequence::NativeText)));
        }
        m_tabs.push_back({std::move(page), widget, true, 1.0});
    }
    connect(m_charts, &QTabWidget::currentChanged, this, &MainWindow::updateVisibleChart);
    connect(document->playhead(), &Playhead::togglePlayRequested, this, &MainWindow::togglePlay);

    auto *formulaDock = m_formulaDock = new QDockWidget(tr("Formulas"));
    formulaDock->setObjectName(QStringLiteral("formulas"));
    formulaDock->setWidget(m_formulas);
    // Three lines of formulas at the least, and a scroll bar: behind the Planner's tab (the two
    // share the bottom, which is as tall as the taller minimum) more would take the charts'
    // share on a projector.
    m_formulas->setMinimumHeight(60);
    m_formulaTimer = new QTimer(this);
    m_formulaTimer->setSingleShot(true);
    connect(m_formulaTimer, &QTimer::timeout, this, &MainWindow::showFormulasNow);
    addDockWidget(Qt::BottomDockWidgetArea, formulaDock);
    resizeDocks({formulaDock}, {170}, Qt::Vertical);
    m_charts->setDocumentMode(true);

    // The planner shares the bottom with the formulas: the charts above it show the layout
    // a row loads. Hidden until View → Planner asks for it.
    m_plannerDock = new QDockWidget(tr("Planner"));
    m_plannerDock->setObjectName(QStringLiteral("planner"));
    // In a scroll area: on a short screen at the largest text the panel's inputs, summary and
    // table need more height than leaves the charts their share; the panel scrolls then,
    // rather than squeezing the charts above to "…".
    auto *plannerScroll = new QScrollArea;
    plannerScroll->setObjectName(QStringLiteral("plannerScroll"));
    plannerScroll->setFrameShape(QFrame::NoFrame);
    plannerScroll->setWidgetResizable(true);
    plannerScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    plannerScroll->setWidget(m_planner);
    m_plannerDock->setWidget(plannerScroll);
    addDockWidget(Qt::BottomDockWidgetArea, m_plannerDock);
    tabifyDockWidget(formulaDock, m_plannerDock);
    m_plannerDock->hide();
    // View's toggles bring a dock that sits behind the other tab forward rather than close it.
    for (QDockWidget *d : {dock, formulaDock, m_plannerDock})
        m_dockToggles << new DockToggle(d, this);
    m_plannerToggle = m_dockToggles.back();
    m_plannerToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_plannerToggle->setToolTip(tr("Search every layout of N devices for the fastest that fit "
                                   "(in inference, every replica shape for the most tokens per "
                                   "second per device), and load one into the explorer."));
    connect(m_plannerToggle, &DockToggle::broughtForward, this, [this] {
        // Room for the table and the chart; the charts above keep the rest.
        resizeDocks({m_plannerDock},
                    {std::min(std::max(320, height() * 9 / 20), maxBottomDockHeight())},
                    Qt::Vertical);
        m_planner->focusInputs();
    });
    // Closed, the planner gives its room back to the charts, not to the formulas.
    connect(m_plannerDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible && !m_plannerDock->isVisible())
            QTimer::singleShot(0, this, [this] { fitLayout(true); });
    });

    // Problems and warnings have a place of two lines that is there whether or not there is
    // anything to say: a warning appearing during a drag does not move the tabs or the chart.
    m_noteStrip = new QWidget;
    m_noteStrip->setObjectName(QStringLiteral("noteStrip"));
    auto *noteLayout = new QVBoxLayout(m_noteStrip);
    noteLayout->setContentsMargins(0, 0, 0, 0);
    noteLayout->addWidget(m_note);
    noteLayout->addStretch();

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(m_example);
    layout->addWidget(m_noteStrip);
    layout->addWidget(m_charts, 1);
    setCentralWidget(central);
    m_verdict->setObjectName(QStringLiteral("verdict"));
    // Wrapped, two lines rather than a cut one at large text, and as tall as its text needs
    // at its width (holdVerdictHeight): the status bar took the height of the text wrapped
    // at the label's hint, four lines for a verdict of one.
    m_verdict->installEventFilter(this);
    m_noteStrip->installEventFilter(this);
    statusBar()->addWidget(m_verdict, 1);

    createMenus();
    connect(document, &ScenarioDocument::changed, this, &MainWindow::refresh);
    connect(document, &ScenarioDocument::fileStateChanged, this, &MainWindow::updateTitle);
    refresh();
    updateTitle();
    applyScale();
}

MainWindow::~MainWindow()
{
    m_plannerDock->disconnect(this);
}

int MainWindow::maxBottomDockHeight() const
{
    // What leaves the charts their share, less the menu, note, tabs and status line.
    int chrome = menuBar()->sizeHint().height() + statusBar()->sizeHint().height() +
                 m_noteStrip->height() + m_charts->tabBar()->sizeHint().height();
    // The Formulas and the Planner share the bottom as tabs: their tab bar is below the
    // dock, outside the height the dock is given.
    if (m_formulaDock->isVisible() && m_plannerDock->isVisible())
        chrome += m_charts->tabBar()->sizeHint().height();
    return std::max(80, static_cast<int>(height() * (1.0 - kChartHeightShare)) - chrome);
}

void MainWindow::fitLayout(bool reset)
{
    // The controls: beside their labels when that fits the width they may have, else stacked.
    // Less than all the rest: the dock's frame, the splitter and the margins take some.
    const int maxControls = static_cast<int>(width() * (0.95 - kChartWidthShare));
    const int bar = m_controlsScroll->verticalScrollBar()->sizeHint().width() + 4;
    // Larger text than normal stacks them anyway: the pickers then show whole names.
    m_controls->setStacked(false);
    int controlsWidth = m_controls->minimumSizeHint().width() + bar;
    if (controlsWidth > maxControls || textScale() > 1.1) {
        m_controls->setStacked(true);
        controlsWidth = m_controls->minimumSizeHint().width() + bar;
    }
    controlsWidth = std::min(controlsWidth, maxControls);
    m_controlsScroll->setMinimumWidth(controlsWidth);
    if (reset || m_controlsDock->width() > maxControls)
        resizeDocks({m_controlsDock}, {controlsWidth}, Qt::Horizontal);

    // The note's two lines at the current text size.
    const QFontMetrics metrics(m_note->font());
    m_noteStrip->setFixedHeight(kNoteLines * metrics.lineSpacing() + 4);

    // The bottom docks: the formulas at their default height, the planner at its own, neither
    // more than leaves the charts their share.
    const int maxBottom = maxBottomDockHeight();
    QDockWidget *bottom = m_plannerDock->isVisible() ? m_plannerDock : m_formulaDock;
    const int wanted = bottom == m_plannerDock
                           ? std::max(320, height() * 9 / 20)
                           : std::min(static_cast<int>(170 * textScale()), height() * 22 / 100);
    if (reset || bottom->height() > maxBottom)
        resizeDocks({bottom}, {std::min(wanted, maxBottom)}, Qt::Vertical);
}

bool MainWindow::chartsHaveTheirShare() const
{
    // Within a few pixels: docks snap to their layout's spacing.
    return m_charts->width() + 8 >= static_cast<int>(width() * kChartWidthShare) &&
           m_charts->height() + 8 >= static_cast<int>(height() * kChartHeightShare);
}

bool MainWindow::restoreLayout(const QByteArray &savedGeometry, const QByteArray &savedState)
{
    const QByteArray defaultGeometry = saveGeometry();
    const QByteArray defaultState = saveState();
    if (savedGeometry.isEmpty() || !restoreGeometry(savedGeometry))
        return false;
    const QRect available = screen()->availableGeometry();
    if (!available.contains(frameGeometry()) && !available.contains(geometry())) {
        restoreGeometry(defaultGeometry);
        return false;
    }
    if (!savedState.isEmpty())
        restoreState(savedState);
    // A layout that leaves the charts too little room (saved at a text size since reset, or
    // on another screen) gives way to the default one.
    layout()->activate();
    if (!chartsHaveTheirShare()) {
        restoreState(defaultState);
        fitLayout(true);
        return false;
    }
    return true;
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    fitLayout(m_relayoutOnResize);
    m_relayoutOnResize = false;
}

QAction *MainWindow::plannerAction() const
{
    return m_plannerToggle;
}

void MainWindow::loadExample(const QString &id)
{
    for (const io::Example &e : io::builtinExamples()) {
        if (e.id != id)
            continue;
        m_document->loadExample(e.scenario, tr("Example: %1").arg(e.title));
        m_exampleHtml = QStringLiteral("<b>%1</b><br>%2")
                            .arg(e.title.toHtmlEscaped(), e.explanation.toHtmlEscaped());
        m_exampleScenario = m_document->scenario();
        m_exampleStale = true; // shown afresh below
        showExampleState();
        m_example->show();
        showChart(e.chart);
        // An example that asks a deployment question answers it in the Planner.
        if (e.plan) {
            if (!DockToggle::isInSight(m_plannerDock))
                m_plannerToggle->trigger();
            m_planner->planExample(*e.plan);
        }
        return;
    }
}

std::optional<QString> MainWindow::compareWith(const QString &path)
{
    core::Scenario scenario;
    if (auto e = io::readScenarioFile(path, scenario))
        return io::qs(e->toString());
    const core::Report report = core::evaluate(scenario, m_document->presets());
    if (report.error)
        return io::qs(report.error->toString());
    m_comparison = Comparison{scenario, report, tr("B (%1)").arg(QFileInfo(path).fileName())};
    m_stopComparing->setEnabled(true);
    redrawAll();
    return std::nullopt;
}

void MainWindow::stopComparing()
{
    m_comparison.reset();
    m_stopComparing->setEnabled(false);
    redrawAll();
}

const ChartPage *MainWindow::currentPage() const
{
    const int index = m_charts->currentIndex();
    return index >= 0 ? m_tabs[std::size_t(index)].page.get() : nullptr;
}

const ChartPage *MainWindow::page(const QString &id) const
{
    for (const Tab &tab : m_tabs)
        if (tab.page->id() == id)
            return tab.page.get();
    return nullptr;
}

void MainWindow::showChart(const QString &id)
{
    for (const Tab &tab : m_tabs)
        if (tab.page->id() == id)
            m_charts->setCurrentWidget(tab.widget);
}

void MainWindow::updateTitle()
{
    const QString path = m_document->filePath();
    setWindowTitle(
        tr("%1[*] — Parascope").arg(path.isEmpty() ? tr("Untitled") : QFileInfo(path).fileName()));
    setWindowFilePath(path);
    setWindowModified(m_document->isModified());
}

void MainWindow::changeEvent(QEvent *event)
{
    // The system switched between light and dark.
    if (event->type() == QEvent::PaletteChange)
        applyScale();
    QMainWindow::changeEvent(event);
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

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.constFirst().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() != 1 || !urls.constFirst().isLocalFile())
        return;
    event->acceptProposedAction();
    const QString path = urls.constFirst().toLocalFile();
    // After the drop returns: the message boxes below must not run inside the drag.
    QTimer::singleShot(0, this, [this, path] { openDropped(path); });
}

std::optional<QString> MainWindow::openDropped(const QString &path)
{
    if (path.endsWith(QLatin1String(".parascope.json"))) {
        if (!m_files->maybeSave())
            return tr("cancelled");
        if (!m_files->open(path))
            return tr("not opened");
        return std::nullopt;
    }
    if (auto reason = m_config->importFile(path)) {
        QMessageBox::warning(this, tr("Cannot import"),
                             tr("%1 was not imported; the scenario is unchanged.\n\n%2")
                                 .arg(QDir::toNativeSeparators(path), *reason));
        return reason;
    }
    statusBar()->showMessage(
        tr("Imported %1 (Edit → Undo takes it back)").arg(QFileInfo(path).fileName()), 10000);
    return std::nullopt;
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_files->addTo(file);
    file->addSeparator();
    m_config->addImportTo(file);
    file->addSeparator();
    QAction *compare = file->addAction(tr("Co&mpare with…"));
    compare->setToolTip(tr("Draw a second scenario beside this one in the stage-memory, bubble "
                           "and step-time charts: what changed between plan A and plan B."));
    connect(compare, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Compare with scenario"), QFileInfo(m_document->filePath()).absolutePath(),
            FileActions::fileFilter());
        if (path.isEmpty())
            return;
        if (auto reason = compareWith(path))
            QMessageBox::warning(
                this, tr("Cannot compare"),
                tr("%1 cannot be compared.\n\n%2").arg(QDir::toNativeSeparators(path), *reason));
    });
    m_stopComparing = file->addAction(tr("Stop comparing"));
    m_stopComparing->setEnabled(false);
    connect(m_stopComparing, &QAction::triggered, this, &MainWindow::stopComparing);
    file->addSeparator();
    (new ExportActions(m_document, this))->addTo(file);
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
    edit->addSeparator();
    m_config->addCopyTo(edit);

    QMenu *examples = menuBar()->addMenu(tr("E&xamples"));
    for (const io::Example &e : io::builtinExamples()) {
        QAction *action = examples->addAction(e.title);
        action->setToolTip(e.explanation);
        const QString id = e.id;
        connect(action, &QAction::triggered, this, [this, id] { loadExample(id); });
    }

    QMenu *view = menuBar()->addMenu(tr("&View"));
    m_gibAction = view->addAction(tr("Sizes in &GiB (2³⁰ bytes)"));
    m_gibAction->setCheckable(true);
    m_gibAction->setToolTip(
        tr("Show memory in GiB (2³⁰ bytes) instead of decimal GB (10⁹ bytes)."));
    m_gibAction->setChecked(units::current() == io::SizeUnit::gib);
    connect(m_gibAction, &QAction::toggled, this, [this](bool gib) {
        units::setCurrent(gib ? io::SizeUnit::gib : io::SizeUnit::gb);
        Settings().setSizesInGib(gib);
        m_planner->unitsChanged();
        redrawAll();
    });
    view->addSeparator();
    m_presentAction = view->addAction(tr("&Presentation mode"));
    m_presentAction->setCheckable(true);
    m_presentAction->setShortcut(Qt::Key_F11);
    m_presentAction->setToolTip(
        tr("Full screen with larger text and lines, readable from the back of a room."));
    connect(m_presentAction, &QAction::toggled, this, [this](bool on) {
        m_relayoutOnResize = true; // the docks are sized again for the new window size
        if (on)
            showFullScreen();
        else
            showNormal();
        applyScale();
    });
    QAction *zoomIn = view->addAction(tr("&Larger text"));
    zoomIn->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn});
    zoomIn->setToolTip(tr("Text and lines 1.2× larger, up to three steps"));
    connect(zoomIn, &QAction::triggered, this, [this] {
        m_zoomStep = std::min(m_zoomStep + 1, kMaxZoomStep);
        applyScale();
    });
    QAction *zoomOut = view->addAction(tr("&Smaller text"));
    zoomOut->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus)); // also QKeySequence::ZoomOut
    connect(zoomOut, &QAction::triggered, this, [this] {
        m_zoomStep = std::max(m_zoomStep - 1, -kMaxZoomStep);
        applyScale();
    });
    QAction *zoomReset = view->addAction(tr("&Normal text size"));
    zoomReset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    zoomReset->setToolTip(tr("Normal text and the default layout of the panels"));
    connect(zoomReset, &QAction::triggered, this, [this] {
        m_zoomStep = 0;
        applyScale();
    });
    view->addSeparator();
    for (DockToggle *toggle : std::as_const(m_dockToggles))
        view->addAction(toggle);

    QAction *play = view->addAction(tr("Pla&y / pause the timeline"));
    play->setShortcut(Qt::Key_F5);
    play->setToolTip(tr("Animate the schedule on the Timeline tab, and Memory over the step with "
                        "it (teaching mode)."));
    connect(play, &QAction::triggered, this, &MainWindow::togglePlay);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *sources = help->addAction(tr("&Formulas && sources"));
    sources->setShortcut(QKeySequence::HelpContents);
    connect(sources, &QAction::triggered, this, [this] {
        auto *dialog = new SourcesDialog(m_document, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    help->addAction(tr("&About Parascope"), this, [this] {
        QMessageBox::about(this, tr("About Parascope"),
                           tr("<p><b>Parascope</b> %1</p><p>Explore how large language models "
                              "split across accelerators: pipeline bubbles, memory per stage, "
                              "tensor-parallel sharding.</p>")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::showExampleState()
{
    const bool stale = m_exampleScenario && m_document->scenario() != *m_exampleScenario;
    if (stale == m_exampleStale && !m_exampleText->text().isEmpty())
        return;
    m_exampleStale = stale;
    // The numbers it quotes are the example's: once the scenario departs from it, it says so
    // and steps back (greyed) rather than contradict the charts.
    m_exampleText->setText(
        stale ? tr("<i>About the example as loaded; the scenario has changed since.</i><br>"
                   "<span style='color:#7a7a7a'>%1</span>")
                    .arg(m_exampleHtml)
              : m_exampleHtml);
}

void MainWindow::showValidity()
{
    const bool lastValid = !m_document->report().ok();
    if (lastValid == m_showsLastValid)
        return;
    m_showsLastValid = lastValid;
    // Greyed while they show the last valid scenario, so that no one reads them as this one.
    if (lastValid) {
        auto *faded = new QGraphicsOpacityEffect(m_charts);
        faded->setOpacity(0.45);
        m_charts->setGraphicsEffect(faded);
    } else {
        m_charts->setGraphicsEffect(nullptr);
    }
    m_verdict->setEnabled(!lastValid);
    showVerdict();
}

void MainWindow::refresh()
{
    showExampleState();
    showValidity();
    showNote();
    const core::Report &r = m_document->lastValidReport();
    if (!r.ok() || r.stages.empty())
        return;
    // The charts show the last valid scenario, so what they redraw for is what changed in it
    // since they last drew — not the last edit: the model may have changed while the scenario
    // was invalid, and another key made it valid again.
    const core::Scenario &shown = m_document->lastValidScenario();
    const FieldMask keys = m_drawn ? FieldMask::between(*m_drawn, shown) : FieldMask::all();
    m_drawn = shown;
    // A page redraws when it is on screen; the others remember that they are stale.
    for (Tab &tab : m_tabs)
        if (keys.intersects(tab.page->dependsOn()))
            tab.stale = true;
    updateVisibleChart();
    showVerdict();
}

double MainWindow::textScale() const
{
    // Presentation mode: half as large again, readable from the back of a room.
    return (m_presentAction && m_presentAction->isChecked() ? 1.5 : 1.0) *
           std::pow(1.2, m_zoomStep);
}

void MainWindow::applyScale()
{
    const double scale = textScale();
    QFont font = QApplication::font();
    font.setPointSizeF(font.pointSizeF() * scale);
    setFont(font); // widgets, the timeline and the formulas follow the window's font
    for (QChartView *view : findChildren<QChartView *>()) {
        chart_style::setScale(view->chart(), scale);
        chart_style::applyPalette(view->chart(), palette());
    }
    for (Tab &tab : m_tabs)
        if (tab.widget->isVisible())
            tab.laidOutScale = scale;
    // The controls grow with the text, the charts keep their share: once the widgets have
    // taken the new font's sizes.
    fitLayout(true);
    QTimer::singleShot(0, this, [this] { fitLayout(true); });
}

void MainWindow::redrawAll()
{
    for (Tab &tab : m_tabs)
        tab.stale = true;
    showNote();
    if (!m_document->lastValidReport().ok())
        return;
    updateVisibleChart();
    showVerdict();
}

MainWindow::Tab *MainWindow::currentTab()
{
    const int index = m_charts->currentIndex();
    return index >= 0 ? &m_tabs[std::size_t(index)] : nullptr;
}

ChartInputs MainWindow::chartInputs() const
{
    return {m_document->lastValidScenario(), m_document->presets(), m_document->lastValidReport(),
            m_comparison ? &*m_comparison : nullptr};
}

// Only the page on screen is drawn, and the document computes only what it needs: the
// schedule's blocks while the timeline is in front, nothing more for the others.
void MainWindow::updateVisibleChart()
{
    Tab *tab = currentTab();
    if (!tab)
        return;
    m_document->setTimelineWanted(tab->page->needs() == ChartNeeds::timeline);
    // A page hidden while the text size changed kept the old size's label layout, its axis
    // labels cut to "…" at the larger text; invalidating the chart's layout does not redo it,
    // a change of font seen on screen does: set the fonts again as the page comes on screen.
    const double scale = textScale();
    if (tab->laidOutScale != scale)
        for (QChartView *view : tab->widget->findChildren<QChartView *>()) {
            chart_style::setScale(view->chart(), scale * 1.001);
            chart_style::setScale(view->chart(), scale);
        }
    tab->laidOutScale = scale;
    if (!m_document->lastValidReport().ok())
        return;
    const bool redraw = tab->stale;
    if (redraw) {
        tab->stale = false;
        tab->page->update(chartInputs());
    }
    if (m_formulasOf != tab->page.get()) {
        showFormulasNow(); // a page just shown: its formulas at once
    } else if (redraw && !m_formulaTimer->isActive()) {
        // The first change after a pause shows at once; the ones that follow within the
        // interval wait for the timer, which shows the latest.
        if (!m_formulasShown.isValid() || m_formulasShown.elapsed() >= kFormulaIntervalMs)
            showFormulasNow();
        else
            m_formulaTimer->start(kFormulaIntervalMs - static_cast<int>(m_formulasShown.elapsed()));
    }
}

// F5, and Play on a page that follows the Timeline's sweep (ui::Playhead). A page that draws
// the schedule stays in front, with the Timeline brought up to its scenario so that both sweep
// the same step; from any other page the Timeline comes forward.
void MainWindow::togglePlay()
{
    auto *timeline = chart<TimelinePanel>();
    if (!timeline)
        return;
    Tab *current = currentTab();
    if (!current || current->page->needs() != ChartNeeds::timeline) {
        m_charts->setCurrentWidget(timeline);
    } else if (m_document->lastValidReport().ok()) {
        for (Tab &tab : m_tabs)
            if (tab.widget == timeline && tab.stale) {
                tab.stale = false;
                tab.page->update(chartInputs());
            }
    }
    timeline->togglePlay();
}

void MainWindow::showFormulasNow()
{
    m_formulaTimer->stop();
    Tab *tab = currentTab();
    if (!tab || !m_document->lastValidReport().ok())
        return;
    m_formulasOf = tab->page.get();
    m_formulas->showFormulas(*tab->page, chartInputs());
    m_formulasShown.start();
}

void MainWindow::showNote()
{
    const core::Report &current = m_document->report();
    // Each line elided to the strip's width; the tooltip has every line in full.
    const QFontMetrics metrics(m_note->font());
    const int width = std::max(200, m_noteStrip->width() - 8);
    bool elided = false;
    // `reserved`: what goes before the text on its line (an Apply link).
    auto fit = [&](const QString &text, const QString &reserved = {}) {
        const int room = std::max(100, width - metrics.horizontalAdvance(reserved));
        const QString shown = metrics.elidedText(text, Qt::ElideRight, room);
        elided = elided || shown != text;
        return shown.toHtmlEscaped();
    };
    QStringList lines;
    QStringList full;
    if (!current.ok()) {
        const QString error = io::qs(current.error->toString());
        const QString message =
            tr("Cannot evaluate — %1. The charts show the last valid scenario.").arg(error);
        full << message;
        // Where the sentence does not fit, the error alone, so that the field it names stays
        // in sight (large text in a narrow window); the tooltip has the sentence.
        const bool fits = metrics.horizontalAdvance(message) <= width;
        elided = !fits;
        lines
            << tr("<span style='color:#b00020'><b>%1</b></span>").arg(fit(fits ? message : error));
    } else {
        for (const auto &w : current.warnings) {
            QString message = io::qs(w.message);
            if (w.code == "does-not-fit") { // in the unit the window shows
                const auto &st = current.stages[std::size_t(current.firstOverflowStage)];
                message = st.headroomBytes >= 0 && st.hostOverflow
                              ? tr("stage %1 does not fit: its %2 offloaded layers' activations "
                                   "need %3 of host memory, of the %4 a device has "
                                   "(host_memory_gb)")
                                    .arg(st.index)
                                    .arg(st.offloadedLayers)
                                    .arg(units::format(double(st.offloadedBytes)),
                                         units::format(double(st.hostCapacityBytes)))
                              : tr("stage %1 does not fit: it needs %2 of %3, most of it %4")
                                        .arg(st.index)
                                        .arg(units::format(double(st.totalBytes)),
                                             units::format(double(st.capacityBytes)),
                                             io::qs(current.firstOverflowTerm)) +
                                    furthestOver(current);
            }
            full << message;
            // The link first, so that eliding the line never hides it.
            const QString key = io::qs(w.setKey);
            const QString value = io::qs(w.setValue);
            const QString label = tr("Set %1 = %2").arg(key, value);
            const QString apply =
                key.isEmpty()
                    ? QString()
                    : QStringLiteral("⚠ <a href='set:%1=%2'>%3</a> ")
                          .arg(key.toHtmlEscaped(), value.toHtmlEscaped(), label.toHtmlEscaped());
            lines << tr("<span style='color:#8a5a00'>%1%2</span>")
                         .arg(apply, key.isEmpty()
                                         ? fit(QStringLiteral("⚠ ") + message)
                                         : fit(message, QStringLiteral("⚠ ") + label + u' '));
        }
    }
    // The strip's room: past that, the first lines and how many more there are.
    if (lines.size() > kNoteLines) {
        const qsizetype more = lines.size() - (kNoteLines - 1);
        lines = lines.mid(0, kNoteLines - 1);
        lines.append(tr("<span style='color:#8a5a00'>⚠ and %n more warning(s): point "
                        "here to read them all</span>",
                        nullptr, static_cast<int>(more)));
    }
    m_note->setText(lines.join(QStringLiteral("<br>")));
    // A line cut short, or more than one: the tooltip reads them whole.
    m_note->setToolTip(full.size() > 1 || lines.size() > 1 || elided
                           ? full.join(QStringLiteral("\n"))
                           : QString());
    m_note->setVisible(!lines.isEmpty());
}

void MainWindow::showVerdict()
{
    const core::Report &r = m_document->lastValidReport();
    // The step-time model's total (what the planner ranks by); the pipeline's makespan in
    // layer-times, and why, when there is no timing (no peak FLOPS, or a size-only model).
    // Serving: the first token's wait and each later token's (docs/inference.md).
    const QString step =
        r.serving && r.serving->linkTimeExcluded
            // No published link: the times are lower bounds, the rate an upper one.
            ? tr("first token ≥ %1 ms, then ≥ %2 ms a token, ≤ %3 tokens/s per device (link time "
                 "not published)")
                  .arg(1e3 * r.serving->prefillS, 0, 'f', 1)
                  .arg(1e3 * r.serving->decodeMeanS, 0, 'f', 1)
                  .arg(r.serving->decodeTokensPerS / r.serving->devicesPerReplica, 0, 'f', 0)
            : r.serving
                  ? tr("first token %1 ms, then %2 ms a token, %3 tokens/s per device")
                        .arg(1e3 * r.serving->prefillS, 0, 'f', 1)
                        .arg(1e3 * r.serving->decodeMeanS, 0, 'f', 1)
                        .arg(r.serving->decodeTokensPerS / r.serving->devicesPerReplica, 0, 'f', 0)
              : r.stepTime         ? tr("step %1 s").arg(r.stepTime->stepTimeS, 0, 'g', 3)
              : r.timeInLayerUnits ? tr("makespan %1 layer-times, no seconds: %2")
                                         .arg(r.makespanS, 0, 'g', 3)
                                         .arg(io::qs(r.untimedReason))
                                   : tr("pipeline %1 s").arg(r.makespanS, 0, 'g', 3);
    QString verdict = m_showsLastValid ? tr("Last valid scenario: ") : QString();
    // C shows when it splits sequences; E when it spreads experts (docs/experts.md).
    const QString context = r.cp > 1 ? tr(" × C=%1").arg(r.cp) : QString();
    const QString experts = r.ep > 1 ? tr(", experts over E=%1").arg(r.ep) : QString();
    verdict += (r.devices == 1 ? tr("%1 device (T=%2%3 × K=%4 × D=%5%6). Bubble %7, %8. ")
                               : tr("%1 devices (T=%2%3 × K=%4 × D=%5%6). Bubble %7, %8. "))
                   .arg(r.devices)
                   .arg(r.tp)
                   .arg(context)
                   .arg(r.pp)
                   .arg(r.dp)
                   .arg(experts)
                   .arg(QStringLiteral("%1 %").arg(100 * r.bubbleFraction, 0, 'f', 1), step);
    if (r.fits) {
        std::int64_t headroom = r.stages.front().headroomBytes;
        for (const auto &stage : r.stages)
            headroom = std::min(headroom, stage.headroomBytes);
        verdict += tr("Fits: every stage has at least %1 free.")
                       .arg(units::format(static_cast<double>(headroom)));
    } else {
        const auto &stage = r.stages[static_cast<std::size_t>(r.firstOverflowStage)];
        if (stage.headroomBytes >= 0 && stage.hostOverflow) // offload_layers: the host is full
            verdict += tr("Does not fit: stage %1's offloaded activations need %2 of host memory, "
                          "of %3.")
                           .arg(stage.index)
                           .arg(units::format(static_cast<double>(stage.offloadedBytes)),
                                units::format(static_cast<double>(stage.hostCapacityBytes)));
        else
            verdict += tr("Does not fit: stage %1 needs %2 of %3; its largest term is %4")
                           .arg(stage.index)
                           .arg(units::format(static_cast<double>(stage.totalBytes)),
                                units::format(static_cast<double>(stage.capacityBytes)),
                                io::qs(r.firstOverflowTerm)) +
                       furthestOver(r) + u'.';
    }
    if (m_comparison) {
        const core::Report &b = m_comparison->report;
        verdict += tr("  |  %1: %2 devices, bubble %3, %4.")
                       .arg(m_comparison->name)
                       .arg(b.devices)
                       .arg(QStringLiteral("%1 %").arg(100 * b.bubbleFraction, 0, 'f', 1))
                       .arg(b.fits ? tr("fits") : tr("does not fit"));
    }
    m_verdict->setText(verdict);
    holdVerdictHeight();
}

QLabel *MainWindow::verdict() const
{
    return m_verdict;
}

void MainWindow::holdVerdictHeight()
{
    // A drag changes the numbers and with them where the sentence wraps. Were the status line
    // to take each text's own height, every step that wraps it onto one more or one less line
    // would resize the charts above it and lay each out anew (three times a step's work at
    // K = 64, m = 1024). It keeps the tallest height it has needed at this width and text
    // size instead, until either changes (eventFilter).
    const int width = m_verdict->width();
    if (width <= 0)
        return;
    const int needed = m_verdict->heightForWidth(width);
    if (needed > m_verdict->minimumHeight())
        m_verdict->setMinimumHeight(needed);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // The note strip at a new width or text size: its lines elided to it anew (showNote), or
    // a line cut while the strip was narrow stays cut once it widens.
    if (watched == m_noteStrip &&
        ((event->type() == QEvent::Resize &&
          static_cast<QResizeEvent *>(event)->oldSize().width() != m_noteStrip->width()) ||
         event->type() == QEvent::FontChange))
        showNote();
    // The status line at a new width or text size: the height its text needs there.
    if (watched == m_verdict) {
        const bool newWidth =
            event->type() == QEvent::Resize &&
            static_cast<QResizeEvent *>(event)->oldSize().width() != m_verdict->width();
        if (newWidth || event->type() == QEvent::FontChange) {
            m_verdict->setMinimumHeight(0);
            holdVerdictHeight();
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

} // namespace ui
