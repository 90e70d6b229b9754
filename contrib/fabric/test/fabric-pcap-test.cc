// SPDX-License-Identifier: GPL-2.0-only
//
// The pcap files of a short run, byte for byte: a PFC incast through one
// switch (data frames and IEEE 802.1Qbb pause frames), an Ethernet credit
// link (credit updates under the experimental EtherType 0x88B5) and an
// InfiniBand link (raw FabricHeader + payload, DLT_USER0). The whole-file
// digests were recorded from the port that wrote pcap itself, before pcap
// moved into FabricPcapHelper; the first frames' fields are checked by hand
// against IEEE 802.1Q / 802.1Qbb, RFC 791 / 768 and the RoCEv2 annex.
#include "fabric-helper.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/config.h"
#include "ns3/node.h"
#include "ns3/pcap-file.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricPcapTest : public hockney::SimulatorTest
{
};

struct Frame
{
    std::vector<uint8_t> bytes;
    uint32_t sec{0};
    uint32_t usec{0};
    uint32_t origLen{0};
};

struct Capture
{
    uint32_t linkType{0};
    std::vector<Frame> frames;
    uint64_t digest{0}; ///< FNV-1a 64 of the whole file
};

uint64_t
Fnv1a(const std::vector<uint8_t>& bytes)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : bytes)
    {
        h = (h ^ b) * 0x100000001b3ull;
    }
    return h;
}

Capture
ReadCapture(const std::string& name)
{
    Capture c;
    std::ifstream in(name, std::ios::binary);
    std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    c.digest = Fnv1a(all);
    PcapFile f;
    f.Open(name, std::ios::in | std::ios::binary);
    EXPECT_FALSE(f.Fail()) << name;
    c.linkType = f.GetDataLinkType();
    while (true)
    {
        Frame fr;
        fr.bytes.resize(70000);
        uint32_t incl = 0, read = 0;
        f.Read(fr.bytes.data(), fr.bytes.size(), fr.sec, fr.usec, incl, fr.origLen, read);
        if (f.Fail() || f.Eof())
        {
            break;
        }
        fr.bytes.resize(incl);
        c.frames.push_back(std::move(fr));
    }
    f.Close();
    std::remove(name.c_str());
    return c;
}

std::string
FileName(const std::string& prefix, Ptr<FabricNetDevice> d)
{
    return prefix + "-" + std::to_string(d->GetNode()->GetId()) + "-" +
           std::to_string(d->GetIfIndex()) + ".pcap";
}

uint16_t
Be16(const std::vector<uint8_t>& b, size_t at)
{
    return uint16_t((b[at] << 8) | b[at + 1]);
}

const Frame*
FirstWithEtherType(const Capture& c, uint16_t type, size_t at = 12)
{
    for (const Frame& f : c.frames)
    {
        if (f.bytes.size() > at + 1 && Be16(f.bytes, at) == type)
        {
            return &f;
        }
    }
    return nullptr;
}

} // namespace

TEST_F(FabricPcapTest, ShortRunPcapIsByteForByteAsRecorded)
{
    const std::string prefix = "/tmp/hockney-fabric-pcap-run-" + std::to_string(::getpid());
    // A 60 kB switch buffer makes 3 x 40 packets of 4096 B to one receiver
    // cross XOFF: pause frames appear in the pcap.
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(60000));
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig pfc; // 100 Gb/s RoCEv2, PFC
    Ptr<Node> recv = CreateObject<Node>();
    FabricLink lr = h.Connect(sw, recv, pfc);
    lr.devB->SetFabricAddress(100);
    sw->AddRoute(100, {lr.portA});
    std::vector<FabricLink> senders;
    for (uint32_t i = 0; i < 3; ++i)
    {
        FabricLink l = h.Connect(CreateObject<Node>(), sw, pfc);
        l.devA->SetFabricAddress(i);
        sw->AddRoute(i, {l.portB});
        senders.push_back(l);
    }
    // Ethernet framing with credits: the credit updates' pcap form.
    FabricLinkConfig credit = pfc;
    credit.flowControl = FabricFlowControlMode::CREDIT;
    credit.creditBufferBytes = 20000;
    credit.creditPiggyback = false;
    FabricLink lc = h.Connect(CreateObject<Node>(), CreateObject<Node>(), credit);
    lc.devA->SetFabricAddress(200);
    lc.devB->SetFabricAddress(201);
    // InfiniBand: raw frames.
    FabricLinkConfig ib = credit;
    ib.linkType = FabricLinkType::INFINIBAND;
    ib.headerBytes = 14;
    FabricLink li = h.Connect(CreateObject<Node>(), CreateObject<Node>(), ib);
    li.devA->SetFabricAddress(300);
    li.devB->SetFabricAddress(301);

    std::vector<Ptr<FabricNetDevice>> traced = {senders[0].devA, lr.devA, senders[1].devB,
                                                lc.devA, lc.devB, li.devA};
    for (auto& d : traced)
    {
        FabricHelper::EnablePcap(prefix, d);
    }
    std::vector<std::string> names;
    for (auto& d : traced)
    {
        names.push_back(FileName(prefix, d));
    }
    for (uint32_t k = 0; k < 40; ++k)
    {
        for (uint32_t i = 0; i < 3; ++i)
        {
            senders[i].devA->SendFabric(Create<Packet>(4096),
                                        FabricHeader(i, 100, 7 + i, 3, FabricHeader::ECT0));
        }
    }
    for (uint32_t k = 0; k < 10; ++k)
    {
        lc.devA->SendFabric(Create<Packet>(4000), FabricHeader(200, 201, k, 2));
        li.devA->SendFabric(Create<Packet>(2000), FabricHeader(300, 301, k, 1));
    }
    Simulator::Run();
    ASSERT_GT(senders[1].devB->GetCounters().pausesSent, 0u); // the run exercises pause frames
    Simulator::Destroy(); // closes the files

    std::vector<Capture> caps;
    for (const auto& n : names)
    {
        caps.push_back(ReadCapture(n));
    }
    // Recorded from the pre-FabricPcapHelper port (same run, same files).
    const uint64_t digests[] = {0x7c97298db776de05ull, 0xa1a687b0e2fad933ull,
                                0x24542ca282330f56ull, 0x623939b6f7cccaf5ull,
                                0x5e93216e609d64e8ull, 0x2c096a60a51932ceull};
    const size_t frames[] = {60, 120, 60, 20, 20, 15};
    const uint32_t dlts[] = {1, 1, 1, 1, 1, 147};
    for (size_t i = 0; i < caps.size(); ++i)
    {
        EXPECT_EQ(caps[i].linkType, dlts[i]) << names[i];
        EXPECT_EQ(caps[i].frames.size(), frames[i]) << names[i];
        EXPECT_EQ(caps[i].digest, digests[i]) << names[i];
    }

    // Sender 0's first frame: its first data packet, 4096 B, class 3, ECT(0).
    ASSERT_FALSE(caps[0].frames.empty());
    const std::vector<uint8_t>& d = caps[0].frames[0].bytes;
    ASSERT_EQ(d.size(), 18u + 20u + 8u + 4096u + 4u); // Eth+Q, IPv4, UDP, payload, ICRC
    const std::vector<uint8_t> head = {
        0x02, 0x00, 0x00, 0x00, 0x00, 0x64, // dst MAC of endpoint 100
        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, // src MAC of endpoint 0
        0x81, 0x00, 0x60, 0x00,             // 802.1Q, PCP 3 (class 3), VID 0
        0x08, 0x00,                         // IPv4
        0x45, 0x62,                         // v4, IHL 5; DSCP CS3, ECN ECT(0)
        0x10, 0x20,                         // total length 4128 = 20 + 8 + 4096 + 4
        0x00, 0x00, 0x40, 0x00,             // id 0, DF
        0x40, 0x11, 0x16, 0x08,             // TTL 64, UDP, checksum (below)
        0x0a, 0x00, 0x00, 0x00,             // 10.0.0.0
        0x0a, 0x00, 0x00, 0x64,             // 10.0.0.100
        0xc0, 0x07, 0x12, 0xb7,             // UDP sport 0xC000 | flow 7, dport 4791
        0x10, 0x0c, 0x00, 0x00};            // UDP length 4108 = 8 + 4096 + 4, checksum 0
    EXPECT_EQ(std::vector<uint8_t>(d.begin(), d.begin() + head.size()), head);
    // RFC 791 checksum by hand: 4562+1020+0000+4000+4011+0000+0a00+0000+0a00+0064
    // = e9f7, complement 1608.
    EXPECT_EQ(Be16(d, 18 + 10), 0x1608);
    EXPECT_EQ(caps[0].frames[0].sec, 0u);
    EXPECT_EQ(caps[0].frames[0].usec, 0u);

    // A pause frame the switch sent to sender 1 (IEEE 802.1Qbb): MAC control
    // to 01:80:C2:00:00:01 from the switch port (node 0, device 2), opcode
    // 0x0101, class-enable vector bit 3, timer 3 = 0xFFFF quanta; padded to 60.
    const Frame* pause = FirstWithEtherType(caps[2], 0x8808);
    ASSERT_NE(pause, nullptr);
    const std::vector<uint8_t> pauseHead = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00,
                                            0x00, 0x00, 0x00, 0x02, 0x88, 0x08, 0x01, 0x01,
                                            0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                            0xff, 0xff};
    ASSERT_EQ(pause->bytes.size(), 60u);
    EXPECT_EQ(std::vector<uint8_t>(pause->bytes.begin(), pause->bytes.begin() + pauseHead.size()),
              pauseHead);

    // A credit update from endpoint 201: experimental EtherType 0x88B5, then
    // the FabricHeader (src 201, dst none, class 7, kind 2) and 8 cumulative
    // u64 counters; the first returns class 2's 4000 + 70 wire bytes.
    const Frame* cr = FirstWithEtherType(caps[4], 0x88b5);
    ASSERT_NE(cr, nullptr);
    ASSERT_EQ(cr->bytes.size(), 14u + 16u + 64u);
    const std::vector<uint8_t> crHead = {0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00,
                                         0x00, 0x00, 0x00, 0xc9, 0x88, 0xb5, 0x00, 0x00,
                                         0x00, 0xc9, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
                                         0x00, 0x00, 0x07, 0x02};
    EXPECT_EQ(std::vector<uint8_t>(cr->bytes.begin(), cr->bytes.begin() + crHead.size()), crHead);
    EXPECT_EQ(Be16(cr->bytes, 14 + 16 + 2 * 8 + 6), 4070);

    // InfiniBand: the FabricHeader as it is, then the payload.
    ASSERT_FALSE(caps[5].frames.empty());
    const std::vector<uint8_t>& r = caps[5].frames[0].bytes;
    ASSERT_EQ(r.size(), 16u + 2000u);
    const std::vector<uint8_t> rawHead = {0x00, 0x00, 0x01, 0x2c, 0x00, 0x00, 0x01, 0x2d,
                                          0x00, 0x00, 0x00, 0x00, 0x01, 0x00};
    EXPECT_EQ(std::vector<uint8_t>(r.begin(), r.begin() + rawHead.size()), rawHead);
}
