// SPDX-License-Identifier: GPL-2.0-only
//
// The MPI job this process is a rank of, when `mpirun -np N hockney ...`
// started it (contrib/fabric/doc/fabric.md, "Past one machine: MPI"). Built
// with ns-3's mpi module (NS3_MPI, cmake/hockney-ns3-mpi.cmake) it is MPI's
// world communicator; without it, or outside mpirun, one rank of one.
//
// `sweep` spreads over ranks (its points, cli/sweep-command.cc); `compare`
// runs its packet run over them or says why it cannot
// (cli/compare-command.cc, CheckPartitioned); every other command refuses
// more than one rank (InputError naming mpirun).
#ifndef HOCKNEY_CLI_MPI_WORLD_H
#define HOCKNEY_CLI_MPI_WORLD_H

#include <string>
#include <vector>

namespace hockney
{

class MpiWorld
{
  public:
    /// Joins the MPI job if mpirun (Open MPI, or a PMI launcher such as
    /// Slurm's srun) started this process; leaves it when destroyed. An MPI
    /// launch of more than one rank in a build without the mpi module is an
    /// InputError naming mpirun.
    MpiWorld(int* argc, char*** argv);
    ~MpiWorld();
    MpiWorld(const MpiWorld&) = delete;
    MpiWorld& operator=(const MpiWorld&) = delete;

    /// This process's rank and the number of ranks (0 and 1 outside MPI).
    static int Rank();
    static int Size();
    /// Waits for every rank (MPI_Barrier; nothing outside MPI). Collective.
    static void Barrier();
    /// Every rank's \p text, in rank order, at rank 0 (empty elsewhere). Collective.
    static std::vector<std::string> GatherAtRoot(const std::string& text);
    /// True if some environment variable says a launcher started this
    /// process as a rank of a job (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx's
    /// PMIX_RANK, PMI's PMI_SIZE).
    static bool Launched();
    /// The environment without the launcher's variables: a child process
    /// started with it is not a rank (a sweep's point, exec'd by a rank).
    static std::vector<std::string> ChildEnvironment();
};

} // namespace hockney

#endif
