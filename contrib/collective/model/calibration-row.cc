// SPDX-License-Identifier: GPL-2.0-only
//
// The calibration's output: its size bands and CalibrationFit's row.
#include "calibration.h"

#include <cmath>
#include <limits>

namespace ns3
{

namespace
{

// A number, or null when it is not finite (not applicable, not identifiable).
void
SetNumberOrNull(ResultRow& row, const std::string& key, double v)
{
    if (std::isfinite(v))
    {
        row.Set(key, ResultRow::Value(v));
    }
    else
    {
        row.SetNull(key);
    }
}

void
AddParameterFields(ResultRow& row, const std::string& name, const ParameterEstimate& e)
{
    SetNumberOrNull(row, name, e.value);
    SetNumberOrNull(row, name + "_lo", e.lo);
    SetNumberOrNull(row, name + "_hi", e.hi);
}

} // namespace

std::vector<BandError>
CalibrationBands()
{
    const uint64_t KiB = 1024;
    const uint64_t MiB = 1024 * KiB;
    return {{"lt_64KiB", 0, 64 * KiB, 0, NAN},
            {"64KiB_1MiB", 64 * KiB, MiB, 0, NAN},
            {"1MiB_64MiB", MiB, 64 * MiB, 0, NAN},
            {"ge_64MiB", 64 * MiB, std::numeric_limits<uint64_t>::max(), 0, NAN}};
}

ResultRow
CalibrationFit::ToRow() const
{
    ResultRow row;
    row.Set("model", model);
    row.Set("collective", collective);
    row.Set("ranks", static_cast<uint64_t>(ranks));
    if (series.empty())
    {
        row.SetNull("series");
    }
    else
    {
        row.Set("series", series);
    }
    row.Set("kind", kind == MeasurementKind::LATENCY ? "latency" : "throughput");
    row.Set("in_place", ResultRow::Value(inPlace));
    row.Set("samples", static_cast<uint64_t>(samples));
    AddParameterFields(row, "alpha_s", alphaS);
    AddParameterFields(row, "beta_Bps", betaBps);
    AddParameterFields(row, "n0_bytes", n0Bytes);
    AddParameterFields(row, "eager_limit_bytes", eagerLimitBytes);
    AddParameterFields(row, "rendezvous_limit_bytes", rendezvousLimitBytes);
    AddParameterFields(row, "rendezvous_rtt_s", rendezvousRttS);
    AddParameterFields(row, "pipeline_setup_s", pipelineSetupS);
    AddParameterFields(row, "L_s", LS);
    AddParameterFields(row, "o_s", oS);
    AddParameterFields(row, "g_s", gS);
    AddParameterFields(row, "G_s_per_byte", GSPerByte);
    AddParameterFields(row, "two_o_plus_L_s", twoOPlusLS);
    AddParameterFields(row, "launch_overhead_s", launchOverheadS);
    SetNumberOrNull(row, "crossover_bytes", crossoverBytes);
    SetNumberOrNull(row, "error_rms", rmsError);
    SetNumberOrNull(row, "error_max", maxError);
    for (const auto& b : bands)
    {
        SetNumberOrNull(row, "error_" + b.name, b.rms);
    }
    row.Set("resamples", static_cast<uint64_t>(resamples));
    row.Set("form", form);
    std::string joined;
    for (const auto& d : diagnostics)
    {
        joined += (joined.empty() ? "" : "; ") + d;
    }
    row.Set("diagnostics", joined);
    return row;
}

} // namespace ns3
