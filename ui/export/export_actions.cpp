#include "ui/export/export_actions.h"

#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>

namespace ui {

namespace ce = chart_export;

ExportOptionsDialog::ExportOptionsDialog(const ce::Options &options, ce::Format format,
                                         bool askFormat, QWidget *parent)
    : QDialog(parent), m_width(new QSpinBox), m_height(new QSpinBox), m_scale(new QComboBox),
      m_caption(new QCheckBox(tr("&Caption with the scenario, date and version"))),
      m_format(new QComboBox(this))
{
    setWindowTitle(askFormat ? tr("Export all charts") : tr("Export chart"));
    m_width->setObjectName(QStringLiteral("width"));
    m_height->setObjectName(QStringLiteral("height"));
    m_scale->setObjectName(QStringLiteral("scale"));
    m_caption->setObjectName(QStringLiteral("caption"));
    m_format->setObjectName(QStringLiteral("format"));
    m_width->setRange(ce::kMinSize.width(), 10000);
    m_height->setRange(ce::kMinSize.height(), 10000);
    m_width->setValue(options.size.width());
    m_height->setValue(options.size.height());
    m_width->setSuffix(tr(" px"));
    m_height->setSuffix(tr(" px"));
    for (int scale = ce::kMinScale; scale <= 3; ++scale)
        m_scale->addItem(tr("%1×").arg(scale), scale);
    m_scale->setCurrentIndex(std::max(0, m_scale->findData(options.scale)));
    m_scale->setToolTip(tr("PNG pixels per logical pixel; SVG is drawn at 1×"));
    m_caption->setChecked(options.caption);
    m_format->addItem(tr("PNG"), QVariant::fromValue(static_cast<int>(ce::Format::png)));
    m_format->addItem(tr("SVG"), QVariant::fromValue(static_cast<int>(ce::Format::svg)));
    m_format->setCurrentIndex(format == ce::Format::svg ? 1 : 0);

    auto *size = new QHBoxLayout;
    size->addWidget(m_width);
    size->addWidget(new QLabel(tr("×")));
    size->addWidget(m_height);
    auto *form = new QFormLayout;
    // A row of a layout gets a plain label: give it the width box as buddy, or "&" shows.
    auto *sizeLabel = new QLabel(tr("&Size:"));
    sizeLabel->setBuddy(m_width);
    form->addRow(sizeLabel, size);
    form->addRow(tr("Sc&ale:"), m_scale);
    if (askFormat)
        form->addRow(tr("&Format:"), m_format);
    else
        m_format->hide(); // a hidden child: the dialog still owns it
    form->addRow(m_caption);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

ce::Options ExportOptionsDialog::options() const
{
    ce::Options options;
    options.size = QSize(m_width->value(), m_height->value());
    options.scale = m_scale->currentData().toInt();
    options.caption = m_caption->isChecked();
    return options;
}

ce::Format ExportOptionsDialog::format() const
{
    return static_cast<ce::Format>(m_format->currentData().toInt());
}

ExportActions::ExportActions(ScenarioDocument *document, MainWindow *window)
    : QObject(window), m_document(document), m_window(window),
      m_exportChart(new QAction(tr("&Export Chart…"), this)),
      m_exportAll(new QAction(tr("Export A&ll Charts…"), this)),
      m_exportData(new QAction(tr("Export Chart &Data…"), this))
{
    m_exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportChart->setToolTip(tr("Save the chart on screen as a PNG or SVG image."));
    m_exportAll->setToolTip(tr("Save every chart as an image into a folder."));
    connect(m_exportChart, &QAction::triggered, this, &ExportActions::exportCurrent);
    m_exportData->setToolTip(tr("Save the numbers of the chart on screen as a CSV or JSON table."));
    connect(m_exportAll, &QAction::triggered, this, &ExportActions::exportAll);
    connect(m_exportData, &QAction::triggered, this, &ExportActions::exportCurrentData);
}

void ExportActions::addTo(QMenu *menu)
{
    menu->addAction(m_exportChart);
    menu->addAction(m_exportAll);
    menu->addAction(m_exportData);
}

const ChartPage *ExportActions::currentPage() const
{
    return m_window->currentPage();
}

ce::Inputs ExportActions::inputs(ChartNeeds needs) const
{
    m_document->flush();
    if (needs == ChartNeeds::timeline)
        m_document->ensureTimeline();
    return {m_document->lastValidScenario(), m_document->presets(), m_document->lastValidReport()};
}

std::optional<QString> ExportActions::write(const ChartPage &page, const ce::Options &options,
                                            ce::Format format, const QString &path) const
{
    return ce::writeChart(page, inputs(page.needs()), options, format, path);
}

bool ExportActions::askOptions(bool askFormat)
{
    ExportOptionsDialog dialog(m_options, m_format, askFormat, m_window);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    m_options = dialog.options();
    if (askFormat)
        m_format = dialog.format();
    return true;
}

void ExportActions::exportCurrent()
{
    const ChartPage *page = currentPage();
    if (!page || refuseUnavailable(*page) || !askOptions(false))
        return;
    const QString png = tr("PNG image (*.png)");
    const QString svg = tr("SVG image (*.svg)");
    QString filter = m_format == ce::Format::svg ? svg : png;
    const QString suggested =
        ce::chartPath(m_lastDir.isEmpty() ? QDir::homePath() : m_lastDir, *page, m_format);
    QString path = QFileDialog::getSaveFileName(m_window, tr("Export chart"), suggested,
                                                png + QStringLiteral(";;") + svg, &filter);
    if (path.isEmpty())
        return;
    std::optional<ce::Format> format = ce::formatOf(path);
    if (!format) {
        format = filter == svg ? ce::Format::svg : ce::Format::png;
        path += QLatin1Char('.') + ce::suffix(*format);
    }
    m_format = *format;
    m_lastDir = QFileInfo(path).absolutePath();
    if (auto reason = write(*page, m_options, *format, path))
        report({}, *reason);
    else
        report({path}, std::nullopt);
}

void ExportActions::exportAll()
{
    if (!askOptions(true))
        return;
    const QString dir = QFileDialog::getExistingDirectory(
        m_window, tr("Export all charts into"), m_lastDir.isEmpty() ? QDir::homePath() : m_lastDir);
    if (dir.isEmpty())
        return;
    m_lastDir = dir;
    ChartPages pages = createChartPages();
    const ce::Inputs all = inputs(chartNeeds(pages));
    // Charts with nothing to draw for this scenario are left out, and the status says which.
    QStringList skipped;
    std::erase_if(pages, [&](const std::unique_ptr<ChartPage> &page) {
        const auto why = page->unavailable(all);
        if (why)
            skipped << tr("%1 (%2)").arg(QString(page->title()).remove(QLatin1Char('&')), *why);
        return why.has_value();
    });
    QStringList paths;
    for (const auto &page : pages)
        paths << ce::chartPath(dir, *page, m_format);
    QStringList written;
    const auto reason = ce::writeCharts(pages, all, m_options, m_format, paths, &written);
    report(written, reason, skipped);
}

void ExportActions::exportCurrentData()
{
    namespace de = data_export;
    const ChartPage *page = currentPage();
    if (!page || refuseUnavailable(*page))
        return;
    const QString csv = tr("CSV table (*.csv)");
    const QString json = tr("JSON (*.json)");
    QString filter = m_dataFormat == de::Format::json ? json : csv;
    const QString suggested =
        de::dataPath(m_lastDir.isEmpty() ? QDir::homePath() : m_lastDir, *page, m_dataFormat);
    QString path = QFileDialog::getSaveFileName(m_window, tr("Export chart data"), suggested,
                                                csv + QStringLiteral(";;") + json, &filter);
    if (path.isEmpty())
        return;
    std::optional<de::Format> format = de::formatOf(path);
    if (!format) {
        format = filter == json ? de::Format::json : de::Format::csv;
        path += QLatin1Char('.') + de::suffix(*format);
    }
    m_dataFormat = *format;
    m_lastDir = QFileInfo(path).absolutePath();
    if (auto reason = de::writeData({page}, inputs(page->needs()), *format, {path}))
        report({}, *reason);
    else
        report({path}, std::nullopt);
}

bool ExportActions::refuseUnavailable(const ChartPage &page)
{
    const auto why = page.unavailable(inputs(page.needs()));
    if (why)
        QMessageBox::information(m_window, tr("Nothing to export"),
                                 tr("The %1 chart has nothing to draw for this scenario.\n\n%2")
                                     .arg(QString(page.title()).remove(QLatin1Char('&')), *why));
    return why.has_value();
}

void ExportActions::report(const QStringList &written, const std::optional<QString> &error,
                           const QStringList &skipped)
{
    QStringList names;
    for (const QString &path : written)
        names << QDir::toNativeSeparators(path);
    if (error) {
        QString text =
            names.isEmpty()
                ? tr("Nothing was exported; any earlier files are intact.")
                : tr("Only these were exported: %1.").arg(names.join(QStringLiteral(", ")));
        QMessageBox::warning(m_window, tr("Export failed"), text + QStringLiteral("\n\n") + *error);
    } else if (!names.isEmpty()) {
        QString text = tr("Exported %1.").arg(names.join(QStringLiteral(", ")));
        if (!skipped.isEmpty())
            text +=
                QLatin1Char(' ') +
                tr("Left out, with nothing to draw: %1.").arg(skipped.join(QStringLiteral("; ")));
        m_window->statusBar()->showMessage(text, skipped.isEmpty() ? 5000 : 15000);
    }
}

} // namespace ui
