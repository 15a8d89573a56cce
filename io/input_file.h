#pragma once

#include "core/error.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace io {

// The largest scenario or presets file Parascope reads (README, "Limits"). The
// built-in presets take 5 KiB for eleven entries and a scenario under 2 KiB, so
// 4 MiB holds some ten thousand models with their architecture (a hundred thousand
// given by size), while a runaway input is refused before it is read.
inline constexpr qint64 kMaxInputFileBytes = 4 * 1024 * 1024;

// Reads a scenario or presets file whole, and only such a file: anything but a
// regular file (a folder, a device such as /dev/zero, a named pipe, a socket) and a
// file above kMaxInputFileBytes are refused before a byte is read, naming the path.
std::optional<core::InputError> readInputFile(const QString &path, QByteArray &out);

// `path` as a message names it: control characters escaped, and a very long one cut.
std::string describePath(const QString &path);

// Adds " (in PATH)" to a refusal of what a file holds.
core::InputError inFile(core::InputError error, const QString &path);

} // namespace io
