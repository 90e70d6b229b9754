// SPDX-License-Identifier: GPL-2.0-only
//
// The registry of collective algorithms: everything the library knows about
// one algorithm (its names, the collectives it serves, the smallest size it
// can cut, its schedule and its closed-form critical path) is one entry, and
// the public functions of collective-algorithms.h and collective-closed-form.h
// (AlgorithmsOf, CanonicalAlgorithm, MinimumBytes, CollectiveSpec::Validate,
// BuildSchedule, CriticalPath) are thin wrappers that look the entry up. An
// algorithm a collective does not have is an InputError listing the ones it
// has, wherever the name is used.
//
// Adding a collective algorithm: one new file plus its test, no other source
// file changes (contrib/collective/doc/collective.md, "Adding a collective
// algorithm", has a worked example).
//  1. contrib/collective/model/collective-algorithm-NAME.cc: the schedule
//     builder of one channel (collective-algorithm-blocks.h has the ring pass
//     and the reduction set-up the existing families share), the critical
//     path (the message of one slice at each step of the longest chain;
//     EqualSteps for equal steps), the minimum bytes, and at namespace scope
//         const CollectiveAlgorithmRegistration kNameRegistration(Name());
//     where Name() fills a CollectiveAlgorithm (collective-algorithm-incast.cc
//     is the smallest example).
//  2. Re-run `cmake -S . -B build` (the module's sources are globbed). The
//     CLI's --algorithm, scenario files and every compare backend accept it.
//  3. collective-algorithm-registry-test.cc covers it without edits (critical
//     path equal to the executed schedule on the contention-free channel,
//     minimum bytes tight); its own test
//     contrib/collective/test/collective-algorithm-NAME-test.cc writes its
//     closed form out by hand, like collective-handform-test.cc.
//
// Why self-registration rather than a list: the entries live in the shared
// library hockney-collective, which is linked as a whole (a static archive
// would drop an object file nothing references, and with it its registration
// object; cmake/hockney-module.cmake builds modules SHARED for the same reason
// ns-3's NS_OBJECT_ENSURE_REGISTERED needs it). So a new file is enough, and
// no central list can drift from the files. The price: the registry is filled
// while the library's static objects are constructed, so nothing may query it
// from a static initializer; the storage is a function-local static, so the
// order in which the files register does not matter (AlgorithmsOf sorts by
// CollectiveAlgorithm::order). The registry test checks that every family is
// present.
#ifndef HOCKNEY_COLLECTIVE_ALGORITHM_REGISTRY_H
#define HOCKNEY_COLLECTIVE_ALGORITHM_REGISTRY_H

#include "collective-algorithms.h"
#include "collective-schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// One step of a critical path: a message of `bytes` (one slice of one
/// channel) on `level` (0 inside a node, 1 across nodes: only algorithms that
/// place ranks by node, CollectiveAlgorithm::usesNodes, or by the topology's
/// servers, CollectiveSpec::placement).
struct CriticalStep
{
    uint32_t level = 0;
    double bytes = 0;
    /// The step belongs to the pipeline stage of the step before it (a stage
    /// holds one piece at a time: the hierarchical phases); false: the step
    /// is a stage of its own (the slices of a ring follow each other step by step).
    bool sameStage = false;
    /// Through a PXN proxy (ScheduleOp::proxy): a leg inside the node
    /// (level 0) alongside the leg on `level`; the executor runs both at
    /// once, so the step takes the longer of the two.
    bool relayed = false;
    /// The busiest port this step's stage uses carries `load` x `bytes` per
    /// piece once the pipeline is full: the other channels' and stages'
    /// messages through the same port (channels sharing a GPU's port into a
    /// reducing switch; an interior tree node's NIC receiving from two
    /// children while it forwards down). 1: the step has its port alone. The
    /// fill (the first piece) is priced without it; the pipeline's slowest
    /// stage with it (ClosedFormTime, PortLoads::CHARGED: T(load x bytes)
    /// inside a node, load x T(bytes) across nodes, where each piece is a
    /// message with its own latency). A contention-free
    /// channel shares no port, so its executor reproduces the path with the
    /// loads ignored.
    double load = 1.0;
};

/// One algorithm. The functions receive a spec that passed Validate() (the
/// critical path: one whose algorithm resolved to this entry).
struct CollectiveAlgorithm
{
    /// Canonical name, as --algorithm takes it and outputs print it.
    std::string name;
    /// Other spellings accepted by CanonicalAlgorithm (compared after
    /// NormalizeAlgorithmName), e.g. "rabenseifner" for "rhd".
    std::vector<std::string> aliases;
    /// The collectives it serves; name and aliases are unique per collective.
    std::vector<CollectiveKind> collectives;
    /// Position in AlgorithmsOf (lowest first; the first is the collective's default).
    int order = 0;
    /// True if it places ranks by node (CollectiveSpec::gpusPerNode) and its
    /// critical path puts the messages that cross nodes on level 1.
    bool usesNodes = false;
    /// Smallest spec.bytes for which none of its messages is empty.
    std::function<uint64_t(const CollectiveSpec& spec)> minimumBytes;
    /// The schedule of one channel carrying \p bytes (spec.slices pipelined).
    std::function<CollectiveSchedule(const CollectiveSpec& spec, uint64_t bytes)> build;
    /// The critical path of one channel of \p bytes: the message of one slice
    /// at each step of the longest chain (the closed form prices it).
    std::function<std::vector<CriticalStep>(const CollectiveSpec& spec, double bytes)> criticalPath;
    /// Optional: the pieces that follow each other through the critical path
    /// of one channel of \p bytes (default: spec.slices).
    std::function<uint32_t(const CollectiveSpec& spec, double bytes)> pipelineDepth;
    /// Optional checks of its own beyond CollectiveSpec::Validate (InputError).
    std::function<void(const CollectiveSpec& spec)> validate;
};

/// Lower case without '_' and ' ' ("All_Reduce" -> "allreduce"): how names
/// of collectives and algorithms are compared.
std::string NormalizeAlgorithmName(const std::string& name);

class CollectiveAlgorithmRegistry
{
  public:
    /// Adds \p algorithm; throws std::logic_error (a programming error, not
    /// input) if a function is missing or a name or alias is already taken
    /// for one of its collectives.
    static void Register(CollectiveAlgorithm algorithm);
    /// The algorithm of \p kind called \p name (canonical or alias), nullptr if none.
    static const CollectiveAlgorithm* Find(CollectiveKind kind, const std::string& name);
    /// The same, throwing InputError naming \p field and listing the
    /// algorithms of \p kind if there is none.
    static const CollectiveAlgorithm& Get(CollectiveKind kind, const std::string& name, const std::string& field);
    /// The algorithms serving \p kind, by order.
    static std::vector<const CollectiveAlgorithm*> Of(CollectiveKind kind);
    /// Every registered algorithm, by order then name.
    static std::vector<const CollectiveAlgorithm*> All();
};

/// Registers its algorithm when constructed: one object at namespace scope in
/// each family's file.
struct CollectiveAlgorithmRegistration
{
    explicit CollectiveAlgorithmRegistration(CollectiveAlgorithm algorithm);
};

/// channels x slices: the pieces a spec's bytes are cut into before an
/// algorithm divides them further (the minimum bytes are a multiple of it).
uint64_t PipelinePieces(const CollectiveSpec& spec);

/// The pieces pipelined through the critical path of one channel of \p bytes
/// of \p spec (its algorithm's pipelineDepth, else spec.slices).
uint32_t PipelineDepth(const CollectiveSpec& spec, double bytes);

/// A critical path of \p count equal steps of \p bytes on \p level.
std::vector<CriticalStep> EqualSteps(uint32_t count, uint32_t level, double bytes);

} // namespace ns3

#endif
