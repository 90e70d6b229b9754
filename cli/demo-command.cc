// SPDX-License-Identifier: GPL-2.0-only
//
// hockney demo: the main job. It runs the default subset of the accuracy map
// (validation/*.json, the same run as `hockney validate --output=DIR`): the map
// on stdout, report.md with its figures in --output (default demo-output). The
// H100 NVLink example (alpha 5 us, beta 450 GB/s; crossover n* = alpha x beta = 2.25 MB,
// protocol steps, S-curve, LogGP) is the report's last section.
#include "accuracy-map-command.h"
#include "flags.h"

#include "alpha-beta-model.h"
#include "input-error.h"
#include "interconnect-presets.h"
#include "loggp-model.h"
#include "result-row.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace
{

using namespace ns3;

// The H100 NVLink example (contrib/analytic/doc/analytic.md) and its relaxations,
// one model each.
struct Models
{
    Ptr<AlphaBetaModel> constant;
    Ptr<AlphaBetaModel> protocol;
    Ptr<AlphaBetaModel> sCurve;
    Ptr<LogGpModel> loggp;
};

Models
MakeModels()
{
    Models m;
    m.constant = CreateAlphaBetaModel("h100-nvlink");
    m.protocol = CreateAlphaBetaModel("h100-nvlink");
    m.protocol->SetAttribute("ProtocolSwitch", BooleanValue(true)); // eager alpha 2 us, +3 us RTT from 8 KB, +1 us from 512 KB
    m.sCurve = CreateAlphaBetaModel("h100-nvlink");
    m.sCurve->SetAttribute("SCurve", BooleanValue(true)); // n0 = 256 KB (NVLink, assumed)
    // LogGP with 2o + L = 5 us and 1/G = 450 GB/s: the same point-to-point line.
    m.loggp = CreateObject<LogGpModel>();
    m.loggp->SetAttribute("L", TimeValue(MicroSeconds(3)));
    m.loggp->SetAttribute("o", TimeValue(MicroSeconds(1)));
    m.loggp->SetAttribute("g", TimeValue(MicroSeconds(2)));
    m.loggp->SetAttribute("GapPerByte", DoubleValue(1.0 / 450e9));
    return m;
}

std::vector<ResultRow>
Sweep(const Models& m)
{
    std::vector<ResultRow> rows;
    for (uint64_t n = 1; n <= (1ULL << 30); n *= 4)
    {
        ResultRow r;
        r.Set("bytes", n)
            .Set("time_s", m.constant->TimeSeconds(n))
            .Set("protocol_time_s", m.protocol->TimeSeconds(n))
            .Set("protocol", AlphaBetaModel::ProtocolName(m.protocol->GetProtocol(n)))
            .Set("scurve_time_s", m.sCurve->TimeSeconds(n))
            .Set("scurve_beta_Bps", m.sCurve->BetaBytesPerSecond(n))
            .Set("loggp_time_s", m.loggp->TimeSeconds(n))
            .Set("crossover_bytes", m.constant->CrossoverBytes())
            .Set("regime", AlphaBetaModel::RegimeName(m.constant->GetRegime(n)));
        rows.push_back(std::move(r));
    }
    return rows;
}

int
DemoCommand(const std::vector<std::string>& args, std::ostream& out)
{
    // The H100 NVLink example stays as the report's last section.
    return hockney::RunAccuracyMapCommand(args, out, "demo", Sweep(MakeModels()),
                                          "The H100 NVLink example through the algebra (alpha 5 us, "
                                          "beta 450 GB/s): protocol steps, S-curve, LogGP");
}

hockney::CommandRegistrar registrar("demo", "the main job: the accuracy map subset, its table, report.md and plots", &DemoCommand);

} // namespace
