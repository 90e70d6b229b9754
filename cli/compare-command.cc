// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare: one collective, every backend, the same topology
// (DESIGN.md section 6). Flags override the fields of --scenario.
#include "calibration-parameters.h"
#include "collective-comparison.h"
#include "flags.h"
#include "input-error.h"
#include "result-row.h"
#include "topology-presets.h"
#include "units.h"

#include <cmath>
#include <filesystem>
#include <iostream>

namespace
{

int
Compare(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags f;
    f.Add("topology", "dgx-h100", "topology preset (dgx-h100, rail-h100-Nn, roce-leafspine[:oversubscription=R], ...)")
        .Add("scenario", "", "JSON scenario file (topology, collective, algorithm, sizes, backends, model, fabric)")
        .Add("collective", "allreduce", "allreduce | allgather | reducescatter | broadcast | alltoall | incast")
        .Add("algorithm", "", "ring | tree | rhd | hierarchical | binomial | pairwise | all-at-once | direct "
                              "(default: the collective's first)")
        .Add("ranks", "", "ranks (default: every endpoint of the topology)")
        .Add("bytes", "1MB", "sizes as nccl-tests counts them, e.g. 1KB,1MB,1GB")
        .Add("backends", "closed,alphabeta,loggp,flow", "closed,alphabeta,loggp,flow,packet")
        .Add("channels", "1", "NCCL-style channels (independent copies of the algorithm)")
        .Add("slices", "1", "pipeline slices per channel")
        .Add("root", "0", "root rank of broadcast and incast")
        .Add("gpus-per-node", "", "hierarchical: ranks per server (default: from the topology)")
        .Add("params", "derived", "analytic parameters: derived (from the topology's paths), calibrated (fitted to "
                                  "a packet-level point-to-point sweep) or derived,calibrated")
        .Add("alpha", "", "given alpha for every analytic backend (with --beta) instead of the derived one")
        .Add("beta", "", "given beta (with --alpha)")
        .Add("calibration", "", "given alpha and beta from a parameter file of hockney calibrate --output "
                                "(its alphabeta fit of this collective, else of any); not with --alpha/--beta")
        .Add("contention", "none", "contention policy of the alphabeta backend: none | endpoint | shared")
        .Add("format", "table", "table | csv | json")
        .Add("output", "", "directory to also write compare.csv into")
        .Add("seed", "1", "random seed (packet backend)");
    if (!f.Parse(args, out))
    {
        return 0;
    }
    ns3::ComparisonConfig c;
    const ns3::OutputFormat format = ns3::ParseOutputFormat(f.Get("format"));
    if (f.IsSet("scenario"))
    {
        ns3::ApplyScenarioFile(f.Get("scenario"), c);
    }
    if (f.IsSet("topology") || !c.topology)
    {
        try
        {
            c.topology = ns3::MakePreset(f.Get("topology"));
        }
        catch (const std::invalid_argument& e)
        {
            throw ns3::InputError("--topology", e.what());
        }
        c.topologyName = f.Get("topology");
    }
    if (f.IsSet("collective"))
    {
        c.collective = ns3::ParseCollectiveKind(f.Get("collective"), "--collective");
    }
    if (f.IsSet("algorithm"))
    {
        c.algorithm = f.Get("algorithm");
    }
    else if (!f.IsSet("scenario") || f.IsSet("collective"))
    {
        c.algorithm = ns3::AlgorithmsOf(c.collective).front();
    }
    if (f.IsSet("ranks"))
    {
        c.ranks = static_cast<uint32_t>(ns3::units::ParseCount(f.Get("ranks"), "--ranks"));
        if (c.ranks < 2)
        {
            throw ns3::InputError("--ranks", "expected at least 2 ranks, got " + f.Get("ranks"));
        }
    }
    if (f.IsSet("bytes") || !f.IsSet("scenario"))
    {
        c.sizes.clear();
        for (const auto& item : ns3::units::SplitList(f.Get("bytes"), "--bytes"))
        {
            c.sizes.push_back(ns3::units::ParseBytes(item, "--bytes"));
        }
    }
    if (f.IsSet("backends") || !f.IsSet("scenario"))
    {
        c.backends = ns3::ParseBackends(f.Get("backends"), "--backends");
    }
    auto count = [&f](const std::string& name, uint64_t minimum) {
        uint64_t v = ns3::units::ParseCount(f.Get(name), "--" + name);
        if (v < minimum || v > UINT32_MAX)
        {
            throw ns3::InputError("--" + name, "expected an integer >= " + std::to_string(minimum) + ", got " +
                                                   f.Get(name));
        }
        return static_cast<uint32_t>(v);
    };
    if (f.IsSet("channels") || !f.IsSet("scenario"))
    {
        c.channels = count("channels", 1);
    }
    if (f.IsSet("slices") || !f.IsSet("scenario"))
    {
        c.slices = count("slices", 1);
    }
    if (f.IsSet("root"))
    {
        c.root = count("root", 0);
    }
    if (f.IsSet("gpus-per-node"))
    {
        c.gpusPerNode = count("gpus-per-node", 1);
    }
    if (f.IsSet("seed"))
    {
        c.seed = count("seed", 0);
    }
    if (f.IsSet("params"))
    {
        c.params = ns3::ParseParameterSources(f.Get("params"), "--params");
    }
    if (f.IsSet("calibration"))
    {
        if (f.IsSet("alpha") || f.IsSet("beta"))
        {
            throw ns3::InputError("--calibration", "expected either --calibration or --alpha/--beta, not both");
        }
        const auto all = ns3::LoadCalibratedParameters(f.Get("calibration"), "--calibration");
        const std::string collective = ns3::ToString(c.collective);
        bool forThis = false;
        for (const auto& p : all)
        {
            forThis = forThis || (p.model == "alphabeta" && p.collective == collective);
        }
        // A fit is per ring step (calibration-parameters.h): the same alpha and
        // beta price every message of compare's schedules.
        ns3::Ptr<ns3::AlphaBetaModel> m =
            ns3::SelectCalibratedParameters(all, "alphabeta", forThis ? collective : "", "--calibration")
                .MakeAlphaBetaModel();
        c.model.alpha = m->GetAlpha(1);
        c.model.beta = ns3::DataRate(static_cast<uint64_t>(std::llround(m->MaxBandwidth() * 8)));
    }
    if (f.IsSet("alpha"))
    {
        c.model.alpha = ns3::units::ParseTime(f.Get("alpha"), "--alpha");
    }
    if (f.IsSet("beta"))
    {
        c.model.beta = ns3::units::ParseDataRate(f.Get("beta"), "--beta");
        if (c.model.beta->GetBitRate() == 0)
        {
            throw ns3::InputError("--beta", "expected a positive rate, got " + f.Get("beta"));
        }
    }
    if (f.IsSet("contention"))
    {
        c.model.contention = ns3::ParseContentionPolicy(f.Get("contention"), "--contention");
    }
    std::vector<ns3::ResultRow> rows =
        ns3::RunComparison(c, [](const std::string& line) { std::cerr << line << "\n"; });
    ns3::WriteRows(out, "compare", rows, format);
    if (!f.Get("output").empty())
    {
        std::filesystem::create_directories(f.Get("output"));
        ns3::WriteCsvFile(f.Get("output") + "/compare.csv", rows);
    }
    return 0;
}

hockney::CommandRegistrar registrar("compare", "one collective on every backend: closed form, alpha-beta, LogGP, "
                                               "flow, packet, with errors vs the packets",
                                    &Compare);

} // namespace
