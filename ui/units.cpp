#include "ui/units.h"

#include "core/units.h"

namespace ui::units {

namespace {
io::SizeUnit g_unit = io::SizeUnit::gb; // set from the GUI thread only
}

io::SizeUnit current()
{
    return g_unit;
}

void setCurrent(io::SizeUnit unit)
{
    g_unit = unit;
}

double large(double bytes)
{
    return bytes / (g_unit == io::SizeUnit::gb ? core::kGB : static_cast<double>(core::kGiB));
}

double small(double bytes)
{
    return bytes / (g_unit == io::SizeUnit::gb ? 1e6 : 1048576.0);
}

QString largeName()
{
    return g_unit == io::SizeUnit::gb ? QStringLiteral("GB") : QStringLiteral("GiB");
}

QString smallName()
{
    return g_unit == io::SizeUnit::gb ? QStringLiteral("MB") : QStringLiteral("MiB");
}

QString format(double bytes, int decimals)
{
    return io::formatBytes(bytes, g_unit, decimals);
}

} // namespace ui::units
