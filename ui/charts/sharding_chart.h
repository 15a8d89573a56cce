#pragma once

#include "core/sharding.h"

#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLabel;
class QProgressBar;
class QScrollArea;
class QPushButton;
class QStackedWidget;
class QTabBar;
class QValueAxis;

namespace ui {

class ExpertChart;

// The four ways to split a feed-forward layer's two matrices across T
// devices: the bytes each device sends, by collective, and below them the
// counts, times and the demonstrator's numerical error. Qt Charts stays
// inside this class. A bar above switches to the expert-parallel demonstrator (ExpertChart),
// which has its own controls.
class ShardingChart : public QWidget
{
    Q_OBJECT

public:
    explicit ShardingChart(QWidget *parent = nullptr);

    // Shows an analysis (core::analyzeSharding) for a model's layer.
    void setReport(const core::ShardReport &report, const QString &modelName);

    // What is drawn, for tests: MB per device per strategy for a collective
    // kind ("all-reduce", "all-gather", "reduce-scatter").
    QList<qreal> values(const QString &kind) const;
    QStringList categories() const;
    QString summary() const;

    // The full-size check's controls (ShardingVerifier drives them).
    QPushButton *verifyButton() const { return m_verifyButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QProgressBar *progressBar() const { return m_progress; }
    // Shows the progress bar and Cancel instead of the verify button, or back.
    void setVerifying(bool running);
    void setVerifyProgress(double fraction, const QString &detail);
    // A line under the table about the last full-size check; setReport clears it.
    void setNote(const QString &note);

    // Tensor parallel (0, the feed-forward splits) or expert parallel (1).
    QTabBar *modeBar() const { return m_modes; }
    ExpertChart *experts() const { return m_experts; }

protected:
    // Keeps the chart readable: on a short page (a projector at the largest text) the table
    // below scrolls instead of squeezing the bars to "…".
    void resizeEvent(QResizeEvent *event) override;

private:
    void showSummary();
    // The table's room at `width`: all of it when the chart keeps its own, else what is left
    // and a scroll bar.
    void fitSummary(int width);
    // Each strategy's name under its bars, abbreviated when the bars are too narrow for it.
    void fitCategories();

    QTabBar *m_modes;
    QStackedWidget *m_pages;
    ExpertChart *m_experts;
    QChart *m_chart;
    QChartView *m_view;
    QList<QBarSet *> m_sets;
    QBarCategoryAxis *m_strategyAxis;
    QValueAxis *m_bytesAxis;
    QLabel *m_summary;
    QScrollArea *m_summaryScroll = nullptr;
    QPushButton *m_verifyButton;
    QProgressBar *m_progress;
    QPushButton *m_cancelButton;
    QStringList m_categories; // the strategies' full names, in bar order
    QString m_table;
    QString m_note;
};

} // namespace ui
