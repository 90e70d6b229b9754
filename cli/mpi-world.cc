// SPDX-License-Identifier: GPL-2.0-only
#include "mpi-world.h"

#include "input-error.h"
#include "mpi-launch.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

#ifdef NS3_MPI
#include <mpi.h>
#endif

extern char** environ;

namespace hockney
{

namespace
{
int g_rank = 0;
int g_size = 1;
#ifdef NS3_MPI
bool g_joined = false; ///< this process called MPI_Init
#endif

// The variables by which Open MPI, PMIx and PMI (Slurm's srun) tell a
// process it is a rank; a child without them is a process of its own.
bool
IsLauncherVariable(const char* entry)
{
    for (const char* prefix : {"OMPI_", "PMIX_", "PMI_", "OPAL_"})
    {
        if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0)
        {
            return true;
        }
    }
    return false;
}

} // namespace

bool
MpiWorld::Launched()
{
    return MpiLaunched();
}

MpiWorld::MpiWorld(int* argc, char*** argv)
{
    if (!Launched())
    {
        return;
    }
#ifdef NS3_MPI
    MPI_Init(argc, argv);
    g_joined = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
    if (MpiLaunchedSize() != 1)
    {
        throw ns3::InputError("mpirun", "this hockney was built without ns-3's mpi module (./hockney setup "
                                        "fetches it); run it as one process");
    }
#endif
}

MpiWorld::~MpiWorld()
{
#ifdef NS3_MPI
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (g_joined && !finalized)
    {
        MPI_Finalize();
    }
#endif
}

int
MpiWorld::Rank()
{
    return g_rank;
}

int
MpiWorld::Size()
{
    return g_size;
}

void
MpiWorld::Barrier()
{
#ifdef NS3_MPI
    if (g_size > 1)
    {
        MPI_Barrier(MPI_COMM_WORLD);
    }
#endif
}

std::vector<std::string>
MpiWorld::GatherAtRoot(const std::string& text)
{
    if (g_size == 1)
    {
        return {text};
    }
#ifdef NS3_MPI
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(g_rank == 0 ? g_size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size(), 0);
    size_t total = 0;
    for (size_t r = 0; r < lengths.size(); ++r)
    {
        offsets[r] = static_cast<int>(total);
        total += lengths[r];
    }
    std::string all(total, '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t r = 0; r < lengths.size(); ++r)
    {
        out.push_back(all.substr(offsets[r], lengths[r]));
    }
    return out;
#else
    return {text};
#endif
}

std::vector<std::string>
MpiWorld::ChildEnvironment()
{
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
    {
        if (!IsLauncherVariable(*e))
        {
            env.emplace_back(*e);
        }
    }
    return env;
}

} // namespace hockney
