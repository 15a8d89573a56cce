#pragma once

#include "core/report.h"

#include <QJsonObject>
#include <QString>
#include <QTextStream>

namespace io {

inline constexpr const char *kReportFormat = "parascope-report";
inline constexpr int kReportVersion = 1;

// The JSON report of `parascope eval --format json`, without the timeline. Field names
// are part of the interface (README, "Report fields"): add, never rename.
QJsonObject reportToJson(const core::Report &report);
// A step's time by part, {"compute_s", "bubble_s", "tp_comm_s", "dp_comm_s"}: the report's
// "time_breakdown" and each plan candidate's.
QJsonObject timeBreakdownToJson(const core::TimeBreakdown &breakdown);

// The whole JSON report, indented, timeline included: the timeline (up to
// core::limits::kTimelineBlocks blocks) is written block by block as it goes, never held
// as JSON values, so memory stays that of the report.
void writeReportJson(const core::Report &report, QTextStream &out);

// The same, for people.
QString reportToText(const core::Report &report);

} // namespace io
