#include "ui/main_window.h"

#include "core/fields.h"
#include "core/precision.h"
#include "io/text.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/scenario_document.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QVBoxLayout>

namespace ui {

MainWindow::MainWindow(ScenarioDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_summary(new QLabel), m_problem(new QLabel),
      m_verdict(new QLabel), m_memoryChart(new StageMemoryChart), m_bar(new QWidget)
{
    setWindowTitle(tr("Parascope"));
    resize(1100, 720);

    auto *barLayout = new QHBoxLayout(m_bar);
    QComboBox *model =
        addChoice(tr("&Model"), QStringLiteral("model"), tr("The model to split across devices."));
    for (const auto &m : document->presets().models)
        model->addItem(io::qs(m.name), io::qs(m.id));
    QComboBox *device = addChoice(tr("&Device"), QStringLiteral("device"),
                                  tr("The accelerator every pipeline stage runs on."));
    for (const auto &d : document->presets().devices)
        device->addItem(io::qs(d.name), io::qs(d.id));
    QComboBox *precision = addChoice(tr("&Precision"), QStringLiteral("precision"),
                                     tr("Number format of the weights; int and q formats are "
                                        "for inference only."));
    for (const auto &p : core::enumNames(core::Precision{}))
        precision->addItem(io::qs(p.name), io::qs(p.name));
    QComboBox *mode = addChoice(tr("M&ode"), QStringLiteral("mode"),
                                tr("Training keeps gradients and optimizer states; inference "
                                   "keeps only the weights (and later a KV cache)."));
    for (const auto &m : core::enumNames(core::Mode{}))
        mode->addItem(io::qs(m.name), io::qs(m.name));
    barLayout->addStretch();

    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
    m_problem->setWordWrap(true);

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->addWidget(m_bar);
    layout->addWidget(m_summary);
    layout->addWidget(m_problem);
    layout->addWidget(m_memoryChart, 1);
    setCentralWidget(central);
    statusBar()->addWidget(m_verdict, 1);

    connect(document, &ScenarioDocument::changed, this, &MainWindow::refresh);
    refresh();
}

QComboBox *MainWindow::addChoice(const QString &label, const QString &key, const QString &tooltip)
{
    auto *combo = new QComboBox;
    combo->setObjectName(key);
    combo->setToolTip(tooltip);
    auto *caption = new QLabel(label);
    caption->setBuddy(combo);
    m_bar->layout()->addWidget(caption);
    m_bar->layout()->addWidget(combo);
    connect(combo, &QComboBox::activated, this, [this, combo, key](int index) {
        m_document->setField(key, combo->itemData(index).toString());
    });
    m_choices.append(combo);
    return combo;
}

void MainWindow::refresh()
{
    const core::Scenario &s = m_document->scenario();
    for (QComboBox *combo : std::as_const(m_choices)) {
        const QSignalBlocker block(combo);
        const int index =
            combo->findData(io::qs(core::fieldText(s, combo->objectName().toStdString())));
        combo->setCurrentIndex(index);
    }

    const core::Report &current = m_document->report();
    m_problem->setVisible(!current.ok());
    if (!current.ok())
        m_problem->setText(tr("Cannot evaluate: %1. The chart shows the last valid scenario.")
                               .arg(io::qs(current.error->toString())));

    const core::Report &r = m_document->lastValidReport();
    if (!r.ok() || r.stages.empty())
        return;
    const QLocale locale;
    m_summary->setText(tr("<b>%1</b> (%2 parameters) on <b>%3</b>, %4 %5 — weights %6 in all; "
                          "T=%7 × K=%8 × D=%9")
                           .arg(io::qs(r.modelName), locale.toString(qint64(r.params)),
                                io::qs(r.deviceName), io::qs(core::toString(r.precision)),
                                io::qs(core::toString(r.mode)),
                                io::formatBytes(static_cast<double>(r.weightsBytes)))
                           .arg(r.tp)
                           .arg(r.pp)
                           .arg(r.dp));
    m_memoryChart->setReport(r);

    QString verdict = tr("%1 devices. ").arg(r.devices);
    if (r.fits) {
        std::int64_t headroom = r.stages.front().headroomBytes;
        for (const auto &stage : r.stages)
            headroom = std::min(headroom, stage.headroomBytes);
        verdict += tr("Fits: every stage has at least %1 free.")
                       .arg(io::formatBytes(static_cast<double>(headroom)));
    } else {
        const auto &stage = r.stages[static_cast<std::size_t>(r.firstOverflowStage)];
        verdict += tr("Does not fit: stage %1 needs %2 of %3.")
                       .arg(stage.index)
                       .arg(io::formatBytes(static_cast<double>(stage.totalBytes)),
                            io::formatBytes(static_cast<double>(stage.capacityBytes)));
    }
    m_verdict->setText(verdict);
}

} // namespace ui
