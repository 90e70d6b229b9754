// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: a compare scenario file, the topology it embeds (a preset
// with options or the explicit tiers/nodes/links form) included. The input is
// written to a file and read by ApplyScenarioFile, as `hockney compare
// --scenario=FILE` reads it; then ComparisonSetup runs the checks compare
// makes before anything is simulated (ValidateComparison, the topology's graph
// and routes, the ranks against its endpoints, the algorithm).
//
// ns-3 state: none is changed. A scenario's "attributes" are only checked
// (CheckAttributeDefault); they become defaults only while RunComparison
// runs, which this target does not call.
#include "collective-comparison.h"
#include "comparison-point.h"
#include "fuzz-target.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static hockney::fuzz::InputFile file(".json");
    const std::string& path = file.Write(data, size);
    hockney::fuzz::RunParser("scenario", [&] {
        ns3::ComparisonConfig c;
        ns3::ApplyScenarioFile(path, c);
        const ns3::ComparisonSetup setup(c, [](const std::string&) {});
    });
    return 0;
}
