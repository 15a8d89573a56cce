#pragma once

#include "core/report.h"

#include <QJsonObject>
#include <QString>

namespace io {

inline constexpr const char *kReportFormat = "parascope-report";
inline constexpr int kReportVersion = 1;

// The JSON report of `parascope eval --format json`. Field names are part of
// the interface (README, "Report fields"): add, never rename.
QJsonObject reportToJson(const core::Report &report);

// The same, for people.
QString reportToText(const core::Report &report);

} // namespace io
