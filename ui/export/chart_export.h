#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"
#include "ui/charts/chart_pages.h"

#include <QDate>
#include <QFontMetrics>
#include <QImage>
#include <QList>
#include <QSize>
#include <QString>
#include <memory>
#include <optional>

class QPainter;
class QWidget;

// Every chart page can be exported (ui/charts/chart_pages.h): its id is the name users type
// (`parascope export --chart memory`) and the name of its file in `--chart all`.
namespace ui::chart_export {

// "memory, bubble, timeline, step-time, sharding, model-size", for messages.
QString chartIds();

enum class Format
{
    png,
    svg
};

QString suffix(Format format);
std::optional<Format> formatFromSuffix(const QString &suffix);
// The format a file name's extension names ("slide.SVG" -> svg).
std::optional<Format> formatOf(const QString &path);

struct Options
{
    QSize size{1600, 1000}; // logical pixels, the caption strip included
    int scale = 1;          // PNG pixels per logical pixel (1–4); SVG ignores it
    bool caption = true;
    QDate date; // printed in the caption; null means today
};

// Text and lines grow with the image: an export looks the same at every size, as a chart
// in the window looks at kReferenceSize, so that a 1600×1000 image pasted across a 16:9
// slide keeps its text readable from the back of the room (README, "Export for slides").
// The factor is the smaller of width and height over the reference's, at least 1.
constexpr QSize kReferenceSize{800, 500};
double textScale(QSize size);

constexpr int kMinScale = 1;
constexpr int kMaxScale = 4;
// Smaller than this, a chart's axes, labels and legend overlap or are cut: at 480 × 300 the
// Stage memory legend loses its last entry and the Model weights axis reads "fp…"; every
// chart reads whole at 640 × 400 (tst_export_window::chartStaysAboveTheCaption).
constexpr QSize kMinSize{640, 400};

// What a chart is drawn from: the window passes its document's last valid
// scenario and report, `parascope export` evaluates the scenario it read.
using Inputs = ChartInputs;

// Evaluates what charts with these needs draw from (chartNeeds()): the schedule's blocks
// only for ChartNeeds::timeline.
core::Report evaluate(const core::Scenario &scenario, const core::Presets &presets,
                      ChartNeeds needs = ChartNeeds::timeline);

// The caption as it fits `width` pixels: one line, or two where it does not fit one (the
// program and date kept: an image of a design review says which version made its numbers),
// the scenario's items whole and the last of them left out where even two lines are short;
// cut with an ellipsis only where the model and device alone are wider.
QStringList captionLines(const QString &caption, const QFontMetrics &metrics, int width);

// The caption strip's text: the scenario, the date and Parascope's version.
QString captionText(const Inputs &inputs, const QDate &date);
// The height of the caption strip at the bottom of an image of `options` (0 without one): one
// or two lines of the caption (captionLines) and their padding.
int captionHeight(const Inputs &inputs, const Options &options);

// Draws the chart and its caption strip into QRect(0, 0, size): the one
// rendering path of the window's File → Export and of `parascope export`, so
// that both produce the same pixels from the same inputs.
// `inputs.report` has what the page needs (ChartPage::needs).
QImage renderImage(const ChartPage &page, const Inputs &inputs, const Options &options);
QByteArray renderSvg(const ChartPage &page, const Inputs &inputs, const Options &options);

// The file's content: the PNG encoded in memory, or the SVG. Empty when the
// image cannot be encoded.
QByteArray encodeChart(const ChartPage &page, const Inputs &inputs, const Options &options,
                       Format format);

// Writes the chart to `path` in `format` through io::saveFile: on failure the
// old file is left as it was, and the reason names the path and the system's
// reason ("cannot write 'slides/memory.png': No space left on device").
std::optional<QString> writeChart(const ChartPage &page, const Inputs &inputs,
                                  const Options &options, Format format, const QString &path);

// The file of a page in a folder: "slides/memory.png".
QString chartPath(const QString &folder, const ChartPage &page, Format format);

// Writes pages[i] to paths[i], all or none (io::SaveFiles): every chart is
// drawn and written to a temporary file before any old file is replaced, so a
// failure leaves every old file as it was. `written` receives the paths
// replaced: all of them on success, and none unless the system refused to
// move a complete file into place (io::SaveFiles::commit()).
std::optional<QString> writeCharts(const ChartPages &pages, const Inputs &inputs,
                                   const Options &options, Format format, const QStringList &paths,
                                   QStringList *written = nullptr);

} // namespace ui::chart_export
