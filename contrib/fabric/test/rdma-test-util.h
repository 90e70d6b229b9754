// SPDX-License-Identifier: GPL-2.0-only
//
// Small fabrics for the RDMA tests (two hosts on one link; hosts around one
// switch) and the completion-time formula of the NIC model written out
// independently of the NIC's code.
#ifndef HOCKNEY_RDMA_TEST_UTIL_H
#define HOCKNEY_RDMA_TEST_UTIL_H

#include "dcqcn.h"
#include "fabric-helper.h"
#include "rdma-nic.h"

#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hockney
{
namespace rdmatest
{

using namespace ns3;

/// Parameters of the hand formula (defaults = the NIC's and the link's defaults
/// as the tests configure them).
struct Costs
{
    double line = 100e9;      ///< link b/s
    double delay = 1e-6;      ///< propagation, s
    double header = 70;       ///< on-wire framing per packet (RoCEv2)
    double minWire = 84;
    double mtu = 4096;
    double pcieLat = 120e-9;  ///< NIC PcieLatency
    double dmaRate = 504e9;   ///< min(PcieRate, MemoryRate), b/s
    double wqe = 64;
    double switchLatency = 0; ///< 0: no switch on the path
    double switchLine = 0;    ///< egress rate of the switch (b/s), if any
    double startup = 0;       ///< NIC EngineStartup
    double transport = 1;     ///< 1: BTH/RETH/ImmDt/AETH in the payload; 0: in a tag (NVLink)
};

/// Seconds from PostSend to the receiver's completion callback for a message
/// of n bytes on an idle path, and (ackArrival) when the last ACK is back.
/// The model: doorbell (1 PCIe crossing), WQE read (round trip), payload
/// read stream (round trip + bytes / DMA rate, pipelined), serialization of
/// each packet (transport headers BTH 12, RETH 16 on the first packet of a
/// write, ImmDt 4 on the last, plus framing), propagation, receive DMA, CQE.
inline double
OneWay(const Costs& c, double n, bool write, double* ackBack = nullptr, double chunk = 0)
{
    // chunk > 0: the message is posted as back-to-back writes of `chunk`
    // bytes (a pipeline); each chunk's first packet carries RETH and its last
    // ImmDt. Reads of later chunks are assumed ahead of the link (valid when
    // the DMA is faster than the link), so only serialization binds.
    if (chunk <= 0)
    {
        chunk = n > 0 ? n : 1;
    }
    const double L = c.pcieLat;
    const double R = c.dmaRate / 8; // B/s
    const double dataStart = 3 * L + c.startup + c.wqe / R;
    std::vector<double> lens;
    std::vector<bool> firsts;
    std::vector<bool> lasts;
    for (double off = 0; off < std::max(n, 1.0); off += chunk)
    {
        double cb = std::min(chunk, n - off);
        double np = cb <= 0 ? 1 : std::ceil(cb / c.mtu);
        for (int k = 0; k < int(np); ++k)
        {
            lens.push_back(std::max(0.0, std::min(c.mtu, cb - k * c.mtu)));
            firsts.push_back(k == 0);
            lasts.push_back(k + 1 == np);
        }
    }
    double npkts = lens.size();
    double txEnd = 0;
    double swEnd = 0;
    double writeDone = 0;
    double lastArr = 0;
    for (int k = 0; k < int(npkts); ++k)
    {
        double len = lens[k];
        double upTo = std::min(n, (k + 1) * c.mtu);
        double ready = upTo <= chunk ? dataStart + 2 * L + upTo / R : 0;
        double bytes =
            c.transport * (12 + (write && firsts[k] ? 16 : 0) + (lasts[k] ? 4 : 0)) + len;
        double wire = std::max(bytes + c.header, c.minWire);
        double start = std::max(ready, txEnd);
        txEnd = start + wire * 8 / c.line;
        double arr = txEnd + c.delay;
        if (c.switchLine > 0)
        {
            // store and forward: egress starts after the last bit and the
            // forwarding latency, behind the previous packet
            double s2 = std::max(arr + c.switchLatency, swEnd);
            swEnd = s2 + wire * 8 / c.switchLine;
            arr = swEnd + c.delay;
        }
        writeDone = std::max(arr, writeDone) + len / R;
        lastArr = arr;
    }
    if (ackBack)
    {
        // ACK: BTH 12 + AETH 4 (only the AETH-sized payload with headers in
        // a tag) + framing, sent when the last packet arrives.
        double ackWire = std::max((c.transport > 0 ? 16.0 : 4.0) + c.header, c.minWire);
        double back = ackWire * 8 / c.line + c.delay;
        if (c.switchLine > 0)
        {
            back += c.switchLatency + ackWire * 8 / c.switchLine + c.delay;
        }
        *ackBack = lastArr + back + L;
    }
    return writeDone + L;
}

/// Two hosts a (address 0) and b (address 1) on one link.
struct TwoHosts
{
    FabricLink link;
    Ptr<RdmaNic> a;
    Ptr<RdmaNic> b;
};

inline FabricLinkConfig
RdmaLink(const std::string& rate = "100Gbps", FabricFlowControlMode fc = FabricFlowControlMode::PFC)
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate(rate);
    cfg.delay = MicroSeconds(1);
    cfg.mtu = 4200; // IB MTU 4096 + transport headers: the usual RoCE setting
    cfg.flowControl = fc;
    return cfg;
}

/// \p transferUnit: both NICs' TransferUnitBytes (0: every MTU packet).
inline TwoHosts
MakeTwoHosts(const FabricLinkConfig& cfg, uint32_t transferUnit = 0)
{
    FabricHelper h;
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    TwoHosts t;
    t.link = h.Connect(na, nb, cfg);
    t.link.devA->SetFabricAddress(0);
    t.link.devB->SetFabricAddress(1);
    t.a = CreateObject<RdmaNic>();
    t.b = CreateObject<RdmaNic>();
    t.a->SetAttribute("TransferUnitBytes", UintegerValue(transferUnit));
    t.b->SetAttribute("TransferUnitBytes", UintegerValue(transferUnit));
    t.a->Attach(t.link.devA);
    t.b->Attach(t.link.devB);
    return t;
}

/// n hosts (addresses 0..n-1) on one switch.
struct Star
{
    Ptr<FabricSwitch> sw;
    std::vector<FabricLink> links;
    std::vector<Ptr<RdmaNic>> nics;
    NodeContainer nodes;
};

inline Star
MakeStar(uint32_t n, const FabricLinkConfig& cfg, Time fwd = NanoSeconds(300))
{
    FabricHelper h;
    Star s;
    s.sw = h.CreateSwitch(fwd, false);
    s.nodes.Add(s.sw);
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<Node> host = CreateObject<Node>();
        s.nodes.Add(host);
        FabricLink l = h.Connect(host, s.sw, cfg);
        l.devA->SetFabricAddress(i);
        s.sw->AddRoute(i, {l.portB});
        s.links.push_back(l);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        s.nics.push_back(nic);
    }
    return s;
}

inline void
AttachAll(Star& s)
{
    for (uint32_t i = 0; i < s.nics.size(); ++i)
    {
        s.nics[i]->Attach(s.links[i].devA);
    }
}

/// Schedules samples of two senders' payload rates (Gb/s, from their NICs'
/// bytesSent) per `window` from `start` to `end`, appended to *rates as
/// the simulation runs.
inline void
SampleTwoRates(Ptr<RdmaNic> a, Ptr<RdmaNic> b, Time start, Time window, Time end,
               std::vector<std::pair<double, double>>* rates)
{
    auto last = std::make_shared<std::pair<uint64_t, uint64_t>>(0, 0);
    Simulator::Schedule(start, [a, b, last]() {
        *last = {a->GetCounters().bytesSent, b->GetCounters().bytesSent};
    });
    const double gbps = 8 / window.GetSeconds() * 1e-9;
    for (Time t = start + window; t <= end; t += window)
    {
        Simulator::Schedule(t, [a, b, last, gbps, rates]() {
            const uint64_t ba = a->GetCounters().bytesSent;
            const uint64_t bb = b->GetCounters().bytesSent;
            rates->push_back({(ba - last->first) * gbps, (bb - last->second) * gbps});
            *last = {ba, bb};
        });
    }
}

/// The first sample from which every moving average of `avg` samples has
/// each flow within `tol` (a fraction) of the pair's mean and the pair at
/// >= minTotal Gb/s; -1 if the last average fails.
inline int
FairFrom(const std::vector<std::pair<double, double>>& rates, int avg, double tol, double minTotal)
{
    auto good = [&](int i) {
        double a = 0, b = 0;
        for (int k = i; k < i + avg; ++k)
        {
            a += rates[k].first / avg;
            b += rates[k].second / avg;
        }
        const double fair = (a + b) / 2;
        return std::abs(a - fair) <= tol * fair && std::abs(b - fair) <= tol * fair &&
               a + b >= minTotal;
    };
    int from = -1;
    for (int i = int(rates.size()) - avg; i >= 0 && good(i); --i)
    {
        from = i;
    }
    return from;
}

/// `cfg` with switch ECN marking `m` (Kmin, Kmax, Pmax: a DcqcnMarking).
template <class Marking>
FabricLinkConfig
WithEcnMarking(FabricLinkConfig cfg, const Marking& m)
{
    cfg.ecn = true;
    cfg.ecnKminBytes = m.kminBytes;
    cfg.ecnKmaxBytes = m.kmaxBytes;
    cfg.ecnPmax = m.pmax;
    return cfg;
}

/// n hosts on RdmaLink()s with the paper's DCQCN and its ECN marking (marks,
/// CNPs, rate cuts), every NIC's `attribute` set to `value`, attached, the
/// switch's streams fixed: the congested star on which a test compares an
/// exact speed option on and off.
inline Star
MakeDcqcnStarWithNicAttribute(uint32_t n, const std::string& attribute, const AttributeValue& value)
{
    FabricLinkConfig cfg = RdmaLink();
    cfg = WithEcnMarking(cfg, Dcqcn::PresetMarking("paper", cfg.rate));
    Star s = MakeStar(n, cfg);
    for (auto& nic : s.nics)
    {
        Ptr<Dcqcn> cc = CreateObject<Dcqcn>();
        cc->ApplyPreset("paper", cfg.rate);
        nic->SetCongestionControl(cc);
        nic->SetAttribute(attribute, value);
    }
    AttachAll(s);
    s.sw->AssignStreams(11);
    return s;
}

/// Hosts 1..n-1 of the star each write `bytes` to host 0 on priority 3;
/// `*finish` becomes the time of host 0's last receive completion.
inline void
PostIncast(Star& s, uint64_t bytes, double* finish)
{
    s.nics[0]->SetReceiveCompletionCallback(MakeCallback(
        +[](double* f, const RdmaCompletion&) { *f = Simulator::Now().GetSeconds(); })
                                                .Bind(finish));
    for (uint32_t i = 1; i < s.nics.size(); ++i)
    {
        auto [q, r] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        s.nics[i]->PostSend(q, bytes, true, 0);
    }
}

/// PFC pause frames the star's switch sent to hosts 1..n-1 (the senders).
inline uint64_t
SenderPauses(const Star& s)
{
    uint64_t n = 0;
    for (uint32_t i = 1; i < s.links.size(); ++i)
    {
        n += s.sw->GetPort(s.links[i].portB)->GetCounters().pausesSent;
    }
    return n;
}

} // namespace rdmatest
} // namespace hockney

#endif
