// SPDX-License-Identifier: GPL-2.0-only
#include "published-fidelity.h"

#include "accuracy-metric.h"
#include "collective-comparison.h"
#include "units.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

constexpr uint64_t kKB = 1000;
constexpr uint64_t kMB = 1000 * kKB;

/// issue 15's goals, as the largest symmetric error of the packet level.
constexpr double kNvswitchRingGoal = 0.05; // 8 x H100 NVSwitch ring, >= 64 MB
constexpr double kMultiNodeGoal = 0.10;    // multi-node curves, >= 1 MB
constexpr double kSmallGoal = 0.15;        // every curve, < 1 MB

std::string
SizesText(const std::vector<FidelityPoint>& points)
{
    std::set<uint64_t> sizes;
    for (const FidelityPoint& p : points)
    {
        sizes.insert(p.bytes);
    }
    std::string out;
    for (uint64_t b : sizes)
    {
        out += (out.empty() ? "" : ", ") + units::FormatBytes(b);
    }
    return out.empty() ? "-" : out;
}

/// The median symmetric error of the points of \p band, none without points.
std::optional<double>
BandMedian(const std::vector<FidelityPoint>& points, const std::string& band, std::vector<FidelityPoint>& in)
{
    std::vector<double> errors;
    for (const FidelityPoint& p : points)
    {
        if (FidelityBand(p.bytes) == band)
        {
            errors.push_back(SymmetricError(p.predictedSeconds, p.measuredSeconds));
            in.push_back(p);
        }
    }
    if (errors.empty())
    {
        return std::nullopt;
    }
    return MedianOf(errors);
}

void
SetOptional(ResultRow& r, const std::string& key, std::optional<double> v)
{
    if (v)
    {
        r.Set(key, *v);
    }
    else
    {
        r.SetNull(key);
    }
}

/// The points of \p rows (a RunComparison answer) with a time, against \p measured.
std::vector<FidelityPoint>
PointsOf(const std::vector<ResultRow>& rows, const std::map<uint64_t, double>& measured)
{
    std::vector<FidelityPoint> out;
    for (const ResultRow& r : rows)
    {
        if (!r.Has("time_s") || std::holds_alternative<std::monostate>(r.Get("time_s")))
        {
            continue;
        }
        const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
        const std::string ran =
            r.Has("protocol") ? r.GetString("algorithm") + "/" + r.GetString("protocol") : std::string();
        out.push_back({bytes, measured.at(bytes), r.GetDouble("time_s"), ran});
    }
    return out;
}

/// One answer (the packet level, or the calibrated closed form) of \p c; a
/// packet run stopped at its wall limit or unfinished keeps the points it
/// has and is named in \p note; an interrupt propagates.
std::vector<FidelityPoint>
Answer(const ComparisonConfig& c,
       const std::map<uint64_t, double>& measured,
       const std::string& what,
       std::ostringstream& note,
       const std::function<void(const std::string&)>& progress)
{
    try
    {
        return PointsOf(RunComparison(c, progress), measured);
    }
    catch (const PacketRunStopped& stopped)
    {
        if (stopped.Kind() == PacketStop::INTERRUPT)
        {
            throw;
        }
        note << what << " stopped: " << stopped.what() << ". ";
        return PointsOf(stopped.Rows(), measured);
    }
    catch (const std::exception& ex)
    {
        note << what << " not run: " << ex.what() << ". ";
    }
    return {};
}

/// The packet and calibrated answers of one case's fidelity model.
std::vector<ResultRow>
RunCurve(const PublishedCase& pc,
         const std::string& measuredDir,
         Time wallLimit,
         bool forceMemory,
         const std::function<void(const std::string&)>& progress)
{
    ResultRow base;
    base.Set("curve", pc.name).Set("measurement", pc.measurement).Set("topology", pc.topology);
    const std::string path = measuredDir + "/" + pc.measurement;
    if (!std::filesystem::exists(path))
    {
        return FidelityRows(base.Set("model", pc.fidelity.model), pc.fidelity.goal, {}, {}, "log absent");
    }
    const std::map<uint64_t, double> measured = PublishedMeasuredTimes(path, pc.collective);
    const PublishedModel* pm = nullptr;
    for (const PublishedModel& m : pc.models)
    {
        pm = m.label == pc.fidelity.model ? &m : pm;
    }
    // The row says when the model runs NCCL's slots (off on every shipped case).
    const std::string slots = pm->netSlots > 0 ? ", NCCL slots " + std::to_string(pm->netSlots) : "";
    base.Set("model", pm->label + " (" + pm->algorithm + slots + ")");
    ComparisonConfig c = PublishedModelConfig(pc, *pm, measured);
    std::ostringstream note;
    std::vector<uint64_t> sizes;
    for (uint64_t b : pc.fidelity.sizes)
    {
        if (std::find(c.sizes.begin(), c.sizes.end(), b) != c.sizes.end())
        {
            sizes.push_back(b);
        }
        else
        {
            note << units::FormatBytes(b) << " not measured (or too small to cut). ";
        }
    }
    c.sizes = sizes;
    if (sizes.empty())
    {
        return FidelityRows(base, pc.fidelity.goal, {}, {}, note.str());
    }
    if (progress)
    {
        progress("fidelity: " + pc.name + ", " + pm->label + " at " + std::to_string(sizes.size()) + " sizes");
    }
    ComparisonConfig packet = c;
    packet.sizes.clear();
    for (uint64_t b : c.sizes)
    {
        if (b <= pc.fidelity.packetUpTo)
        {
            packet.sizes.push_back(b);
        }
    }
    packet.backends = {"packet"};
    packet.params = {"derived"};
    packet.fabric.wallLimit = wallLimit;
    packet.fabric.forceMemory = forceMemory;
    const std::vector<FidelityPoint> packetPoints =
        packet.sizes.empty() ? std::vector<FidelityPoint>{} : Answer(packet, measured, "packet", note, progress);
    ComparisonConfig calibrated = c;
    calibrated.backends = {"closed"};
    calibrated.params = {"calibrated"};
    calibrated.fabric.wallLimit = wallLimit;
    const std::vector<FidelityPoint> calibratedPoints =
        Answer(calibrated, measured, "calibration", note, progress);
    // NCCL's choice (algorithm "auto", protocol "auto") differs by size:
    // the note names what ran, so that a cell can be read against the log.
    std::string ran;
    for (const FidelityPoint& p : packetPoints.empty() ? calibratedPoints : packetPoints)
    {
        ran += p.ran.empty() ? "" : (ran.empty() ? "" : ", ") + units::FormatBytes(p.bytes) + " " + p.ran;
    }
    if (!ran.empty())
    {
        note << "ran: " << ran << ". ";
    }
    return FidelityRows(base, pc.fidelity.goal, packetPoints, calibratedPoints, note.str());
}

} // namespace

const std::vector<std::string>&
FidelityBands()
{
    static const std::vector<std::string> bands = {"<64KB", "64KB-1MB", "1MB-64MB", ">=64MB"};
    return bands;
}

std::string
FidelityBand(uint64_t bytes)
{
    const auto& b = FidelityBands();
    return bytes < 64 * kKB ? b[0] : bytes < kMB ? b[1] : bytes < 64 * kMB ? b[2] : b[3];
}

std::optional<double>
FidelityGoal(const std::string& goal, const std::string& band)
{
    const auto& b = FidelityBands();
    if (band == b[0] || band == b[1])
    {
        return kSmallGoal;
    }
    if (goal == "multi-node")
    {
        return kMultiNodeGoal;
    }
    if (goal == "nvswitch-ring" && band == b[3])
    {
        return kNvswitchRingGoal;
    }
    return std::nullopt;
}

std::string
FidelityVerdict(std::optional<double> median, std::optional<double> goal)
{
    if (!goal)
    {
        return "no goal";
    }
    if (!median)
    {
        return "not run";
    }
    return *median <= *goal ? "pass" : "fail";
}

std::vector<ResultRow>
FidelityRows(const ResultRow& base,
             const std::string& goal,
             const std::vector<FidelityPoint>& packet,
             const std::vector<FidelityPoint>& calibrated,
             const std::string& note)
{
    std::vector<ResultRow> rows;
    for (const std::string& band : FidelityBands())
    {
        ResultRow r = base;
        std::vector<FidelityPoint> packetIn, calibratedIn;
        const std::optional<double> p = BandMedian(packet, band, packetIn);
        const std::optional<double> c = BandMedian(calibrated, band, calibratedIn);
        const std::optional<double> g = FidelityGoal(goal, band);
        r.Set("band", band).Set("sizes", SizesText(packetIn.empty() ? calibratedIn : packetIn));
        r.Set("packet_points", static_cast<uint64_t>(packetIn.size()));
        SetOptional(r, "packet_median_sym_error", p);
        r.Set("calibrated_points", static_cast<uint64_t>(calibratedIn.size()));
        SetOptional(r, "calibrated_median_sym_error", c);
        SetOptional(r, "goal_max_sym_error", g);
        // A band without any point has no measured size run (the log does
        // not reach it, or the case names none): not a packet run left out.
        r.Set("verdict", !p && !c && g ? "no points" : FidelityVerdict(p, g));
        r.Set("note", note);
        rows.push_back(r);
    }
    return rows;
}

std::vector<ResultRow>
RunFidelityTable(const std::vector<PublishedCase>& cases,
                 const std::string& measuredDir,
                 Time wallLimit,
                 bool forceMemory,
                 std::function<void(const std::string&)> progress)
{
    std::vector<ResultRow> rows;
    std::set<std::string> named;
    for (const PublishedCase& pc : cases)
    {
        named.insert(std::filesystem::path(pc.measurement).lexically_normal().string());
        if (!pc.fidelity.present)
        {
            continue;
        }
        auto more = RunCurve(pc, measuredDir, wallLimit, forceMemory, progress);
        rows.insert(rows.end(), more.begin(), more.end());
    }
    // The logs no case compares with: listed, so that the table covers every
    // curve the project holds and says which ones it does not judge.
    const std::filesystem::path raw = std::filesystem::path(measuredDir) / "raw";
    if (std::filesystem::is_directory(raw))
    {
        std::set<std::string> logs;
        for (const auto& e : std::filesystem::directory_iterator(raw))
        {
            logs.insert("raw/" + e.path().filename().string());
        }
        for (const std::string& log : logs)
        {
            if (named.count(log))
            {
                continue;
            }
            ResultRow r;
            r.Set("curve", log).Set("measurement", log).Set("topology", "-").Set("model", "-");
            r.Set("band", "all").Set("sizes", "-").Set("packet_points", uint64_t{0});
            r.SetNull("packet_median_sym_error").Set("calibrated_points", uint64_t{0});
            r.SetNull("calibrated_median_sym_error").SetNull("goal_max_sym_error");
            r.Set("verdict", "not compared").Set("note", "no case in published-cases.json names this log");
            rows.push_back(r);
        }
    }
    return rows;
}

} // namespace ns3
