// SPDX-License-Identifier: GPL-2.0-only
//
// compare's backends as objects: the registry is what --backends accepts,
// RunComparison runs exactly the selected backends (in registry order), the
// packet fabric's congestion control comes from one function, and the error
// against the packet run is decided in one place.
#include "attribute-defaults.h"
#include "collective-comparison.h"
#include "comparison-backend.h"
#include "comparison-packet-fabric.h"
#include "comparison-regime.h"
#include "dcqcn.h"
#include "input-error.h"
#include "simulator-test.h"
#include "topology-presets.h"

#include "ns3/double.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class ComparisonBackendTest : public hockney::SimulatorTest
{
};

/// The five backends compare documents (collective-comparison.h), in row order.
const std::vector<std::string> kDocumented{"closed", "gbn", "alphabeta", "loggp", "flow", "packet"};

/// Two hosts under one leaf switch: the smallest topology every backend runs on.
ComparisonConfig
TwoHosts()
{
    ComparisonConfig c;
    c.topology = MakePreset("roce-leafspine:leaves=1,spines=1,hosts-per-leaf=2");
    c.topologyName = "two-hosts";
    c.sizes = {4096};
    return c;
}

std::vector<std::string>
BackendsOf(const std::vector<ResultRow>& rows)
{
    std::vector<std::string> b;
    for (const ResultRow& r : rows)
    {
        b.push_back(r.GetString("backend"));
    }
    return b;
}

} // namespace

TEST_F(ComparisonBackendTest, EveryRegisteredNameIsAcceptedAndAnUnknownOneRefused)
{
    std::vector<std::string> registered;
    for (const auto& b : ComparisonBackendRegistry())
    {
        registered.push_back(b->Name());
        EXPECT_EQ(ParseBackends(b->Name(), "--backends"), std::vector<std::string>{b->Name()});
        EXPECT_EQ(FindComparisonBackend(b->Name()), b.get());
    }
    EXPECT_EQ(registered, kDocumented);
    EXPECT_EQ(ComparisonBackends(), kDocumented);
    EXPECT_EQ(ParseBackends("packet,closed", "--backends"), (std::vector<std::string>{"packet", "closed"}));
    EXPECT_EQ(FindComparisonBackend("warp"), nullptr);
    try
    {
        ParseBackends("closed,warp", "--backends");
        FAIL() << "warp accepted";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "--backends: expected backends among closed, gbn, alphabeta, loggp, flow, packet, got 'warp'");
    }
    // Set in code rather than parsed, an unknown name is refused the same way.
    ComparisonConfig c = TwoHosts();
    c.backends = {"closed", "warp"};
    EXPECT_THROW(RunComparison(c), InputError);
}

TEST_F(ComparisonBackendTest, OnlyTheTopologyBackendsNeedOne)
{
    // With alpha and beta given and no topology, closed, alphabeta and loggp
    // run; flow (routes) and packet (a fabric) are refused by name.
    for (const std::string& name : kDocumented)
    {
        ComparisonConfig c;
        c.model.alpha = MicroSeconds(5);
        c.model.beta = DataRate("100Gbps");
        c.ranks = 4;
        c.backends = {name};
        const bool needs = name == "flow" || name == "packet";
        EXPECT_EQ(FindComparisonBackend(name)->NeedsTopology(), needs) << name;
        try
        {
            EXPECT_EQ(BackendsOf(RunComparison(c)), std::vector<std::string>{name});
            EXPECT_FALSE(needs) << name << " ran without a topology";
        }
        catch (const InputError& e)
        {
            EXPECT_TRUE(needs) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("--backends: backend '" + name + "' needs a topology", 0), 0u)
                << e.what();
        }
    }
}

TEST_F(ComparisonBackendTest, ASubsetRunsExactlyTheSelectedBackends)
{
    // Every non-empty subset of the six, given in reverse order: one row per
    // selected backend, in registry order, and no other.
    const uint32_t packetBit = 1u << (kDocumented.size() - 1); // packet is the last
    ASSERT_EQ(kDocumented.back(), "packet");
    for (uint32_t mask = 1; mask < (1u << kDocumented.size()); ++mask)
    {
        std::vector<std::string> want;
        std::vector<std::string> given;
        for (uint32_t i = 0; i < kDocumented.size(); ++i)
        {
            if (mask & (1u << i))
            {
                want.push_back(kDocumented[i]);
                given.insert(given.begin(), kDocumented[i]);
            }
        }
        ComparisonConfig c = TwoHosts();
        c.backends = given;
        const std::vector<ResultRow> rows = RunComparison(c);
        EXPECT_EQ(BackendsOf(rows), want) << "mask " << mask;
        // With a packet row, every other row has an error against it.
        const bool packet = mask & packetBit;
        for (const ResultRow& r : rows)
        {
            const bool hasError = !std::holds_alternative<std::monostate>(r.Get("error"));
            EXPECT_EQ(hasError, packet && r.GetString("backend") != "packet") << "mask " << mask;
        }
    }
}

TEST_F(ComparisonBackendTest, ParameterSourceBackendsRunOncePerSource)
{
    // closed, alphabeta and loggp give a row per parameter source, in the
    // order of params; flow's structure is the topology's: one derived row.
    ComparisonConfig c = TwoHosts();
    c.backends = {"flow", "alphabeta", "closed"};
    c.params = {"calibrated", "derived"};
    const std::vector<ResultRow> rows = RunComparison(c);
    std::vector<std::string> got;
    for (const ResultRow& r : rows)
    {
        got.push_back(r.GetString("backend") + "/" + r.GetString("params"));
    }
    EXPECT_EQ(got, (std::vector<std::string>{"closed/calibrated", "alphabeta/calibrated", "closed/derived",
                                             "alphabeta/derived", "flow/derived"}));
}

TEST_F(ComparisonBackendTest, CongestionControlOfTheFabric)
{
    ComparisonFabric f; // congestion control "dcqcn" by default
    Ptr<RdmaCongestionControl> cc = MakeCongestionControl(f)(DataRate("100Gbps"));
    ASSERT_NE(cc, nullptr);
    EXPECT_NE(DynamicCast<Dcqcn>(cc), nullptr);
    f.ideal = true; // the ideal fabric cuts no rate
    EXPECT_FALSE(MakeCongestionControl(f));
    f.ideal = false;
    f.congestionControl = "none";
    EXPECT_FALSE(MakeCongestionControl(f));
}

TEST_F(ComparisonBackendTest, CongestionControlPresetThenAttributesThenFlags)
{
    // The preset's values, as Dcqcn itself sets them at 100 Gb/s.
    Ptr<Dcqcn> reference = CreateObject<Dcqcn>();
    reference->ApplyPreset("connectx", DataRate("100Gbps"));
    DoubleValue presetG;
    reference->GetAttribute("G", presetG);
    TimeValue presetInterval;
    reference->GetAttribute("CnpInterval", presetInterval);

    ComparisonFabric f;
    f.congestionPreset = "connectx";
    Ptr<RdmaCongestionControl> cc = MakeCongestionControl(f)(DataRate("100Gbps"));
    DoubleValue g;
    cc->GetAttribute("G", g);
    EXPECT_EQ(g.Get(), presetG.Get());
    // A key of the object is set after the preset; the others stay the preset's.
    f.congestionAttributes = {{"G", "0.25"}};
    cc = MakeCongestionControl(f)(DataRate("100Gbps"));
    cc->GetAttribute("G", g);
    EXPECT_EQ(g.Get(), 0.25);
    TimeValue interval;
    cc->GetAttribute("CnpInterval", interval);
    EXPECT_EQ(interval.Get(), presetInterval.Get());
    // The user's explicit default (here a scenario's "attributes", in scope)
    // wins over the preset when the object does not set it.
    {
        ScopedAttributeDefaults user;
        user.Set("ns3::Dcqcn::CnpInterval", "7us");
        cc = MakeCongestionControl(f)(DataRate("100Gbps"));
        cc->GetAttribute("CnpInterval", interval);
        EXPECT_EQ(interval.Get(), MicroSeconds(7));
    }
    cc = MakeCongestionControl(f)(DataRate("100Gbps"));
    cc->GetAttribute("CnpInterval", interval);
    EXPECT_EQ(interval.Get(), presetInterval.Get());
}

TEST_F(ComparisonBackendTest, ErrorIsRelativeToACompletedReference)
{
    PointVerdict v;
    BackendAnswer model;
    model.time = MicroSeconds(30);
    EXPECT_FALSE(v.ErrorOf(model).has_value()); // no packet run: no error
    v.reference = MicroSeconds(20);
    ASSERT_TRUE(v.ErrorOf(model).has_value());
    EXPECT_NEAR(*v.ErrorOf(model), 0.5, 1e-12); // (30 - 20) / 20
    BackendAnswer packet;
    packet.time = MicroSeconds(20);
    packet.reference = true;
    EXPECT_FALSE(v.ErrorOf(packet).has_value()); // the reference has none against itself
}
