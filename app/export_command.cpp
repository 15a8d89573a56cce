#include "app/export_command.h"

#include "app/cli.h"
#include "app/command_line.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/shared_options.h"
#include "io/text.h"
#include "ui/export/chart_export.h"
#include "ui/export/data_export.h"
#include "ui/units.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>

namespace cli {

namespace {

namespace ce = ui::chart_export;
namespace de = ui::data_export;

// Large enough for a poster at 4×; larger images exhaust memory before they help.
constexpr int kMaxPixels = 16384;

std::optional<QSize> parseSize(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,6})[xX×](\\d{1,6})$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    return QSize(match.captured(1).toInt(), match.captured(2).toInt());
}

// The offscreen platform warns about size hints each time a window is shown
// (harmless, docs/DESIGN.md §2); export shows its charts to lay them out, and only
// its own messages should reach the user's terminal.
QtMessageHandler g_previousHandler = nullptr;

void dropSizeHintNotice(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (message == QLatin1String("This plugin does not support propagateSizeHints()"))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

} // namespace

int runExport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Render charts to PNG or SVG files, as the window's File → Export does, without a "
        "display. Each image has a caption with the scenario, the date and the version. A .csv "
        "or .json file gets the chart's numbers instead, at full precision."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const ce::Options defaults;
    auto option = [&parser](const char *name, const QString &help, const char *value = nullptr,
                            const QString &fallback = {}) {
        QCommandLineOption o(QString::fromLatin1(name), help,
                             value ? QString::fromLatin1(value) : QString(), fallback);
        parser.addOption(o);
        return o;
    };
    const QCommandLineOption set = setOption();
    parser.addOption(set);
    const auto chart =
        option("chart", QStringLiteral("The chart: %1, or all.").arg(ce::chartIds()), "NAME|all");
    const auto outPath = option("out",
                                QStringLiteral("The file to write: an image (.png or .svg) or "
                                               "the chart's data (.csv or .json); with --chart "
                                               "all, a folder (created if missing)."),
                                "PATH");
    const auto image =
        option("image", QStringLiteral("Image format for --chart all: png or svg (default png)."),
               "png|svg");
    const auto dataOption =
        option("data",
               QStringLiteral("Write the charts' numbers instead of images: csv or json (a single "
                              "file takes it from its extension)."),
               "csv|json");
    const auto size =
        option("size", QStringLiteral("Size in logical pixels, the caption included."), "WxH",
               QStringLiteral("%1x%2").arg(defaults.size.width()).arg(defaults.size.height()));
    const auto scale = option("scale",
                              QStringLiteral("PNG pixels per logical pixel, %1 to %2.")
                                  .arg(ce::kMinScale)
                                  .arg(ce::kMaxScale),
                              "S", QString::number(defaults.scale));
    const auto sizeUnits = option("units",
                                  QStringLiteral("Sizes in decimal GB (10^9 bytes, the default, as "
                                                 "the window's) or GiB (2^30 bytes)."),
                                  "gb|gib", QStringLiteral("gb"));
    const auto noCaption =
        option("no-caption", QStringLiteral("Leave out the caption strip below the chart."));
    const auto date = option("date",
                             QStringLiteral("The date printed in the caption (default today), to "
                                            "compare images made on different days."),
                             "YYYY-MM-DD");
    const QCommandLineOption presetsFile = io::presetsOption();
    parser.addOption(presetsFile);
    const StandardOptions standard;
    standard.addTo(parser);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file (optional)."),
                                 QStringLiteral("[SCENARIO]"));

    if (int status = parseStandard(parser, standard, arguments); status >= 0)
        return status;
    QTextStream out(stdout);

    ui::ChartPages charts;
    if (!parser.isSet(chart))
        return fail(QStringLiteral("--chart"),
                    QStringLiteral("required; one of %1, all").arg(ce::chartIds()));
    const QString chartText = parser.value(chart);
    const bool all = chartText == QLatin1String("all");
    if (all) {
        charts = ui::createChartPages();
    } else if (auto page = ui::createChartPage(chartText)) {
        charts.push_back(std::move(page));
    } else {
        return fail(
            QStringLiteral("--chart"),
            QStringLiteral("unknown chart '%1'; expected %2, all").arg(chartText, ce::chartIds()));
    }

    ce::Options options;
    const auto requested = parseSize(parser.value(size));
    if (!requested || requested->width() < ce::kMinSize.width() ||
        requested->height() < ce::kMinSize.height() || requested->width() > kMaxPixels ||
        requested->height() > kMaxPixels)
        return fail(QStringLiteral("--size"),
                    QStringLiteral("expected WIDTHxHEIGHT from %1x%2 to %3x%3, got '%4'")
                        .arg(ce::kMinSize.width())
                        .arg(ce::kMinSize.height())
                        .arg(kMaxPixels)
                        .arg(parser.value(size)));
    options.size = *requested;
    bool isNumber = false;
    options.scale = parser.value(scale).toInt(&isNumber);
    if (!isNumber || options.scale < ce::kMinScale || options.scale > ce::kMaxScale)
        return fail(QStringLiteral("--scale"), QStringLiteral("expected a whole number from %1 to "
                                                              "%2, got '%3'")
                                                   .arg(ce::kMinScale)
                                                   .arg(ce::kMaxScale)
                                                   .arg(parser.value(scale)));
    if (std::max(options.size.width(), options.size.height()) * options.scale > kMaxPixels)
        return fail(QStringLiteral("--scale"),
                    QStringLiteral("%1 at scale %2 exceeds %3 pixels a side")
                        .arg(parser.value(size))
                        .arg(options.scale)
                        .arg(kMaxPixels));
    options.caption = !parser.isSet(noCaption);
    const QString unitText = parser.value(sizeUnits).toLower();
    if (unitText != QLatin1String("gb") && unitText != QLatin1String("gib"))
        return fail(QStringLiteral("--units"),
                    QStringLiteral("expected gb or gib, got '%1'").arg(parser.value(sizeUnits)));
    // The window's View → sizes preference, for this process: every chart's axes and labels.
    ui::units::setCurrent(unitText == QLatin1String("gib") ? io::SizeUnit::gib : io::SizeUnit::gb);
    if (parser.isSet(date)) {
        options.date = QDate::fromString(parser.value(date), Qt::ISODate);
        if (!options.date.isValid())
            return fail(QStringLiteral("--date"),
                        QStringLiteral("expected YYYY-MM-DD, got '%1'").arg(parser.value(date)));
    }

    std::optional<ce::Format> imageFormat;
    if (parser.isSet(image)) {
        imageFormat = ce::formatFromSuffix(parser.value(image));
        if (!imageFormat)
            return fail(QStringLiteral("--image"),
                        QStringLiteral("expected png or svg, got '%1'").arg(parser.value(image)));
    }
    std::optional<de::Format> dataFormat;
    if (parser.isSet(dataOption)) {
        dataFormat = de::formatFromSuffix(parser.value(dataOption));
        if (!dataFormat)
            return fail(
                QStringLiteral("--data"),
                QStringLiteral("expected csv or json, got '%1'").arg(parser.value(dataOption)));
        if (imageFormat)
            return fail(QStringLiteral("--data"), QStringLiteral("writes data, not images: leave "
                                                                 "out --image"));
    }
    if (!parser.isSet(outPath) || parser.value(outPath).isEmpty())
        return fail(QStringLiteral("--out"),
                    all ? QStringLiteral("required: a folder")
                        : QStringLiteral("required: a .png, .svg, .csv or .json file"));
    const QString target = parser.value(outPath);
    ce::Format format = imageFormat.value_or(ce::Format::png);
    if (!all) {
        const auto byName = ce::formatOf(target);
        const auto dataByName = de::formatOf(target);
        if (!byName && !dataByName)
            return fail(QStringLiteral("--out"),
                        QStringLiteral("expected a file name ending in .png, .svg, .csv or .json, "
                                       "got '%1'")
                            .arg(target));
        if (imageFormat && imageFormat != byName)
            return fail(QStringLiteral("--image"),
                        QStringLiteral("%1 does not match the extension of '%2'")
                            .arg(parser.value(image), target));
        if (dataFormat && dataFormat != dataByName)
            return fail(QStringLiteral("--data"),
                        QStringLiteral("%1 does not match the extension of '%2'")
                            .arg(parser.value(dataOption), target));
        if (byName)
            format = *byName;
        dataFormat = dataByName;
    }

    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsFile)))
        return fail(*e);
    core::Scenario scenario;
    if (int status = readScenario(parser, set, scenario); status >= 0)
        return status;
    const core::Report report = ce::evaluate(scenario, presets, ui::chartNeeds(charts));
    g_previousHandler = qInstallMessageHandler(dropSizeHintNotice);
    if (report.error)
        return fail(
            fromScenario(*report.error, parser.positionalArguments().value(0), parser.values(set)));

    // A chart with nothing to draw for this scenario (serving, for a training one) is left out
    // of --chart all with a line saying why, and refused when asked for alone.
    const ui::ChartInputs inputs{scenario, presets, report};
    QTextStream err(stderr);
    for (auto it = charts.begin(); it != charts.end();) {
        if (const auto why = (*it)->unavailable(inputs)) {
            if (!all)
                return fail(QStringLiteral("--chart"),
                            QStringLiteral("%1 has nothing to draw: %2").arg((*it)->id(), *why));
            err << "parascope: skipped " << (*it)->id() << ": " << *why << Qt::endl;
            it = charts.erase(it);
        } else {
            ++it;
        }
    }

    QStringList paths;
    if (all) {
        if (!QDir().mkpath(target))
            return fail(QStringLiteral("--out"),
                        QStringLiteral("cannot create the folder '%1'").arg(target));
        for (const auto &page : charts)
            paths << (dataFormat ? de::dataPath(target, *page, *dataFormat)
                                 : ce::chartPath(target, *page, format));
    } else {
        paths << target;
    }
    // All or none: a chart that cannot be written leaves every old file as it was.
    QStringList written;
    std::optional<QString> reason;
    if (dataFormat) {
        QList<const ui::ChartPage *> pages;
        for (const auto &page : charts)
            pages << page.get();
        reason = de::writeData(pages, inputs, *dataFormat, paths, &written);
    } else {
        reason = ce::writeCharts(charts, inputs, options, format, paths, &written);
    }
    for (const QString &path : std::as_const(written))
        out << QDir::toNativeSeparators(path) << Qt::endl;
    if (reason)
        return fail(QStringLiteral("--out"), *reason);
    return ok;
}

} // namespace cli
