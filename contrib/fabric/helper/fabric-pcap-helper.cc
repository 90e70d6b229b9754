// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-pcap-helper.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricPcapHelper");

namespace
{
constexpr uint32_t kHdr = FabricHeader::kSerializedSize;

void
Put16(uint8_t*& b, uint16_t v)
{
    *b++ = uint8_t(v >> 8);
    *b++ = uint8_t(v);
}

void
PutMac(uint8_t*& b, uint32_t address)
{
    uint8_t mac[6];
    FabricNetDevice::AddressToMac(address).CopyTo(mac);
    std::copy(mac, mac + 6, b);
    b += 6;
}

void
PutIp(uint8_t*& b, uint32_t address)
{
    // 10.a.b.c from the low 24 bits of the endpoint id.
    *b++ = 10;
    *b++ = uint8_t(address >> 16);
    *b++ = uint8_t(address >> 8);
    *b++ = uint8_t(address);
}
} // namespace

uint32_t
FabricPcapHelper::DataLinkType(FabricLinkType type)
{
    switch (type)
    {
    case FabricLinkType::ETHERNET:
        return 1; // DLT_EN10MB
    case FabricLinkType::INFINIBAND:
        return 147; // DLT_USER0
    case FabricLinkType::NVLINK:
        return 148;
    case FabricLinkType::PCIE:
        return 149;
    case FabricLinkType::GENERIC:
        return 150;
    }
    return 1;
}

void
FabricPcapHelper::EnablePcap(const std::string& prefix, Ptr<FabricNetDevice> dev)
{
    NS_LOG_FUNCTION(prefix << dev);
    const uint32_t node = dev->GetNode() ? dev->GetNode()->GetId() : 0;
    std::ostringstream name;
    name << prefix << "-" << node << "-" << dev->GetIfIndex() << ".pcap";
    Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
    file->Open(name.str(), std::ios::out | std::ios::binary);
    file->Init(DataLinkType(dev->GetLinkType()), 65535);
    // The sink holds the file; the port drops its sinks when disposed, which
    // closes the file.
    dev->TraceConnectWithoutContext(
        "Sniffer",
        MakeBoundCallback(&FabricPcapHelper::Write, file, dev->GetLinkType(),
                          node << 8 | dev->GetIfIndex()));
}

void
FabricPcapHelper::EnablePcap(const std::string& prefix, const NodeContainer& nodes)
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i)
        {
            if (Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>((*it)->GetDevice(i)))
            {
                EnablePcap(prefix, d);
            }
        }
    }
}

void
FabricPcapHelper::Write(Ptr<PcapFileWrapper> file, FabricLinkType type, uint32_t portMac,
                        Ptr<const Packet> packet)
{
    NS_LOG_FUNCTION(file << packet);
    FabricHeader h;
    packet->PeekHeader(h);
    uint32_t size = packet->GetSize();
    std::vector<uint8_t> raw(size);
    packet->CopyData(raw.data(), size);
    Time now = Simulator::Now();
    if (type != FabricLinkType::ETHERNET)
    {
        file->Write(now, raw.data(), size);
        return;
    }
    uint32_t payload = size - kHdr;
    std::vector<uint8_t> frame(18 + 20 + 8 + payload + 4 + 64, 0);
    uint8_t* b = frame.data();
    if (h.GetKind() == FabricHeader::PFC_PAUSE)
    {
        // IEEE 802.1Qbb: MAC control frame to 01:80:C2:00:00:01, EtherType
        // 0x8808, opcode 0x0101, then vector and timers; padded to 60 bytes.
        const uint8_t dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
        std::copy(dst, dst + 6, b);
        b += 6;
        PutMac(b, portMac);
        Put16(b, 0x8808);
        Put16(b, 0x0101);
        std::copy(raw.begin() + kHdr, raw.end(), b);
        b += payload;
        uint32_t len = std::max<uint32_t>(60, uint32_t(b - frame.data()));
        file->Write(now, frame.data(), len);
        return;
    }
    if (h.GetKind() != FabricHeader::DATA)
    {
        // Credit updates have no Ethernet form; a local experimental EtherType.
        PutMac(b, h.GetDestination());
        PutMac(b, h.GetSource());
        Put16(b, 0x88B5);
        std::copy(raw.begin(), raw.end(), b);
        b += size;
        file->Write(now, frame.data(), uint32_t(b - frame.data()));
        return;
    }
    PutMac(b, h.GetDestination());
    PutMac(b, h.GetSource());
    Put16(b, 0x8100); // 802.1Q tag carrying the class as PCP
    Put16(b, uint16_t(h.GetPriority()) << 13);
    Put16(b, 0x0800);
    uint8_t* ip = b;
    uint16_t ipLen = uint16_t(20 + 8 + payload + 4);
    *b++ = 0x45;
    *b++ = uint8_t((h.GetPriority() << 5) | h.GetEcn()); // DSCP CSn, ECN bits
    Put16(b, ipLen);
    Put16(b, 0);
    Put16(b, 0x4000); // DF
    *b++ = 64;
    *b++ = 17;
    Put16(b, 0);
    PutIp(b, h.GetSource());
    PutIp(b, h.GetDestination());
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    ip[10] = uint8_t(~sum >> 8);
    ip[11] = uint8_t(~sum);
    // RoCEv2 takes UDP source-port entropy from the flow.
    Put16(b, uint16_t(0xC000 | (h.GetFlowId() & 0x3FFF)));
    Put16(b, 4791);
    Put16(b, uint16_t(8 + payload + 4));
    Put16(b, 0);
    std::copy(raw.begin() + kHdr, raw.end(), b);
    b += payload;
    b += 4; // ICRC (not computed)
    file->Write(now, frame.data(), uint32_t(b - frame.data()));
}

} // namespace ns3
