#include "ui/formula_panel.h"

#include "ui/charts/chart_page.h"
#include "ui/units.h"

namespace ui {

FormulaPanel::FormulaPanel(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setObjectName(QStringLiteral("formulas"));
}

void FormulaPanel::showFormulas(const ChartPage &page, const ChartInputs &inputs)
{
    QString html = formula::html(page, inputs);
    if (html == m_html)
        return;
    m_html = std::move(html);
    setHtml(m_html);
}

namespace formula {

QString html(const ChartPage &page, const ChartInputs &inputs)
{
    if (!inputs.report.ok() || inputs.report.stages.empty())
        return {};
    return page.formulas(inputs);
}

QString block(const QString &title, const QString &expression, const QString &source)
{
    return QStringLiteral("<p><b>%1</b><br><span style='font-family:monospace'>%2</span><br>"
                          "<small><i>%3</i></small></p>")
        .arg(title, expression, source);
}

QString bytes(std::int64_t bytes)
{
    return units::format(static_cast<double>(bytes));
}

QString percent(double fraction)
{
    return QStringLiteral("%1 %").arg(100 * fraction, 0, 'f', 1);
}

} // namespace formula

} // namespace ui
