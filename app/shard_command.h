#pragma once

#include <QStringList>

namespace cli {

// `parascope shard`: the feed-forward sharding demonstrator and cost model
// (docs/DESIGN.md §3.4). `arguments` start with the program name, without
// the subcommand. Returns the exit status.
int runShard(const QStringList &arguments);

} // namespace cli
