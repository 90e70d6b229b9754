// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy-map run that `hockney validate` and `hockney demo` share
// (validate-command.cc).
#ifndef HOCKNEY_CLI_ACCURACY_MAP_COMMAND_H
#define HOCKNEY_CLI_ACCURACY_MAP_COMMAND_H

#include "result-row.h"

#include <ostream>
#include <string>
#include <vector>

namespace hockney
{

/// Runs the experiments the flags choose and prints the map. \p command
/// ("validate" or "demo") names the rows and the progress lines; demo forces a
/// report (default directory demo-output) and adds \p extraSection, titled
/// \p extraTitle, to it.
int RunAccuracyMapCommand(const std::vector<std::string>& args,
                          std::ostream& out,
                          const std::string& command,
                          const std::vector<ns3::ResultRow>& extraSection,
                          const std::string& extraTitle);

} // namespace hockney

#endif
