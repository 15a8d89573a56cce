#pragma once

#include "ui/export/chart_export.h"
#include "ui/export/data_export.h"

#include <QDialog>
#include <QObject>

class QAction;
class QCheckBox;
class QComboBox;
class QMenu;
class QSpinBox;

namespace ui {

class MainWindow;
class ScenarioDocument;

// The options of an export: size, scale, caption, and for a folder of charts
// the image format (a single file takes it from its extension).
class ExportOptionsDialog : public QDialog
{
    Q_OBJECT

public:
    ExportOptionsDialog(const chart_export::Options &options, chart_export::Format format,
                        bool askFormat, QWidget *parent = nullptr);

    chart_export::Options options() const;
    chart_export::Format format() const;

private:
    QSpinBox *m_width;
    QSpinBox *m_height;
    QComboBox *m_scale;
    QCheckBox *m_caption;
    QComboBox *m_format;
};

// File → Export chart… (the current tab), Export all charts… (a folder) and Export chart
// data… (the current tab's numbers as CSV or JSON).
// Both render through chart_export, as `parascope export` does, from the
// document's last valid scenario and report. A folder of charts is written all
// or none, as `parascope export --chart all` writes it.
class ExportActions : public QObject
{
    Q_OBJECT

public:
    ExportActions(ScenarioDocument *document, MainWindow *window);

    void addTo(QMenu *menu);

    QAction *exportChartAction() const { return m_exportChart; }
    QAction *exportAllAction() const { return m_exportAll; }
    QAction *exportDataAction() const { return m_exportData; }

    // The chart on the window's current tab.
    const ChartPage *currentPage() const;

    // Writes one chart without asking anything; the reason on failure.
    std::optional<QString> write(const ChartPage &page, const chart_export::Options &options,
                                 chart_export::Format format, const QString &path) const;

    void exportCurrent();
    void exportAll();
    // The current tab's numbers as CSV or JSON (data_export), chosen by the file's extension.
    void exportCurrentData();

private:
    // The document's last valid scenario and report, with pending edits evaluated and what
    // the charts need.
    chart_export::Inputs inputs(ChartNeeds needs) const;
    bool askOptions(bool askFormat);
    // The status bar names the files written and the charts left out (`skipped`: each
    // chart's title and why); a failure is a message box with its reason.
    void report(const QStringList &written, const std::optional<QString> &error,
                const QStringList &skipped = {});
    // Says, in a message box, that `page` has nothing to draw for this scenario; true then.
    bool refuseUnavailable(const ChartPage &page);

    ScenarioDocument *m_document;
    MainWindow *m_window;
    QAction *m_exportChart;
    QAction *m_exportAll;
    QAction *m_exportData;
    chart_export::Options m_options; // remembered for the session
    chart_export::Format m_format = chart_export::Format::png;
    data_export::Format m_dataFormat = data_export::Format::csv;
    QString m_lastDir;
};

} // namespace ui
