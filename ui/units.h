#pragma once

#include "io/text.h"

#include <QString>

// How sizes are shown: decimal GB (10^9, the default) or GiB (2^30) — a view
// preference that every label, tooltip and axis follows (docs/DESIGN.md §3).
namespace ui::units {

io::SizeUnit current();
void setCurrent(io::SizeUnit unit);

// Bytes in the current unit: GB or GiB, and MB or MiB for smaller amounts.
double large(double bytes);
double small(double bytes);
QString largeName(); // "GB" or "GiB"
QString smallName(); // "MB" or "MiB"

// "85.9 GB" / "80.0 GiB".
QString format(double bytes, int decimals = 1);

} // namespace ui::units
