// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithm-registry.h"

#include "input-error.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The entries, created on first use so that the registrations of the family
/// files may run in any order. unique_ptr keeps the pointers handed out stable.
std::vector<std::unique_ptr<CollectiveAlgorithm>>&
Entries()
{
    static std::vector<std::unique_ptr<CollectiveAlgorithm>> entries;
    return entries;
}

bool
Serves(const CollectiveAlgorithm& a, CollectiveKind kind)
{
    return std::find(a.collectives.begin(), a.collectives.end(), kind) != a.collectives.end();
}

bool
Answers(const CollectiveAlgorithm& a, const std::string& normalized)
{
    return a.name == normalized || std::find(a.aliases.begin(), a.aliases.end(), normalized) != a.aliases.end();
}

bool
ByOrder(const CollectiveAlgorithm* x, const CollectiveAlgorithm* y)
{
    return x->order != y->order ? x->order < y->order : x->name < y->name;
}

} // namespace

std::string
NormalizeAlgorithmName(const std::string& name)
{
    std::string out;
    for (char c : name)
    {
        if (c != '_' && c != ' ')
        {
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

void
CollectiveAlgorithmRegistry::Register(CollectiveAlgorithm algorithm)
{
    const std::string what = "collective algorithm '" + algorithm.name + "'";
    if (algorithm.name.empty() || algorithm.name != NormalizeAlgorithmName(algorithm.name) ||
        algorithm.collectives.empty() || !algorithm.minimumBytes || !algorithm.build || !algorithm.criticalPath)
    {
        throw std::logic_error(what + ": needs a normalized name, collectives, minimumBytes, build and criticalPath");
    }
    for (std::string& alias : algorithm.aliases)
    {
        alias = NormalizeAlgorithmName(alias);
    }
    for (CollectiveKind kind : algorithm.collectives)
    {
        for (const std::string& n : algorithm.aliases)
        {
            if (Find(kind, n) || n == algorithm.name)
            {
                throw std::logic_error(what + ": alias '" + n + "' is taken for " + ToString(kind));
            }
        }
        if (Find(kind, algorithm.name))
        {
            throw std::logic_error(what + ": the name is taken for " + ToString(kind));
        }
    }
    Entries().push_back(std::make_unique<CollectiveAlgorithm>(std::move(algorithm)));
}

const CollectiveAlgorithm*
CollectiveAlgorithmRegistry::Find(CollectiveKind kind, const std::string& name)
{
    const std::string n = NormalizeAlgorithmName(name);
    for (const auto& a : Entries())
    {
        if (Serves(*a, kind) && Answers(*a, n))
        {
            return a.get();
        }
    }
    return nullptr;
}

const CollectiveAlgorithm&
CollectiveAlgorithmRegistry::Get(CollectiveKind kind, const std::string& name, const std::string& field)
{
    if (const CollectiveAlgorithm* a = Find(kind, name))
    {
        return *a;
    }
    std::string list;
    for (const CollectiveAlgorithm* a : Of(kind))
    {
        list += (list.empty() ? "" : ", ") + a->name;
    }
    throw InputError(field, "expected an algorithm of " + ToString(kind) + " (" + list + "), got '" + name + "'");
}

std::vector<const CollectiveAlgorithm*>
CollectiveAlgorithmRegistry::Of(CollectiveKind kind)
{
    std::vector<const CollectiveAlgorithm*> out;
    for (const auto& a : Entries())
    {
        if (Serves(*a, kind))
        {
            out.push_back(a.get());
        }
    }
    std::sort(out.begin(), out.end(), ByOrder);
    return out;
}

std::vector<const CollectiveAlgorithm*>
CollectiveAlgorithmRegistry::All()
{
    std::vector<const CollectiveAlgorithm*> out;
    for (const auto& a : Entries())
    {
        out.push_back(a.get());
    }
    std::sort(out.begin(), out.end(), ByOrder);
    return out;
}

CollectiveAlgorithmRegistration::CollectiveAlgorithmRegistration(CollectiveAlgorithm algorithm)
{
    CollectiveAlgorithmRegistry::Register(std::move(algorithm));
}

uint64_t
PipelinePieces(const CollectiveSpec& spec)
{
    return static_cast<uint64_t>(spec.channels) * spec.slices;
}

uint32_t
PipelineDepth(const CollectiveSpec& spec, double bytes)
{
    const CollectiveAlgorithm& algorithm =
        CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "--algorithm");
    return algorithm.pipelineDepth ? algorithm.pipelineDepth(spec, bytes) : spec.slices;
}

std::vector<CriticalStep>
EqualSteps(uint32_t count, uint32_t level, double bytes)
{
    return std::vector<CriticalStep>(count, CriticalStep{level, bytes});
}

} // namespace ns3
