#pragma once

#include <QString>
#include <string>
#include <string_view>
#include <vector>

namespace io {

inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

inline std::string ss(const QString &text)
{
    return text.toStdString();
}

// "70.6 GB" or "65.7 GiB": sizes as users read them (docs/DESIGN.md §3: decimal GB by default).
enum class SizeUnit
{
    gb,
    gib
};
QString formatBytes(double bytes, SizeUnit unit = SizeUnit::gb, int decimals = 1);

// "70,553,706,496": whole numbers with thousands separators, whatever the locale.
QString formatCount(qint64 count);

// The planners' "Assumed rates" lines: the device's rates every time of a search takes from an
// assumption (core::assumedRates), one a line under the label; nothing when all are measured.
QString assumedRatesLines(const std::vector<std::string> &rates);

} // namespace io
