#pragma once

#include <QString>
#include <string>
#include <string_view>

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

} // namespace io
