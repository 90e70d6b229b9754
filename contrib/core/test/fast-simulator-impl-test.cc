// SPDX-License-Identifier: GPL-2.0-only
//
// FastSimulatorImpl against ns-3's DefaultSimulatorImpl (the reference): one
// random program of events - each run event schedules more (Schedule,
// ScheduleWithContext, ScheduleNow, through Simulator:: and through the hot
// front end), cancels or removes events it knows, asks IsExpired and
// GetDelayLeft, stops and resumes the run, registers destroy events - runs
// under both simulators, under ns-3's MapScheduler and hockney's calendar,
// and every observation must be the same: the order, times, contexts and
// uids of the events run, each answer, the event count, the destroy events.
#include "fast-simulator-impl.h"

#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

/// One random program of events and what it saw.
class Program
{
  public:
    explicit Program(uint64_t seed)
        : m_rng(seed)
    {
    }

    std::vector<std::string> Run(const std::string& simulator, const std::string& scheduler)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(simulator));
        Simulator::SetScheduler(ObjectFactory(scheduler));
        m_log.clear();
        m_ids.clear();
        m_next = 0;
        for (int i = 0; i < 8; ++i)
        {
            Spawn();
        }
        for (int i = 0; i < 4; ++i)
        {
            const int n = m_next++;
            m_ids.push_back(Simulator::ScheduleDestroy(&Program::Destroyed, this, n));
        }
        Simulator::Remove(m_ids.back()); // a destroy event removed before the end
        Simulator::Stop(NanoSeconds(700));
        Simulator::Run();
        Note("stopped at " + std::to_string(Simulator::Now().GetTimeStep()));
        Simulator::Run(); // the rest
        Note("events " + std::to_string(Simulator::GetEventCount()));
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        return m_log;
    }

  private:
    void Note(const std::string& s) { m_log.push_back(s); }

    int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(m_rng); }

    /// Schedules one more event, one of the five ways.
    void Spawn()
    {
        if (m_next > 4000)
        {
            return;
        }
        const int n = m_next++;
        // Few distinct times: many ties, which the uid must order alike.
        const Time delay = NanoSeconds(Pick(4) == 0 ? 0 : 10 * Pick(30));
        const uint32_t context = static_cast<uint32_t>(Pick(5));
        switch (Pick(5))
        {
        case 0:
            m_ids.push_back(Simulator::Schedule(delay, &Program::Step, this, n));
            break;
        case 1:
            m_ids.push_back(hotsim::Schedule(delay, &Program::Step, this, n));
            break;
        case 2:
            Simulator::ScheduleWithContext(context, delay, &Program::Step, this, n);
            break;
        case 3:
            hotsim::ScheduleWithContext(context, delay, &Program::Step, this, n);
            break;
        default:
            m_ids.push_back(Simulator::ScheduleNow(&Program::Step, this, n));
            break;
        }
    }

    void Step(int n)
    {
        Note("run " + std::to_string(n) + " at " + std::to_string(hotsim::Now().GetTimeStep()) + " ctx " +
             std::to_string(Simulator::GetContext()) + " now " +
             std::to_string(Simulator::Now().GetTimeStep()));
        const int spawn = Pick(4); // 1.5 on average: the program grows to its cap
        for (int i = 0; i < spawn; ++i)
        {
            Spawn();
        }
        if (!m_ids.empty())
        {
            EventId& id = m_ids[Pick(static_cast<int>(m_ids.size()))];
            Note("expired " + std::to_string(id.IsExpired()) + " left " +
                 std::to_string(Simulator::GetDelayLeft(id).GetTimeStep()));
            switch (Pick(4))
            {
            case 0:
                Simulator::Remove(id);
                break;
            case 1:
                Simulator::Cancel(id);
                break;
            default:
                break;
            }
        }
    }

    void Destroyed(int n) { Note("destroy " + std::to_string(n)); }

    std::mt19937_64 m_rng;
    std::vector<std::string> m_log;
    std::vector<EventId> m_ids;
    int m_next{0};
};

const char* const kSchedulers[] = {"ns3::MapScheduler", "ns3::RingCalendarScheduler"};

TEST(FastSimulatorImplTest, SameObservationsAsDefaultSimulatorImpl)
{
    for (const char* scheduler : kSchedulers)
    {
        for (uint64_t seed = 1; seed <= 6; ++seed)
        {
            const std::vector<std::string> reference =
                Program(seed).Run("ns3::DefaultSimulatorImpl", scheduler);
            const std::vector<std::string> fast = Program(seed).Run("ns3::FastSimulatorImpl", scheduler);
            // The program must have done something worth comparing.
            ASSERT_GT(reference.size(), 200u) << scheduler << " seed " << seed;
            ASSERT_EQ(fast.size(), reference.size()) << scheduler << " seed " << seed;
            for (size_t i = 0; i < reference.size(); ++i)
            {
                ASSERT_EQ(fast[i], reference[i]) << scheduler << " seed " << seed << " line " << i;
            }
        }
    }
}

TEST(FastSimulatorImplTest, RunningOnlyWhileItRunsEvents)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FastSimulatorImpl"));
    EXPECT_EQ(FastSimulatorImpl::Running(), nullptr);
    const FastSimulatorImpl* seen = nullptr;
    Simulator::Schedule(NanoSeconds(3), [&seen]() { seen = FastSimulatorImpl::Running(); });
    EXPECT_EQ(FastSimulatorImpl::Running(), nullptr); // built, not running
    Simulator::Run();
    ASSERT_NE(seen, nullptr);
    EXPECT_EQ(static_cast<const SimulatorImpl*>(seen), PeekPointer(Simulator::GetImplementation()));
    EXPECT_EQ(FastSimulatorImpl::Running(), nullptr);
    EXPECT_EQ(hotsim::Now(), NanoSeconds(3)); // the fallback outside a run
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    // Under ns-3's simulator the front end is Simulator::'s calls.
    Simulator::Schedule(NanoSeconds(2), [&seen]() { seen = FastSimulatorImpl::Running(); });
    Time at;
    hotsim::Schedule(NanoSeconds(5), [&at]() { at = hotsim::Now(); });
    Simulator::Run();
    EXPECT_EQ(seen, nullptr);
    EXPECT_EQ(at, NanoSeconds(5));
    Simulator::Destroy();
}

TEST(FastSimulatorImplTest, EventsFromAnotherThreadAreTimedFromTheSimulationThread)
{
    // Scheduled from another thread before the run: DefaultSimulatorImpl
    // times it from the simulation's now when the run takes it (0 here), in
    // the given context; so must this one.
    for (const char* simulator : {"ns3::DefaultSimulatorImpl", "ns3::FastSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(simulator));
        Simulator::Now(); // built on this thread
        Time at;
        uint32_t context = 0;
        std::thread other([&]() {
            Simulator::ScheduleWithContext(7, NanoSeconds(40), [&]() {
                at = Simulator::Now();
                context = Simulator::GetContext();
            });
        });
        other.join();
        Simulator::Run();
        EXPECT_EQ(at, NanoSeconds(40)) << simulator;
        EXPECT_EQ(context, 7u) << simulator;
        EXPECT_EQ(Simulator::GetEventCount(), 1u) << simulator;
        Simulator::Destroy();
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

} // namespace
