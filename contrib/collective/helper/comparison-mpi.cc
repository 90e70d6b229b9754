// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-mpi.h"

#include "attribute-defaults.h"
#include "collective-executor.h"
#include "comparison-backend.h"
#include "comparison-point.h"
#include "topology-partition.h"

#include "ns3/simulator.h"

#include <vector>

namespace ns3
{

PartitionedComparisonCheck
CheckPartitionedComparison(const ComparisonConfig& c, uint32_t mpiRanks)
{
    // The executor's attributes (--ns3::CollectiveExecutor::...) as the run
    // would see them.
    const ScopedAttributeDefaults attributes(c.attributes);
    const ComparisonSetup setup(c, {});
    PartitionedComparisonCheck check;
    if (!setup.graph)
    {
        return check;
    }
    const TopologyGraph& g = *setup.graph;
    const TopologyPartition p =
        PartitionTopology(g, mpiRanks, c.fabric.partition, c.FieldName("fabric.partition", "--partition"));
    check.partition = p.Describe();
    for (uint64_t bytes : c.sizes)
    {
        const ComparisonPoint pt = BuildPoint(setup, bytes);
        std::vector<uint32_t> owner(pt.schedule.GetRanks());
        for (uint32_t gpu = 0; gpu < owner.size(); ++gpu)
        {
            owner[gpu] = p.owner[g.EndpointNode(gpu)];
        }
        Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
        ApplyEndpoint(exec, pt);
        check.problem = exec->FindCrossRankDependency(pt.schedule, owner);
        if (!check.problem.empty())
        {
            check.problem = std::to_string(bytes) + " B: " + check.problem;
            break;
        }
    }
    Simulator::Destroy();
    return check;
}

} // namespace ns3
