#pragma once

#include "core/planner.h"
#include "io/data_table.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace io {

inline constexpr const char *kPlanFormat = "parascope-plan";
inline constexpr int kPlanVersion = 1;

// `parascope plan`'s report (docs/planner.md). Field names are part of the interface (README).
QJsonObject planToJson(const core::PlanRequest &request, const core::PlanResult &result,
                       const QString &modelId, const QString &deviceId);
QString planToText(const core::PlanRequest &request, const core::PlanResult &result,
                   const QString &modelName, const QString &deviceName);

// The candidates as a table, one row per layout in rank order: `parascope plan --format csv`
// and the Planner's Export CSV… write it (io::toCsv). The layout's columns are the scenario
// keys of core::kLayoutFields; numbers at full precision, sizes in bytes.
DataTable planTable(const std::vector<core::PlanCandidate> &candidates);

// "1f1b", "interleaved v=2".
QString scheduleText(const core::PlanLayout &layout);
// Full recomputation of the first N layers of each chunk (recompute_layers): "3 layers a
// stage", "1 layer a chunk" (interleaved); empty where it reruns every layer.
QString recomputedLayersText(const core::PlanLayout &layout);
// The first layers whose activations go to host memory (offload_layers): "36 layers"; empty
// when none do.
QString offloadedLayersText(const core::PlanLayout &layout);
// "T=2 K=4 D=8, ZeRO 1, 1f1b, b=1 m=16, selective recompute, SP", with C and E when above 1
// ("T=4 C=2 K=1 D=8 E=8, …"): one layout in a line, as
// the text report, the window's table, its undo history and its status bar write it.
QString layoutText(const core::PlanLayout &layout);

// "step time", "cost (device-hours per million tokens)", …: what a ranking is by.
QString rankText(core::PlanRank rank);
// When nothing fits: "No layout of 64 devices fits with 2 GiB free per device. The smallest
// device count with one that does: 96 (T=8 K=12 D=1, …)." The window and the text report
// share it.
QString noFitText(const core::PlanRequest &request, const core::PlanResult &result);

// The rejection groups, most frequent first (ties in the reasons' order): one line each,
// "975 optimizer states; e.g. T=1 K=1 D=64, ZeRO 0, …: stage 0's weights, … most of it
// optimizer states".
QStringList rejectionsText(const core::RejectionCounts &rejected);

} // namespace io
