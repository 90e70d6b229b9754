// SPDX-License-Identifier: GPL-2.0-only
#include "measurement-sample.h"

#include "collective-closed-form.h"
#include "input-error.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ns3
{

std::string
MeasurementSample::Where() const
{
    return file + ":" + std::to_string(line);
}

bool
MeasurementSource::SingleProcess() const
{
    return gpusPerThread > 1 || threads > 1 || (ranks > 1 && processes > 0 && processes < ranks);
}

void
MeasurementSet::Append(const MeasurementSet& other)
{
    size_t offset = sources.size();
    for (auto s : other.samples)
    {
        s.source += offset;
        samples.push_back(s);
    }
    sources.insert(sources.end(), other.sources.begin(), other.sources.end());
}

std::string
NormalizeCollectiveName(const std::string& name)
{
    std::string s;
    for (char c : name)
    {
        if (c != '_' && c != '-' && c != ' ')
        {
            s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    const std::string suffix = "perf";
    if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    {
        s.erase(s.size() - suffix.size());
    }
    static const char* kKnown[] = {"allreduce",
                                   "allgather",
                                   "reducescatter",
                                   "alltoall",
                                   "broadcast",
                                   "reduce",
                                   "sendrecv",
                                   "p2p"};
    for (const char* k : kKnown)
    {
        if (s == k)
        {
            return s;
        }
    }
    if (s == "bcast")
    {
        return "broadcast";
    }
    return "";
}

double
BusBwFactor(const std::string& collective, uint32_t ranks)
{
    double n = ranks;
    if (collective == "allreduce")
    {
        return 2.0 * (n - 1) / n;
    }
    if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall")
    {
        return (n - 1) / n;
    }
    return 1.0;
}

RingSteps
CollectiveRingSteps(const std::string& collective, uint32_t ranks, const std::string& field)
{
    RingSteps r;
    if (collective == "sendrecv" || collective == "p2p")
    {
        return r; // one message of S bytes
    }
    if (NormalizeCollectiveName(collective) != collective || collective.empty())
    {
        throw InputError(field,
                         "expected allreduce, allgather, reducescatter, alltoall, broadcast, reduce, "
                         "sendrecv or p2p, got '" +
                             collective + "'");
    }
    if (ranks < 2)
    {
        throw InputError(field,
                         "expected the number of ranks of the " + collective +
                             " (>= 2; give --ranks when the log has no rank lines), got " +
                             std::to_string(ranks));
    }
    // compare has no reduce: it is broadcast's chain run backwards, same steps.
    CollectiveSpec spec;
    spec.collective = ParseCollectiveKind(collective == "reduce" ? "broadcast" : collective, field);
    spec.algorithm = AlgorithmsOf(spec.collective).front();
    spec.ranks = ranks;
    const double nominal = 1e12; // any size: the path's bytes are proportional to it
    spec.bytes = static_cast<uint64_t>(nominal);
    auto path = CriticalPath(spec);
    if (path.empty())
    {
        throw InputError(field, "expected a collective with a critical path, got '" + collective + "'");
    }
    for (const auto& step : path)
    {
        if (step.bytes != path.front().bytes || step.level != 0)
        {
            throw InputError(field, "expected equal steps on one level for " + collective + " (" +
                                        spec.algorithm + ")");
        }
    }
    r.steps = static_cast<double>(path.size());
    r.bytesPerStep = path.front().bytes / nominal;
    r.busbwFactor = BusBwFactor(collective, ranks);
    return r;
}

namespace
{

// N from the ratio r = busbw / algbw; NaN outside the collective's range.
double
RanksFromRatio(const std::string& collective, double r)
{
    if (collective == "allreduce")
    {
        return r < 2.0 ? 2.0 / (2.0 - r) : INFINITY; // r = 2(N-1)/N
    }
    if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall")
    {
        return r < 1.0 ? 1.0 / (1.0 - r) : INFINITY; // r = (N-1)/N
    }
    return NAN;
}

} // namespace

uint32_t
InferRanksFromBandwidths(const std::string& collective, double algbwBps, double busbwBps, double halfUlpBps)
{
    if (!(algbwBps > halfUlpBps) || !(busbwBps > halfUlpBps))
    {
        return 0;
    }
    // The printed values are rounded; the true ratio lies between these bounds,
    // and N grows with the ratio, so N lies between their images.
    double lo = RanksFromRatio(collective, (busbwBps - halfUlpBps) / (algbwBps + halfUlpBps));
    double hi = RanksFromRatio(collective, (busbwBps + halfUlpBps) / (algbwBps - halfUlpBps));
    if (std::isnan(lo) || std::isnan(hi))
    {
        return 0;
    }
    double first = std::ceil(std::max(lo, 2.0));
    if (!(first <= hi) || first + 1 <= hi)
    {
        return 0; // no integer, or more than one, fits the printed digits
    }
    return static_cast<uint32_t>(first);
}

void
ResolveCollectiveAndRanks(MeasurementSource& src, std::vector<MeasurementSample>& samples)
{
    if (src.collective.empty())
    {
        src.collective = NormalizeCollectiveName(src.test);
    }
    // The largest-bandwidth row has the most significant digits in busbw / algbw.
    const MeasurementSample* best = nullptr;
    for (const auto& s : samples)
    {
        if (s.algbwBps > 0 && s.busbwBps > 0 && (!best || s.algbwBps > best->algbwBps))
        {
            best = &s;
        }
    }
    if (src.collective.empty() && best)
    {
        // Only allreduce has busbw > algbw (factor 2(N-1)/N > 1 for N > 2).
        double ratio = best->busbwBps / best->algbwBps;
        if (ratio > 1.0 + 0.005 / (best->algbwBps / 1e9))
        {
            src.collective = "allreduce";
            src.collectiveInferred = true;
            src.notes.push_back(src.file + ":" + std::to_string(src.firstLine) +
                                ": no test name; busbw > algbw, so the collective is allreduce");
        }
    }
    if (best && !src.collective.empty())
    {
        uint32_t n =
            InferRanksFromBandwidths(src.collective, best->algbwBps, best->busbwBps, 0.005e9);
        if (src.ranks == 0 && n > 0)
        {
            src.ranks = n;
            src.ranksInferred = true;
            src.notes.push_back(best->Where() + ": no rank lines; busbw / algbw gives " +
                                std::to_string(n) + " ranks");
        }
        else if (src.ranks > 0 && n > 0 && n != src.ranks)
        {
            src.notes.push_back(best->Where() + ": busbw / algbw implies " + std::to_string(n) +
                                " ranks but the header lists " + std::to_string(src.ranks));
        }
    }
    for (auto& s : samples)
    {
        if (s.collective.empty())
        {
            s.collective = src.collective;
        }
        if (s.ranks == 0)
        {
            s.ranks = src.ranks;
        }
    }
}

} // namespace ns3
