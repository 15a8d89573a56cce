#pragma once

#include "core/serving_plan.h"
#include "io/data_table.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace io {

inline constexpr const char *kServingPlanFormat = "parascope-serving-plan";
inline constexpr int kServingPlanVersion = 1;

// `parascope plan --mode inference`'s report (docs/inference.md, "Planning a deployment").
// Field names are part of the interface (README).
QJsonObject servingPlanToJson(const core::ServingPlanRequest &request,
                              const core::ServingPlanResult &result, const QString &modelId,
                              const QString &deviceId);
QString servingPlanToText(const core::ServingPlanRequest &request,
                          const core::ServingPlanResult &result, const QString &modelName,
                          const QString &deviceName);
// The candidates, one row per shape in rank order: `--format csv` and the Planner's Export.
DataTable servingPlanTable(const std::vector<core::ServingCandidate> &candidates);

// "T=8 K=1 D=2, batch 64 (b=64 m=1)": one shape at its batch in a line.
QString servingShapeText(const core::ServingCandidate &candidate);
// The targets in a phrase: "at most 20 ms per output token and 500 ms to the first token";
// empty with none.
QString servingTargetsText(const core::ServingPlanRequest &request);
// "The smallest deployment that fits: 16 devices (T=16 K=1 …)." or why there is none.
QString smallestText(const core::ServingPlanRequest &request,
                     const core::ServingPlanResult &result);
QStringList servingRejectionsText(const core::RejectionCounts &rejected);

} // namespace io
