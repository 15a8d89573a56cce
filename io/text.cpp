#include "io/text.h"

#include "core/units.h"

namespace io {

QString formatBytes(double bytes, SizeUnit unit, int decimals)
{
    const double scale = unit == SizeUnit::gb ? core::kGB : static_cast<double>(core::kGiB);
    const QString suffix = unit == SizeUnit::gb ? QStringLiteral("GB") : QStringLiteral("GiB");
    return QStringLiteral("%1 %2").arg(bytes / scale, 0, 'f', decimals).arg(suffix);
}

} // namespace io
