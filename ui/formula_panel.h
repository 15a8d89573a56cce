#pragma once

#include <QTextBrowser>
#include <cstdint>

namespace ui {

class ChartPage;
struct ChartInputs;

// The formulas behind the chart on screen, written out with the current
// numbers in them, each with its source. Each page writes its own
// (ChartPage::formulas); the panel shows them.
class FormulaPanel : public QTextBrowser
{
    Q_OBJECT

public:
    explicit FormulaPanel(QWidget *parent = nullptr);

    void showFormulas(const ChartPage &page, const ChartInputs &inputs);

private:
    QString m_html; // what it shows: laying out the same text again costs milliseconds
};

// What the pages write their formulas with.
namespace formula {

// A page's formulas, or nothing when the report is invalid (also Help → Formulas & sources).
QString html(const ChartPage &page, const ChartInputs &inputs);

// One formula: a title, the expression with numbers, and where it comes from.
QString block(const QString &title, const QString &expression, const QString &source);
// Bytes in the unit the window shows (GB or GiB).
QString bytes(std::int64_t bytes);
// "15.8 %".
QString percent(double fraction);

} // namespace formula

} // namespace ui
