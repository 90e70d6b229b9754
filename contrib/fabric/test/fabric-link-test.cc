// SPDX-License-Identifier: GPL-2.0-only
//
// One link: timing in picoseconds against hand computation and against ns-3's
// own PointToPointNetDevice; long-stream goodput = rate x P / (P + H).
#include "fabric-helper.h"
#include "partitioned-run-end.h"
#include "tie-keyed-events.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/data-rate.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/enum.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/pcap-file.h"
#include "ns3/pointer.h"
#include "pfc-flow-control.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <cstdio>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricLinkTest : public hockney::SimulatorTest
{
};

using hockney::Arrivals;

FabricLinkConfig
PlainLink(DataRate rate, Time delay, uint32_t headerBytes)
{
    FabricLinkConfig cfg;
    cfg.rate = rate;
    cfg.delay = delay;
    cfg.headerBytes = headerBytes;
    cfg.minWireBytes = 0;
    cfg.flowControl = FabricFlowControlMode::NONE;
    return cfg;
}

// A - B over one link of \p cfg: A has address 0, B address 1, and B's
// arrivals are recorded in \p rx.
FabricLink
ConnectPair(const FabricLinkConfig& cfg, Arrivals& rx)
{
    FabricHelper h;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    l.devA->SetFabricAddress(0);
    l.devB->SetFabricAddress(1);
    l.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    return l;
}

// Time of one packet of `appBytes` through ns-3's point-to-point link.
Time
PointToPointArrival(const std::string& rate, Time delay, uint32_t appBytes)
{
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(delay));
    NetDeviceContainer devs = p2p.Install(a, b);
    Time arrival = Time::Max();
    devs.Get(1)->SetReceiveCallback(
        MakeCallback(+[](Time* t, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&) {
            *t = Simulator::Now();
            return true;
        }).Bind(&arrival));
    devs.Get(0)->Send(Create<Packet>(appBytes), devs.Get(1)->GetAddress(), 0x0800);
    Simulator::Run();
    Simulator::Destroy();
    return arrival;
}

} // namespace

TEST_F(FabricLinkTest, OnePacketIsSerializationPlusPropagationInPicoseconds)
{
    // 1000 B payload + 20 B framing = 1020 B = 8160 bit at 100 Gb/s = 81 600 ps,
    // + 1 us = 1 081 600 ps.
    Arrivals rx;
    FabricLink l = ConnectPair(PlainLink(DataRate("100Gbps"), MicroSeconds(1), 20), rx);
    l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 7, 3));
    Simulator::Run();
    ASSERT_EQ(rx.at.size(), 1u);
    EXPECT_EQ(rx.at[0].GetPicoSeconds(), 1081600);
    EXPECT_EQ(rx.headers[0].GetSource(), 0u);
    EXPECT_EQ(rx.headers[0].GetFlowId(), 7u);
    EXPECT_EQ(rx.headers[0].GetPriority(), 3);
    Simulator::Destroy();

    // ns-3's PointToPointNetDevice: 1018 B + its 2 B PPP header = the same 1020 B.
    Time p2p = PointToPointArrival("100Gbps", MicroSeconds(1), 1018);
    EXPECT_EQ(p2p.GetPicoSeconds(), 1081600);
}

TEST_F(FabricLinkTest, TheAgreedStopRunsBeforeEveryArrivalOfItsTime)
{
    // PartitionedRunEnd::StopAt(X) ends a run before any other event of X,
    // however the events of X were scheduled (a partitioned run's ranks
    // schedule them in another order than one process). Both tie-keyed
    // queues, a fresh link, its first packet at 1 081 600 ps (as above), the
    // stop scheduled after it, and beside it a keyed event with the
    // smallest key the model may use, (kFirstMajor, 0), scheduled first: the
    // stop has the reserved key below both, and nothing of X runs. (The stop
    // used (0, 0), which is also the first arrival's key on link 0 of a
    // process: which of the two ran first depended on scheduling order.)
    for (const char* queue : {"ns3::LazyHeapScheduler", "ns3::RingCalendarScheduler"})
    {
        Simulator::SetScheduler(ObjectFactory(queue));
        Arrivals rx;
        FabricLink l = ConnectPair(PlainLink(DataRate("100Gbps"), MicroSeconds(1), 20), rx);
        const Time x = PicoSeconds(1081600);
        bool smallestRan = false;
        {
            SchedulerTieKey smallest(SchedulerTieKey::kFirstMajor, 0);
            Simulator::Schedule(x, [&smallestRan]() { smallestRan = true; });
        }
        l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 7, 3));
        PartitionedRunEnd::StopAt(x);
        Simulator::Run();
        EXPECT_EQ(Simulator::Now(), x) << queue;
        EXPECT_TRUE(rx.at.empty()) << queue;
        EXPECT_FALSE(smallestRan) << queue;
        Simulator::Destroy();
    }
}

TEST_F(FabricLinkTest, SerializationRoundsToNearestPicosecondAtTerabitRates)
{
    // 1000 B at 3.6 Tb/s = 2222.22 ps -> 2222 (at ns-3's default 1 ns step it would be 2000).
    Ptr<FabricNetDevice> d = CreateObject<FabricNetDevice>();
    d->SetDataRate(DataRate("3600Gbps"));
    EXPECT_EQ(d->SerializationTime(1000).GetPicoSeconds(), 2222);
    // 4166 B at 100 Gb/s = 333 280 ps exactly.
    d->SetDataRate(DataRate("100Gbps"));
    EXPECT_EQ(d->SerializationTime(4166).GetPicoSeconds(), 333280);
    // WireBytes: payload - nothing + HeaderBytes, floored at MinWireBytes.
    d->SetHeaderBytes(70);
    d->SetAttribute("MinWireBytes", UintegerValue(84));
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 4096), 4166u);
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 1), 84u);
}

TEST_F(FabricLinkTest, TransferUnitIsFramedAsItsLinkPackets)
{
    // NVLink framing: 16 B per 256 B link packet. A 4096 B transfer unit
    // stands for 16 link packets: 4096 + 16 x 16 = 4352 B on the wire,
    // 9671.1 ps at 3.6 Tb/s -> 9671 ps; a 1000 B tail is 4 link packets
    // (1064 B), a 100 B one is one (116 B).
    Ptr<FabricNetDevice> d = CreateObject<FabricNetDevice>();
    d->SetDataRate(DataRate("3600Gbps"));
    d->SetHeaderBytes(16);
    d->SetAttribute("HeaderGranuleBytes", UintegerValue(256));
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 4096), 4352u);
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 1000), 1064u);
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 256), 272u);
    EXPECT_EQ(d->WireBytes(FabricHeader::kSerializedSize + 100), 116u);
    EXPECT_EQ(d->SerializationTime(d->WireBytes(FabricHeader::kSerializedSize + 4096)).GetPicoSeconds(), 9671);
    // 16 link packets of 256 B take the same wire time as the unit: the
    // goodput share is 256/272 either way.
    d->SetAttribute("HeaderGranuleBytes", UintegerValue(0));
    EXPECT_EQ(16 * d->WireBytes(FabricHeader::kSerializedSize + 256), 4352u);
}

TEST_F(FabricLinkTest, LongStreamGoodputIsRateTimesPayloadShare)
{
    // RoCEv2 framing 70 B, 4096 B payload: goodput = 100 Gb/s x 4096 / 4166
    // = 98.3197 Gb/s. Back-to-back packets, so the measured value should be
    // exact up to ps rounding; the tolerance 0.1 % is asserted.
    const uint32_t payload = 4096;
    const uint32_t n = 2000;
    Arrivals rx;
    FabricLink l = ConnectPair(PlainLink(DataRate("100Gbps"), MicroSeconds(2), 70), rx);
    // Pull interface: the source hands out one packet at a time.
    uint32_t pulled = 0;
    l.devA->SetTxSource(MakeCallback(
        +[](uint32_t* count, uint32_t total, uint32_t size, uint8_t cls, uint32_t maxBytes) {
            if (*count >= total || cls != 0 || maxBytes < size + FabricHeader::kSerializedSize)
            {
                return Ptr<Packet>();
            }
            ++*count;
            Ptr<Packet> p = Create<Packet>(size);
            p->AddHeader(FabricHeader(0, 1, 1, 0));
            return p;
        }).Bind(&pulled, n, payload));
    Simulator::Run();
    ASSERT_EQ(rx.at.size(), n);
    double seconds = (rx.at.back() - rx.at.front()).GetSeconds();
    double goodput = double(n - 1) * payload * 8 / seconds;
    double expected = 100e9 * payload / (payload + 70.0);
    EXPECT_NEAR(goodput / expected, 1.0, 1e-3);
    FabricPortCounters c = l.devA->GetCounters();
    EXPECT_EQ(c.txPackets, n);
    EXPECT_EQ(c.txWireBytes, uint64_t(n) * (payload + 70));
}

TEST_F(FabricLinkTest, StrictPriorityClassOvertakesQueuedData)
{
    // 10 packets of class 0 queued, then one of class 7 (strict by default):
    // the class-7 packet leaves second (right after the one in service).
    FabricHelper h;
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    FabricLink l = h.Connect(a, b, PlainLink(DataRate("10Gbps"), NanoSeconds(100), 0));
    l.devB->SetFabricAddress(1);
    Arrivals rx;
    l.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    for (int i = 0; i < 10; ++i)
    {
        l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, i, 0));
    }
    l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 99, 7));
    Simulator::Run();
    ASSERT_EQ(rx.headers.size(), 11u);
    EXPECT_EQ(rx.headers[1].GetFlowId(), 99u);
}

TEST_F(FabricLinkTest, DwrrSharesBytesByWeight)
{
    // Classes 0 and 1 backlogged with weights 3:1: while both are backlogged,
    // class 0 gets 3/4 of the packets (equal sizes, quantum = 1 packet).
    FabricHelper h;
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    FabricLink l = h.Connect(a, b, PlainLink(DataRate("10Gbps"), NanoSeconds(100), 0));
    l.devA->SetAttribute("Scheduler", EnumValue(FabricNetDevice::DWRR));
    l.devA->GetEgressScheduler()->SetAttribute("ClassWeights", StringValue("3,1,1,1,1,1,1,1"));
    l.devA->GetEgressScheduler()->SetAttribute("Quantum", UintegerValue(1000));
    Arrivals rx;
    l.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    for (int i = 0; i < 400; ++i)
    {
        l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, i, 0));
        l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, i, 1));
    }
    Simulator::Run();
    ASSERT_EQ(rx.headers.size(), 800u);
    int class0 = 0;
    for (int i = 0; i < 400; ++i) // first 400 departures: both classes backlogged
    {
        class0 += rx.headers[i].GetPriority() == 0;
    }
    EXPECT_EQ(class0, 300);
}

TEST_F(FabricLinkTest, ClassWeightsRejectsMalformedList)
{
    Ptr<FabricDwrrScheduler> d = CreateObject<FabricDwrrScheduler>();
    EXPECT_THROW(d->SetClassWeights("1,2,3"), std::invalid_argument);
    EXPECT_THROW(d->SetClassWeights("1,2,3,4,5,6,7,x"), std::invalid_argument);
    d->SetClassWeights("8,7,6,5,4,3,2,1");
    EXPECT_EQ(d->GetClassWeights(), "8,7,6,5,4,3,2,1");
    EXPECT_THROW(ParseFabricFlowControlMode("xon"), std::invalid_argument);
    EXPECT_EQ(ParseFabricFlowControlMode("credit"), FabricFlowControlMode::CREDIT);
}

TEST_F(FabricLinkTest, EthernetPcapCarriesSynthesizedRoceFraming)
{
    // A RoCE port's pcap holds DLT_EN10MB frames: 802.1Q (PCP = class),
    // IPv4 with the ECN bits, UDP to 4791, then the payload, then 4 B ICRC.
    std::string prefix = "/tmp/hockney-fabric-pcap-" + std::to_string(::getpid());
    FabricHelper h;
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    FabricLink l = h.Connect(a, b, PlainLink(DataRate("100Gbps"), MicroSeconds(1), 70));
    l.devA->SetFabricAddress(0x010203);
    l.devB->SetFabricAddress(5);
    FabricHelper::EnablePcap(prefix, l.devA);
    std::vector<uint8_t> payload(100, 0xAB);
    l.devA->SendFabric(Create<Packet>(payload.data(), payload.size()),
                       FabricHeader(0x010203, 5, 9, 3, FabricHeader::ECT0));
    Simulator::Run();
    Simulator::Destroy(); // closes the file
    std::string name = prefix + "-" + std::to_string(a->GetId()) + "-" +
                       std::to_string(l.devA->GetIfIndex()) + ".pcap";
    PcapFile f;
    f.Open(name, std::ios::in | std::ios::binary);
    ASSERT_FALSE(f.Fail()) << name;
    EXPECT_EQ(f.GetDataLinkType(), 1u);
    uint8_t buf[2048];
    uint32_t sec = 0, usec = 0, incl = 0, orig = 0, read = 0;
    f.Read(buf, sizeof(buf), sec, usec, incl, orig, read);
    ASSERT_FALSE(f.Fail());
    EXPECT_EQ(incl, 18u + 20u + 8u + 100u + 4u);
    EXPECT_EQ(buf[12], 0x81); // 802.1Q
    EXPECT_EQ(buf[13], 0x00);
    EXPECT_EQ(buf[14] >> 5, 3); // PCP = class 3
    EXPECT_EQ(buf[16], 0x08);   // IPv4
    EXPECT_EQ(buf[17], 0x00);
    EXPECT_EQ(buf[19] & 0x3, 2); // ECT(0)
    EXPECT_EQ(buf[18 + 12], 10); // source 10.1.2.3
    EXPECT_EQ(buf[18 + 13], 1);
    EXPECT_EQ(buf[18 + 15], 3);
    EXPECT_EQ((buf[40] << 8) | buf[41], 4791); // UDP dst port: RoCEv2
    EXPECT_EQ(buf[46], 0xAB);
    EXPECT_EQ(buf[145], 0xAB);
    // The IPv4 header checksum verifies (one's-complement sum of 0xFFFF).
    uint32_t sum = 0;
    for (int i = 18; i < 38; i += 2)
    {
        sum += (buf[i] << 8) | buf[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    EXPECT_EQ(sum, 0xFFFFu);
    f.Close();
    std::remove(name.c_str());
}

namespace
{
// Both ends stream `n` packets of `payload` bytes at each other over a credit
// link; returns the goodput A->B in bit/s.
double
BidirectionalCreditGoodput(bool piggyback, uint32_t payload, uint32_t n, uint32_t updateThreshold)
{
    FabricLinkConfig cfg = PlainLink(DataRate("3600Gbps"), NanoSeconds(100), 16);
    cfg.flowControl = FabricFlowControlMode::CREDIT;
    cfg.creditBufferBytes = 256 * 1024; // > 2 x 100 ns x 450 GB/s: never credit-bound
    cfg.controlFrameBytes = 16;
    cfg.creditPiggyback = piggyback;
    cfg.mtu = payload;
    Arrivals rx;
    FabricLink l = ConnectPair(cfg, rx);
    l.devA->GetFlowControl()->SetAttribute("UpdateThresholdBytes", UintegerValue(updateThreshold));
    l.devB->GetFlowControl()->SetAttribute("UpdateThresholdBytes", UintegerValue(updateThreshold));
    std::vector<uint32_t> count(2, 0);
    auto source = +[](uint32_t* c, uint32_t total, uint32_t size, uint8_t cls, uint32_t maxBytes) {
        if (*c >= total || cls != 0 || maxBytes < size + FabricHeader::kSerializedSize)
        {
            return Ptr<Packet>();
        }
        ++*c;
        Ptr<Packet> p = Create<Packet>(size);
        p->AddHeader(FabricHeader(0, 1, 0, 0));
        return p;
    };
    l.devA->SetTxSource(MakeCallback(source).Bind(&count[0], n, payload));
    l.devB->SetTxSource(MakeCallback(source).Bind(&count[1], n, payload));
    Simulator::Run();
    double seconds = (rx.at.back() - rx.at.front()).GetSeconds();
    double goodput = double(rx.at.size() - 1) * payload * 8 / seconds;
    Simulator::Destroy();
    return goodput;
}
} // namespace

TEST_F(FabricLinkTest, CreditUpdatesPiggybackOnReverseData)
{
    // NVLink-like 256 B payloads with 16 B framing, data both ways. With
    // credits riding in the reverse packets' framing the goodput is the
    // framing-only share 256/272 of 3.6 Tb/s; with a standalone 16 B credit
    // frame after every data packet it drops to 256/288. 0.1 % as the
    // issue's goodput tolerance; 20 000 packets so that the first 100 ns
    // (~165 packets sent before any credit can come back) weigh < 0.05 %.
    EXPECT_NEAR(BidirectionalCreditGoodput(true, 256, 20000, 1) / (3.6e12 * 256 / 272), 1.0, 1e-3);
    EXPECT_NEAR(BidirectionalCreditGoodput(false, 256, 20000, 1) / (3.6e12 * 256 / 288), 1.0, 1e-3);
}

TEST_F(FabricLinkTest, CreditUpdatesAreBatchedByTheThreshold)
{
    // Standalone 16 B credit frames, one per 2048 B freed (a threshold of a
    // quarter of the default): 272 B per packet on the wire, so a frame after every
    // ceil(2048 / 272) = 8 packets, 2 B per packet: goodput 256/274 of
    // 3.6 Tb/s (per packet: 256/288 at a threshold of 1, test above).
    EXPECT_NEAR(BidirectionalCreditGoodput(false, 256, 20000, 2048) / (3.6e12 * 256 / 274), 1.0, 1e-3);
}

TEST_F(FabricLinkTest, QueuedZeroPayloadPacketsDoNotStall)
{
    // Three header-only packets (ACK-like, 0 payload bytes) sent at once: the
    // first starts at once, the other two wait in the queue and must leave back
    // to back. Each is 0 + 20 B framing = 160 bit = 1600 ps at 100 Gb/s, so they
    // arrive at 1 us + 1600, + 3200, + 4800 ps. (Deciding "more work waits" from
    // queued bytes instead of packets left them stuck until other traffic came.)
    Arrivals rx;
    FabricLink l = ConnectPair(PlainLink(DataRate("100Gbps"), MicroSeconds(1), 20), rx);
    for (int i = 0; i < 3; ++i)
    {
        l.devA->SendFabric(Create<Packet>(0), FabricHeader(0, 1, 7, 3));
    }
    Simulator::Run();
    ASSERT_EQ(rx.at.size(), 3u);
    EXPECT_EQ(rx.at[0].GetPicoSeconds(), 1001600);
    EXPECT_EQ(rx.at[1].GetPicoSeconds(), 1003200);
    EXPECT_EQ(rx.at[2].GetPicoSeconds(), 1004800);
}

TEST_F(FabricLinkTest, FlowControlIsAnAttribute)
{
    // The port's flow control is chosen like any ns-3 parameter: by attribute.
    Ptr<FabricNetDevice> d = CreateObject<FabricNetDevice>();
    EXPECT_EQ(d->GetFlowControl()->GetInstanceTypeId(), FabricFlowControl::GetTypeId());
    d->SetAttribute("FlowControl", PointerValue(CreateObject<FabricPfcFlowControl>()));
    EXPECT_TRUE(DynamicCast<FabricPfcFlowControl>(d->GetFlowControl()));
    PointerValue v;
    d->GetAttribute("FlowControl", v);
    EXPECT_EQ(v.Get<FabricFlowControl>(), d->GetFlowControl());
}

namespace
{
// A pull source that says when it has work (SetTxSourceClasses), as the
// RDMA NIC does: `left` packets of 1000 B, then none until more are given.
struct AnnouncingSource
{
    Ptr<FabricNetDevice> dev;
    uint32_t left{0};

    static Ptr<Packet> Pull(AnnouncingSource* s, uint8_t cls, uint32_t maxBytes)
    {
        if (s->left == 0 || cls != 0 || maxBytes < 1000 + FabricHeader::kSerializedSize)
        {
            return Ptr<Packet>();
        }
        if (--s->left == 0)
        {
            s->dev->SetTxSourceClasses(0); // its last packet: no work after it
        }
        Ptr<Packet> p = Create<Packet>(1000);
        p->AddHeader(FabricHeader(0, 1, 1, 0));
        return p;
    }

    static void More(AnnouncingSource* s, uint32_t n)
    {
        s->left = n;
        s->dev->SetTxSourceClasses(0x01);
        s->dev->NotifyTxReady();
    }
};
} // namespace

TEST_F(FabricLinkTest, SourceWithoutWorkIsNotPolledAtTheEndOfATransmission)
{
    // 8 Gb/s, no framing: a 1000 B packet is 1 us on the wire, +100 ns.
    // Three packets back to back from t = 0 (the first starts at
    // SetTxSource, before the run), then at 10 us one more. Events after
    // the probe at 1 ps, by hand: the starts of packets 2 and 3 at the ends
    // of 1 and 2 (2), four arrivals (4), the event giving more work (1) = 7.
    // A port polling its source at every end would add a start finding
    // nothing at 3 us and at 11 us (9).
    Arrivals rx;
    FabricLink l = ConnectPair(PlainLink(DataRate("8Gbps"), NanoSeconds(100), 0), rx);
    AnnouncingSource src{l.devA, 3};
    l.devA->SetTxSourceClasses(0x01);
    l.devA->SetTxSource(MakeCallback(&AnnouncingSource::Pull).Bind(&src));
    Simulator::Schedule(MicroSeconds(10), &AnnouncingSource::More, &src, 1u);
    uint64_t atProbe = 0;
    // The probe's own event counts in its reading (the simulator counts an
    // event before running it).
    Simulator::Schedule(PicoSeconds(1), [&atProbe]() { atProbe = Simulator::GetEventCount(); });
    Simulator::Run();
    const std::vector<Time> expected{NanoSeconds(1100), NanoSeconds(2100), NanoSeconds(3100), NanoSeconds(11100)};
    EXPECT_EQ(rx.at, expected);
    EXPECT_EQ(Simulator::GetEventCount() - atProbe, 7u);
}
