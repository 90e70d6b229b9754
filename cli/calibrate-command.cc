// SPDX-License-Identifier: GPL-2.0-only
//
// hockney calibrate: fits alpha-beta, S-curve, protocol-step and LogGP
// parameters to measurement logs (nccl-tests text, perftest text, CSV of size
// and time), with bootstrap intervals and the error by size band; one
// calibration row per (group, model) (contrib/collective/doc/collective.md,
// "Output"), the parameter file
// with --output, the residuals per size with --residuals.
//
// The calibration code lives in the collective module, which is configured only
// once the fabric module has sources; until then this command is absent.
#if __has_include("calibration.h")

#include "flags.h"

#include "attribute-defaults.h"
#include "calibration-parameters.h"
#include "calibration.h"
#include "input-error.h"
#include "measurement-reader.h"
#include "result-row.h"
#include "units.h"

#include <ostream>
#include <set>

namespace
{

// A table is for reading: columns that are null in every row only widen it.
std::vector<ns3::ResultRow>
DropEmptyColumns(const std::vector<ns3::ResultRow>& rows)
{
    std::set<std::string> used;
    for (const auto& r : rows)
    {
        for (const auto& [k, v] : r.Fields())
        {
            if (!std::holds_alternative<std::monostate>(v))
            {
                used.insert(k);
            }
        }
    }
    std::vector<ns3::ResultRow> out;
    for (const auto& r : rows)
    {
        ns3::ResultRow t;
        for (const auto& [k, v] : r.Fields())
        {
            if (used.count(k) && k != "diagnostics" && k != "form")
            {
                t.Set(k, v);
            }
        }
        out.push_back(t);
    }
    return out;
}

void
DeclareCalibrateFlags(hockney::Flags& flags)
{
    flags.Add("input", "", "measurement files, comma-separated: nccl-tests output, perftest output, CSV")
        .Add("model", "alphabeta,scurve,protocol,loggp", "models to fit: alphabeta, scurve, protocol, loggp, launch (the software floor above NCCL's latencies)")
        .Add("collective", "", "keep only this collective; also the collective of logs that name none")
        .Add("ranks", "", "ranks of logs without rank lines whose busbw / algbw do not tell")
        .Add("gpus-per-node", "", "launch: GPUs a node, for logs without rank lines (default: the hosts the log names, else one)")
        .AddSwitch("in-place", "fit the in-place columns instead of the out-of-place ones")
        .Add("o", "", "LogGP send/receive overhead o if known (splits the fitted 2o + L)")
        .Add("resamples", "200", "bootstrap resamples for the confidence intervals")
        .Add("seed", "1", "bootstrap seed")
        .Add("format", "table", "table | csv | json")
        .Add("output", "", "write the fitted parameters to this JSON file (read by LoadCalibratedParameters)")
        .Add("residuals", "", "write the residual of every sample to this CSV file");
}

ns3::CalibrationOptions
ParseCalibrationOptions(const hockney::Flags& flags)
{
    ns3::CalibrationOptions opt;
    opt.models = ns3::units::SplitList(flags.Get("model"), "--model");
    opt.collective = flags.Get("collective");
    if (flags.IsSet("ranks"))
    {
        opt.ranks = static_cast<uint32_t>(ns3::units::ParseCount(flags.Get("ranks"), "--ranks"));
    }
    if (flags.IsSet("gpus-per-node"))
    {
        opt.gpusPerNode = static_cast<uint32_t>(ns3::units::ParseCount(flags.Get("gpus-per-node"), "--gpus-per-node"));
        if (opt.gpusPerNode == 0)
        {
            throw ns3::InputError("--gpus-per-node", "expected at least 1 GPU a node, got 0");
        }
    }
    opt.inPlace = flags.GetSwitch("in-place");
    if (flags.IsSet("o"))
    {
        opt.overheadS = ns3::units::ParseSeconds(flags.Get("o"), "--o");
    }
    uint64_t resamples = ns3::units::ParseCount(flags.Get("resamples"), "--resamples");
    if (resamples > 100000)
    {
        throw ns3::InputError("--resamples", "expected at most 100000 resamples, got " + flags.Get("resamples"));
    }
    opt.resamples = static_cast<uint32_t>(resamples);
    opt.seed = ns3::units::ParseCount(flags.Get("seed"), "--seed");
    return opt;
}

// What the logs cannot give, once per distinct note, as "# " lines under the table.
void
WriteDiagnostics(std::ostream& out, const std::vector<ns3::CalibrationFit>& fits)
{
    std::set<std::string> seen;
    for (const auto& f : fits)
    {
        std::string group = f.collective + " N=" + std::to_string(f.ranks);
        for (const auto& d : f.diagnostics)
        {
            // Notes about the log are shared by its models; those about a fit are not.
            bool aboutLog = d.find(':') != std::string::npos && d.find('/') != std::string::npos;
            std::string line = aboutLog ? group + ": " + d : group + " " + f.model + ": " + d;
            if (seen.insert(line).second)
            {
                out << "# " << line << "\n";
            }
        }
    }
}

// One row per sample of every fit, for --residuals.
std::vector<ns3::ResultRow>
ResidualRows(const std::vector<ns3::CalibrationFit>& fits)
{
    std::vector<ns3::ResultRow> res;
    for (const auto& f : fits)
    {
        for (const auto& r : f.residuals)
        {
            ns3::ResultRow row;
            row.Set("model", f.model)
                .Set("collective", f.collective)
                .Set("ranks", static_cast<uint64_t>(f.ranks))
                .Set("bytes", r.bytes)
                .Set("step_bytes", ns3::ResultRow::Value(r.stepBytes))
                .Set("time_s", ns3::ResultRow::Value(r.timeS))
                .Set("fitted_s", ns3::ResultRow::Value(r.fittedS))
                .Set("residual", ns3::ResultRow::Value(r.relative))
                .Set("source", r.where);
            res.push_back(row);
        }
    }
    return res;
}

int
CalibrateCommand(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags flags;
    DeclareCalibrateFlags(flags);
    if (!flags.Parse(args, out))
    {
        return 0;
    }
    // calibrate fits the models' parameters to the measurements: a default of
    // theirs would take no part in the fit.
    for (ns3::TypeId tid : {ns3::AlphaBetaModel::GetTypeId(), ns3::LogGpModel::GetTypeId()})
    {
        for (size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            ns3::RefuseUserAttribute(tid.GetName() + "::" + tid.GetAttribute(i).name,
                                     "calibrate fits the models' parameters to the measurements, so a default of "
                                     "theirs takes no part; set it for hockney model instead");
        }
    }
    auto format = ns3::ParseOutputFormat(flags.Get("format"));
    if (!flags.IsSet("input"))
    {
        throw ns3::InputError("--input", "expected one or more measurement files (--input=FILE[,FILE])");
    }
    ns3::MeasurementSet set;
    for (const auto& path : ns3::units::SplitList(flags.Get("input"), "--input"))
    {
        set.Append(ns3::ReadMeasurementFile(path));
    }
    const ns3::CalibrationOptions opt = ParseCalibrationOptions(flags);
    // Before the fits (the bootstrap can take a while): an unwritable path is
    // bad input naming its flag, not a failure after the table.
    for (const char* file : {"output", "residuals"})
    {
        if (flags.IsSet(file))
        {
            hockney::CheckWritableFile(flags.Get(file), std::string("--") + file);
        }
    }
    ns3::OutputProvenance().seed = opt.seed; // of the bootstrap resamples
    auto fits = ns3::Calibrate(set, opt);
    std::vector<ns3::ResultRow> rows;
    for (const auto& f : fits)
    {
        rows.push_back(f.ToRow());
    }
    if (format == ns3::OutputFormat::TABLE)
    {
        ns3::WriteRows(out, "calibrate", DropEmptyColumns(rows), format);
        WriteDiagnostics(out, fits);
    }
    else
    {
        ns3::WriteRows(out, "calibrate", rows, format);
    }
    if (flags.IsSet("output"))
    {
        ns3::WriteCalibrationFile(flags.Get("output"), fits);
    }
    if (flags.IsSet("residuals"))
    {
        ns3::WriteCsvFile(flags.Get("residuals"), ResidualRows(fits));
    }
    return 0;
}

static hockney::CommandRegistrar g_calibrate("calibrate",
                                             "fit alpha, beta, n0, protocol steps, LogGP to nccl-tests / "
                                             "perftest / CSV measurements",
                                             &CalibrateCommand);

} // namespace

#endif
