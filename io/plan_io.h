#pragma once

#include "core/planner.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace io {

inline constexpr const char *kPlanFormat = "parascope-plan";
inline constexpr int kPlanVersion = 1;

// `parascope plan`'s report (issue 8). Field names are part of the interface (README).
QJsonObject planToJson(const core::PlanRequest &request, const core::PlanResult &result,
                       const QString &modelId, const QString &deviceId);
QString planToText(const core::PlanRequest &request, const core::PlanResult &result,
                   const QString &modelName, const QString &deviceName);

// "T=2 K=4 D=8, ZeRO 3, 1f1b, micro-batch 1 × 64, selective recomputation, SP": one layout
// as the window and the text report write it.
QString layoutText(const core::PlanCandidate &candidate);

// The rejection groups, most frequent first (ties in the reasons' order): one line each,
// "975 optimizer states; e.g. T=1 K=1 D=64, ZeRO 0, …: stage 0's weights, … most of it
// optimizer states".
QStringList rejectionsText(const core::RejectionCounts &rejected);

} // namespace io
