// SPDX-License-Identifier: GPL-2.0-only
//
// `mpirun -np N hockney compare --backends=packet` (doc/collective.md, "Past
// one machine: MPI"): what a packet run split over MPI ranks could not
// reproduce exactly, found before anything runs, from the schedule, the
// partition of the fabric (fabric.partition) and the executor's attributes.
#ifndef HOCKNEY_COMPARISON_MPI_H
#define HOCKNEY_COMPARISON_MPI_H

#include "collective-comparison.h"

#include <cstdint>
#include <string>

namespace ns3
{

/// The partition of \p config's packet fabric over \p mpiRanks ranks
/// (TopologyPartition::Describe) and, for the first size whose schedule has
/// one, the op that waits across MPI ranks
/// (CollectiveExecutor::FindCrossRankDependency; "" when none has). Throws
/// InputError naming the field for a bad configuration or partition (pod
/// with fewer pods than ranks, an incomplete rank map).
struct PartitionedComparisonCheck
{
    std::string partition;
    std::string problem;
};
PartitionedComparisonCheck CheckPartitionedComparison(const ComparisonConfig& config, uint32_t mpiRanks);

} // namespace ns3

#endif
