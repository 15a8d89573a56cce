#pragma once

#include "core/sharding.h"

#include <QJsonObject>
#include <QString>

namespace io {

inline constexpr const char *kShardFormat = "parascope-shard";
inline constexpr int kShardVersion = 1;

// "columns-rows": a strategy as scripts name it (W1 split, then W2 split).
QString strategyName(const core::StrategyReport &strategy);

// The sharding report (docs/sharding.md). Field names are part of the interface.
QJsonObject shardToJson(const core::ShardReport &report, const QString &deviceId);
QString shardToText(const core::ShardReport &report, const QString &deviceName);

} // namespace io
