// SPDX-License-Identifier: GPL-2.0-only
//
// The public face of the algorithms: names of collectives, the checks of a
// spec, and BuildSchedule's split over channels. Everything that depends on
// the algorithm is its entry in the registry (collective-algorithm-registry.h),
// one file per family (collective-algorithm-*.cc).
#include "collective-algorithms.h"

#include "collective-algorithm-registry.h"
#include "input-error.h"

#include <stdexcept>

namespace ns3
{

std::vector<uint64_t>
collective::SplitBytes(uint64_t total, uint32_t parts)
{
    std::vector<uint64_t> out(parts, parts ? total / parts : 0);
    for (uint32_t i = 0; parts && i < total % parts; ++i)
    {
        ++out[i];
    }
    return out;
}

std::string
ToString(CollectiveKind kind)
{
    switch (kind)
    {
    case CollectiveKind::ALL_REDUCE:
        return "allreduce";
    case CollectiveKind::ALL_GATHER:
        return "allgather";
    case CollectiveKind::REDUCE_SCATTER:
        return "reducescatter";
    case CollectiveKind::BROADCAST:
        return "broadcast";
    case CollectiveKind::ALL_TO_ALL:
        return "alltoall";
    case CollectiveKind::INCAST:
        return "incast";
    }
    return "?";
}

CollectiveKind
ParseCollectiveKind(const std::string& text, const std::string& field)
{
    const std::string t = NormalizeAlgorithmName(text);
    for (CollectiveKind k : {CollectiveKind::ALL_REDUCE,
                             CollectiveKind::ALL_GATHER,
                             CollectiveKind::REDUCE_SCATTER,
                             CollectiveKind::BROADCAST,
                             CollectiveKind::ALL_TO_ALL,
                             CollectiveKind::INCAST})
    {
        if (t == ToString(k))
        {
            return k;
        }
    }
    throw InputError(field,
                     "expected allreduce, allgather, reducescatter, broadcast, alltoall or incast, got '" +
                         text + "'");
}

std::vector<std::string>
AlgorithmsOf(CollectiveKind kind)
{
    std::vector<std::string> names;
    for (const CollectiveAlgorithm* a : CollectiveAlgorithmRegistry::Of(kind))
    {
        names.push_back(a->name);
    }
    return names;
}

std::string
CanonicalAlgorithm(CollectiveKind kind, const std::string& algorithm, const std::string& field)
{
    return CollectiveAlgorithmRegistry::Get(kind, algorithm, field).name;
}

uint64_t
MinimumBytes(const CollectiveSpec& spec)
{
    return CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "--algorithm").minimumBytes(spec);
}

uint32_t
RankPlacement::RankOn(uint32_t s, uint32_t r) const
{
    for (uint32_t k = 0; k < server.size(); ++k)
    {
        if (server[k] == s && rail[k] == r)
        {
            return k;
        }
    }
    throw std::logic_error("RankPlacement: no rank of server " + std::to_string(s) + " on rail " +
                           std::to_string(r));
}

uint32_t
CollectiveSpec::Nodes() const
{
    return gpusPerNode > 0 ? ranks / gpusPerNode : 1;
}

uint32_t
CollectiveSpec::LocalRanks() const
{
    return gpusPerNode > 0 ? gpusPerNode : ranks;
}

void
CollectiveSpec::Validate() const
{
    if (ranks < 2)
    {
        throw InputError("--ranks", "expected at least 2 ranks, got " + std::to_string(ranks));
    }
    if (channels == 0)
    {
        throw InputError("--channels", "expected at least 1 channel");
    }
    if (slices == 0)
    {
        throw InputError("--slices", "expected at least 1 slice");
    }
    if (!placement.Empty() && placement.server.size() != ranks)
    {
        throw std::logic_error("CollectiveSpec: a placement of " + std::to_string(placement.server.size()) +
                               " ranks for " + std::to_string(ranks) + " ranks");
    }
    if (root >= ranks)
    {
        throw InputError("--root", "expected a rank below " + std::to_string(ranks) + ", got " +
                                       std::to_string(root));
    }
    const CollectiveAlgorithm& entry = CollectiveAlgorithmRegistry::Get(collective, algorithm, "--algorithm");
    if (entry.name != algorithm)
    {
        throw InputError("--algorithm", "expected the canonical name '" + entry.name + "', got '" +
                                            algorithm + "'");
    }
    if (entry.validate)
    {
        entry.validate(*this);
    }
    const uint64_t minimum = entry.minimumBytes(*this);
    if (bytes < minimum)
    {
        throw InputError("--bytes", "expected at least " + std::to_string(minimum) + " bytes for " +
                                        ToString(collective) + " " + algorithm + " on " +
                                        std::to_string(ranks) + " ranks with " +
                                        std::to_string(channels) + " channel(s) x " +
                                        std::to_string(slices) + " slice(s), got " +
                                        std::to_string(bytes));
    }
}

uint32_t
collective::LargestPowerOfTwoAtMost(uint32_t n)
{
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    return p;
}

uint32_t
collective::CeilLog2(uint32_t n)
{
    uint32_t k = 0;
    while ((1u << k) < n)
    {
        ++k;
    }
    return k;
}

CollectiveSchedule
BuildSchedule(const CollectiveSpec& spec)
{
    spec.Validate();
    const CollectiveAlgorithm& algorithm = CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "--algorithm");
    std::vector<uint64_t> perChannel = collective::SplitBytes(spec.bytes, spec.channels);
    CollectiveSchedule all;
    for (uint32_t c = 0; c < spec.channels; ++c)
    {
        CollectiveSpec channel = spec;
        channel.channel = c;
        CollectiveSchedule one = algorithm.build(channel, perChannel[c]);
        if (c == 0)
        {
            all = one;
        }
        else
        {
            all.Append(one);
        }
    }
    return all;
}

} // namespace ns3
