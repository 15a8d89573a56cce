#include "ui/export/chart_export.h"

#include "core/evaluate.h"
#include "core/framework.h"
#include "io/save_file.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFontMetrics>
#include <QPainter>
#include <QRegularExpression>
#include <QStyle>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <cmath>

namespace ui::chart_export {

namespace {

// Slides and papers are light: the exported widget gets a light palette with a
// white background whatever the desktop's colour scheme.
QPalette lightPalette()
{
    QPalette palette = QApplication::style()->standardPalette();
    palette.setColor(QPalette::Window, Qt::white);
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::WindowText, Qt::black);
    palette.setColor(QPalette::Text, Qt::black);
    return palette;
}

QString upper(std::string_view id)
{
    return io::qs(id).toUpper();
}

// The date an image's caption prints: the one asked for, else today.
QDate captionDate(const Options &options)
{
    return options.date.isNull() ? QDate::currentDate() : options.date;
}

// The caption strip of an image `size` big: its font, the padding around its lines, the
// lines as drawn and the strip's height.
struct CaptionLayout
{
    QFont font;
    int padding = 0;
    QStringList lines;
    int height = 0;
};
CaptionLayout captionLayout(const QString &caption, QSize size)
{
    CaptionLayout out;
    // A footnote: smaller than the chart's text, so that the scenario, version and date fit
    // one line of a 16:9 export.
    const double scale = textScale(size);
    out.font = QApplication::font();
    out.font.setPointSizeF(out.font.pointSizeF() * std::max(1.0, 0.7 * scale));
    out.padding = int(std::lround(6 * scale));
    const QFontMetrics metrics(out.font);
    out.lines = captionLines(caption, metrics, size.width() - 4 * out.padding);
    out.height = static_cast<int>(out.lines.size()) * metrics.height() + 2 * out.padding;
    return out;
}

// A chart laid out at its size, off screen, with its caption.
class Prepared
{
public:
    Prepared(const ChartPage &page, const Inputs &inputs, const Options &options)
        : m_size(options.size), m_container(std::make_unique<QWidget>())
    {
        m_container->setAttribute(Qt::WA_DontShowOnScreen);
        m_container->setPalette(lightPalette());
        m_container->setAutoFillBackground(true);
        // Painted charts (timeline, step time) and the caption follow the container's font,
        // Qt Charts' items are scaled below, as presentation mode scales them.
        const double scale = textScale(m_size);
        QFont font = QApplication::font();
        font.setPointSizeF(font.pointSizeF() * scale);
        m_container->setFont(font);
        if (options.caption) {
            m_caption = captionText(inputs, captionDate(options));
            m_captionLayout = captionLayout(m_caption, m_size);
        }
        // Built inside the light container, so that colours a chart reads from its
        // palette while it is constructed are light-scheme colours too.
        // A margin, so that labels drawn at a chart's edge do not touch the image's.
        auto *layout = new QVBoxLayout(m_container.get());
        const int margin = int(std::lround(kMargin * scale));
        layout->setContentsMargins(margin, margin, margin, margin);
        QWidget *chart = page.createImage(inputs, m_container.get()).release();
        // Exactly the size asked for, caption apart: a chart's own minimum (Memory over the
        // step's 360 × 220) would otherwise run it under the caption and past the right edge
        // of the smallest images export takes.
        chart->setMinimumSize(1, 1);
        layout->setSizeConstraint(QLayout::SetNoConstraint);
        layout->addWidget(chart);
        chart_style::setExportScale(chart, scale);
        m_container->resize(m_size.width(), m_size.height() - m_captionLayout.height);
        m_container->show();
        // Qt Charts lays out its scene in posted events; no animation runs.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::sendPostedEvents();
    }

    int logicalDpi() const { return m_container->logicalDpiX(); }
    const QString &caption() const { return m_caption; }

    void paint(QPainter &painter) const
    {
        painter.fillRect(QRect(QPoint(), m_size), Qt::white);
        m_container->render(&painter, QPoint(), QRegion(),
                            QWidget::DrawWindowBackground | QWidget::DrawChildren);
        if (!m_caption.isEmpty())
            paintCaption(painter);
    }

private:
    static constexpr int kMargin = 12;

    // A hairline above and the caption's lines of grey text (captionLines).
    void paintCaption(QPainter &painter) const
    {
        const CaptionLayout &c = m_captionLayout;
        const QRect strip(0, m_size.height() - c.height, m_size.width(), c.height);
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.fillRect(QRect(strip.topLeft(), QSize(strip.width(), 1)), QColor(0xCC, 0xCC, 0xCC));
        painter.setFont(c.font);
        painter.setPen(QColor(0x44, 0x44, 0x44));
        const int line = QFontMetrics(c.font).height();
        QRect text(strip.left() + 2 * c.padding, strip.top() + c.padding,
                   strip.width() - 4 * c.padding, line);
        for (const QString &shown : c.lines) {
            painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, shown);
            text.translate(0, line);
        }
        painter.restore();
    }

    QSize m_size;
    std::unique_ptr<QWidget> m_container;
    QString m_caption;
    CaptionLayout m_captionLayout; // none without a caption
};

} // namespace

double textScale(QSize size)
{
    return std::max(1.0, std::min(double(size.width()) / kReferenceSize.width(),
                                  double(size.height()) / kReferenceSize.height()));
}

QString chartIds()
{
    return chartPageIds().join(QStringLiteral(", "));
}

QString suffix(Format format)
{
    return format == Format::svg ? QStringLiteral("svg") : QStringLiteral("png");
}

std::optional<Format> formatFromSuffix(const QString &suffix)
{
    const QString s = suffix.toLower();
    if (s == QLatin1String("png"))
        return Format::png;
    if (s == QLatin1String("svg"))
        return Format::svg;
    return std::nullopt;
}

std::optional<Format> formatOf(const QString &path)
{
    const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
    if (dot < 0 || path.indexOf(QLatin1Char('/'), dot) >= 0)
        return std::nullopt;
    return formatFromSuffix(path.mid(dot + 1));
}

core::Report evaluate(const core::Scenario &scenario, const core::Presets &presets,
                      ChartNeeds needs)
{
    return core::evaluate(scenario, presets, {.timeline = needs == ChartNeeds::timeline});
}

int captionHeight(const Inputs &inputs, const Options &options)
{
    if (!options.caption)
        return 0;
    return captionLayout(captionText(inputs, captionDate(options)), options.size).height;
}

QStringList captionLines(const QString &caption, const QFontMetrics &metrics, int width)
{
    if (metrics.horizontalAdvance(caption) <= width)
        return {caption};
    const auto fits = [&](const QString &text) { return metrics.horizontalAdvance(text) <= width; };
    // Whole items, never a word cut in two: the scenario's items as far as they go on the
    // first line (the model and device at least), the rest on the second with the program
    // and date, which the items left over give way to from the last.
    const QString separator = QStringLiteral(" · ");
    const QString dash = QStringLiteral(" — ");
    const QString program = caption.section(dash, 1);
    QStringList items = caption.section(dash, 0, 0).split(separator);
    qsizetype first = 1;
    while (first < items.size() && fits(items.mid(0, first + 1).join(separator)))
        ++first;
    QStringList rest = items.mid(first);
    const auto second = [&] {
        const QString left = rest.join(separator);
        return program.isEmpty() ? left : left.isEmpty() ? program : left + dash + program;
    };
    while (!rest.isEmpty() && !fits(second()))
        rest.removeLast();
    QStringList lines{
        metrics.elidedText(items.mid(0, first).join(separator), Qt::ElideRight, width)};
    if (!second().isEmpty())
        lines << metrics.elidedText(second(), Qt::ElideRight, width);
    return lines;
}

QString captionText(const Inputs &inputs, const QDate &date)
{
    const core::Report &r = inputs.report;
    const core::Scenario &s = inputs.scenario;
    QString schedule = io::qs(core::toString(s.schedule));
    if (s.schedule == core::Schedule::interleaved)
        schedule += QStringLiteral(" v=%1").arg(s.virtualStages);
    else if (s.schedule == core::Schedule::dualPipeV)
        schedule += QObject::tr(" (2 chunks a stage)"); // its v, always two (core::chunksPerStage)
    else if (s.schedule == core::Schedule::dualPipe)    // a stage of each direction a device
        schedule += QObject::tr(" (2 chunks a stage, one each way)");
    const QString mode =
        s.mode == core::Mode::training ? QObject::tr("training") : QObject::tr("inference");
    // The framework's profile, when the scenario follows one (docs/frameworks.md).
    const QString profile = s.framework == core::Framework::custom
                                ? QString()
                                : QStringLiteral(" · ") + io::qs(core::frameworkSummary(s));
    // Training: the schedule's keys. Inference runs forwards only, and ZeRO and the schedule
    // do not apply: the batch and the lengths of the requests instead.
    const QString work =
        s.mode == core::Mode::training
            ? QObject::tr("m=%1 · %2 · ZeRO %3").arg(s.microbatches).arg(schedule).arg(s.zero)
            : QObject::tr("batch %1 (m=%2 b=%3) · %4 + %5 tokens")
                  .arg(std::int64_t{s.microbatches} * s.microbatchSize)
                  .arg(s.microbatches)
                  .arg(s.microbatchSize)
                  .arg(s.seqLen)
                  .arg(s.outputLen);
    return QObject::tr("%1 on %2 · %3 %4 · T=%5 K=%6 D=%7 (%8 devices) · %9%10 — Parascope %11, "
                       "%12")
        .arg(io::qs(r.modelName), io::qs(r.deviceName), upper(core::toString(s.precision)), mode)
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.dp)
        .arg(r.devices)
        .arg(work, profile, QStringLiteral(PARASCOPE_VERSION), date.toString(Qt::ISODate));
}

QImage renderImage(const ChartPage &page, const Inputs &inputs, const Options &options)
{
    const Prepared prepared(page, inputs, options);
    QImage image(options.size * options.scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(options.scale);
    image.fill(Qt::white);
    QPainter painter(&image);
    prepared.paint(painter);
    painter.end();
    return image;
}

// QSvgGenerator writes the widget's family alone ("Sans Serif", Qt's alias, no CSS family):
// a viewer without it falls back to a serif face. Quote it and end the list with
// sans-serif, as CSS wants (CSS Fonts Level 4, §2.1).
QByteArray withGenericFonts(const QByteArray &svg)
{
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    QString text = QString::fromUtf8(svg);
    QString out;
    qsizetype last = 0;
    for (auto it = family.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        QString name = match.captured(1).trimmed();
        out += QStringView(text).mid(last, match.capturedStart() - last);
        if (!name.endsWith(QLatin1String("sans-serif")) && !name.endsWith(QLatin1String("serif")) &&
            !name.endsWith(QLatin1String("monospace")))
            name = QStringLiteral("'%1', sans-serif").arg(name.remove(QLatin1Char('\'')));
        out += QStringLiteral("font-family=\"%1\"").arg(name);
        last = match.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out.toUtf8();
}

QByteArray renderSvg(const ChartPage &page, const Inputs &inputs, const Options &options)
{
    const Prepared prepared(page, inputs, options);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(options.size);
    generator.setViewBox(QRect(QPoint(), options.size));
    // QSvgGenerator assumes 72 dpi; the widget's fonts were sized for its own.
    generator.setResolution(prepared.logicalDpi());
    generator.setTitle(page.id());
    generator.setDescription(prepared.caption());
    QPainter painter(&generator);
    prepared.paint(painter);
    painter.end();
    return withGenericFonts(buffer.data());
}

QByteArray encodeChart(const ChartPage &page, const Inputs &inputs, const Options &options,
                       Format format)
{
    if (format == Format::svg)
        return renderSvg(page, inputs, options);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!renderImage(page, inputs, options).save(&buffer, "PNG"))
        return {};
    return png;
}

namespace {

std::optional<QString> writePages(const QList<const ChartPage *> &pages, const Inputs &inputs,
                                  const Options &options, Format format, const QStringList &paths,
                                  QStringList *written)
{
    Q_ASSERT(pages.size() == paths.size());
    if (written)
        written->clear();
    io::SaveFiles files;
    for (qsizetype i = 0; i < pages.size(); ++i) {
        // One image in memory at a time: at 16384 pixels a side it takes 1 GiB.
        const QByteArray bytes = encodeChart(*pages[i], inputs, options, format);
        if (bytes.isEmpty())
            return QObject::tr("cannot write '%1': the image could not be encoded as %2")
                .arg(QDir::toNativeSeparators(paths[i]), suffix(format).toUpper());
        if (auto reason = files.add(paths[i], bytes))
            return reason;
    }
    auto reason = files.commit();
    if (written)
        *written = files.committed();
    return reason;
}

} // namespace

std::optional<QString> writeChart(const ChartPage &page, const Inputs &inputs,
                                  const Options &options, Format format, const QString &path)
{
    return writePages({&page}, inputs, options, format, {path}, nullptr);
}

QString chartPath(const QString &folder, const ChartPage &page, Format format)
{
    return QDir(folder).filePath(page.id() + QLatin1Char('.') + suffix(format));
}

std::optional<QString> writeCharts(const ChartPages &pages, const Inputs &inputs,
                                   const Options &options, Format format, const QStringList &paths,
                                   QStringList *written)
{
    QList<const ChartPage *> list;
    for (const auto &page : pages)
        list << page.get();
    return writePages(list, inputs, options, format, paths, written);
}

} // namespace ui::chart_export
