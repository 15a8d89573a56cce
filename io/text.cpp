#include "io/text.h"

#include "core/units.h"

namespace io {

QString formatBytes(double bytes, SizeUnit unit, int decimals)
{
    const double scale = unit == SizeUnit::gb ? core::kGB : static_cast<double>(core::kGiB);
    const QString suffix = unit == SizeUnit::gb ? QStringLiteral("GB") : QStringLiteral("GiB");
    return QStringLiteral("%1 %2").arg(bytes / scale, 0, 'f', decimals).arg(suffix);
}

QString formatCount(qint64 count)
{
    QString digits = QString::number(count < 0 ? -count : count);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return count < 0 ? QLatin1Char('-') + digits : digits;
}

QString assumedRatesLines(const std::vector<std::string> &rates)
{
    QString out;
    for (std::size_t i = 0; i < rates.size(); ++i)
        out += (i == 0 ? QStringLiteral("Assumed rates   ") : QString(16, QLatin1Char(' '))) +
               qs(rates[i]) + QLatin1Char('\n');
    return out;
}

} // namespace io
