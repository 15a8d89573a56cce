#pragma once

#include "core/error.h"
#include "core/scenario.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace io {

// Reads a scenario file ({"format": "parascope-scenario", "version": 1, ...}).
// Missing keys keep the defaults; unknown keys, wrong types, another format
// or a newer version are refused, naming the key. `out` is left untouched on
// error.
std::optional<core::InputError> readScenario(const QByteArray &json, core::Scenario &out);
std::optional<core::InputError> readScenarioFile(const QString &path, core::Scenario &out);

QByteArray writeScenario(const core::Scenario &scenario);

// Writes atomically (io::saveFile): on any failure the old file is left as it
// was. Returns the reason on failure, naming the path and the system's reason.
std::optional<QString> writeScenarioFile(const QString &path, const core::Scenario &scenario);

// Applies one `KEY=VALUE` from the command line.
std::optional<core::InputError> applySetting(core::Scenario &scenario, const QString &assignment);

} // namespace io
