#include "io/shared_options.h"

namespace io {

QCommandLineOption presetsOption()
{
    return QCommandLineOption(QStringLiteral("presets"),
                              QStringLiteral("Extra model/device presets (JSON)."),
                              QStringLiteral("FILE"));
}

void WindowOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOption(presets);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file to open."),
                                 QStringLiteral("[SCENARIO]"));
}

} // namespace io
