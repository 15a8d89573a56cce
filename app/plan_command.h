#pragma once

#include <QStringList>

namespace cli {

// `parascope plan`: every parallel layout of a model on N devices, ranked by step time
// (issue 8, DESIGN §4). `arguments` start with the program name, without the subcommand.
// Returns the exit status.
int runPlan(const QStringList &arguments);

} // namespace cli
