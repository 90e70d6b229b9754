// SPDX-License-Identifier: GPL-2.0-only
//
// Whether a launcher (mpirun, Slurm's srun) started this process as a rank
// of an MPI job, and the start of ns-3's distributed simulator for a
// synchronisation name: one place for the CLI (cli/mpi-world.cc), the
// partitioned-fabric example (examples/fabric-distributed.cc) and the
// synchronisation benchmark (benchmarks/mpi/mpi-sync-bench.cc). Header-only,
// so that the benchmark, which links no hockney library, can use it too.
#ifndef HOCKNEY_MPI_LAUNCH_H
#define HOCKNEY_MPI_LAUNCH_H

#include <cstdlib>
#include <string>

#ifdef NS3_MPI
#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/string.h"
#endif

namespace hockney
{

/// True if an environment variable says a launcher started this process as
/// a rank of a job (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, PMI's
/// PMI_SIZE).
inline bool
MpiLaunched()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_SIZE");
}

/// The job's size as the launcher says it (OMPI_COMM_WORLD_SIZE, else
/// PMI_SIZE); 0 when only PMIx says this is a rank (the size is then MPI's
/// to say), 1 outside a job.
inline int
MpiLaunchedSize()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        if (const char* v = std::getenv(name))
        {
            return std::atoi(v);
        }
    }
    return std::getenv("PMIX_RANK") ? 0 : 1;
}

#ifdef NS3_MPI
/// Chooses ns-3's distributed simulator for \p sync ("nullmsg": null
/// messages, NullMessageSimulatorImpl; otherwise the granted time window,
/// DistributedSimulatorImpl) and joins MPI. Call it before any simulator
/// use: the implementation is chosen when the simulator is first touched.
inline void
EnableMpiSimulator(const std::string& sync, int* argc, char*** argv)
{
    ns3::GlobalValue::Bind("SimulatorImplementationType",
                           ns3::StringValue(sync == "nullmsg" ? "ns3::NullMessageSimulatorImpl"
                                                              : "ns3::DistributedSimulatorImpl"));
    ns3::MpiInterface::Enable(argc, argv);
}
#endif

} // namespace hockney

#endif
