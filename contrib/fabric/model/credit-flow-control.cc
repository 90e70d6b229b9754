// SPDX-License-Identifier: GPL-2.0-only
#include "credit-flow-control.h"
#include "fast-simulator-impl.h"

#include "fabric-log.h"
#include "fabric-net-device.h"
#include "switch-buffer.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricCredit");
NS_OBJECT_ENSURE_REGISTERED(FabricCreditFlowControl);

TypeId
FabricCreditFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricCreditFlowControl")
            .SetParent<FabricFlowControl>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricCreditFlowControl>()
            .AddAttribute("PeerBufferBytes",
                          "Receiver buffer per class granted to this sender as initial "
                          "credit, in on-wire bytes (must equal the peer's real buffer).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&FabricCreditFlowControl::m_peerBuffer),
                          MakeUintegerChecker<uint64_t>(1))
            // Hardware returns credits in batches, not per packet: IB's flow
            // control packets carry a per-VL cumulative count of 64-byte
            // blocks and are sent periodically; NVLink returns them in flit
            // headers. 8 KiB is at most 1/16 of every preset's port buffer
            // (NVLink 256 KiB, IB 128 KiB): against one update per packet it
            // cut the credit updates of an 8-GPU 16 MB ring AllReduce 30x and
            // changed no simulated time by more than 1e-5 relative
            // (doc/fabric.md, "Modelling choices made for speed").
            .AddAttribute("UpdateThresholdBytes",
                          "Freed bytes accumulated before a credit update is requested "
                          "(updates merge while one waits; 1 = after every packet).",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&FabricCreditFlowControl::m_updateThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Piggyback",
                          "Credit updates ride on outgoing data packets at no wire cost "
                          "(NVLink flit headers; IB's small FCPs between packets, whose "
                          "cost is ~0.1 %); a standalone update is sent only when the "
                          "transmitter has no data ready. False: every update is a "
                          "ControlFrameBytes frame of its own.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricCreditFlowControl::m_piggyback),
                          MakeBooleanChecker());
    return tid;
}

FabricCreditFlowControl::FabricCreditFlowControl() = default;
FabricCreditFlowControl::~FabricCreditFlowControl() = default;

void
FabricCreditFlowControl::SetParameters(const FabricFlowControlParameters& params)
{
    NS_LOG_FUNCTION(this << params.creditBufferBytes << params.creditPiggyback);
    // Through the attributes, so that their checkers apply.
    SetAttribute("PeerBufferBytes", UintegerValue(params.creditBufferBytes));
    SetAttribute("Piggyback", BooleanValue(params.creditPiggyback));
}

void
FabricCreditFlowControl::AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                                          uint64_t headroomBytes) const
{
    NS_LOG_FUNCTION(this << port << headroomBytes);
    buffer.AddPort(port, FabricSwitchBuffer::CREDIT, headroomBytes, 0);
}

uint64_t
FabricCreditFlowControl::GetSendBudget(uint8_t cls) const
{
    uint64_t freed = m_peerFreed[cls];
    if (!m_held.empty())
    {
        const Time now = hotsim::Now();
        for (const HeldUpdate& h : m_held)
        {
            if (!h.at.Arrived(now))
            {
                break;
            }
            freed = std::max(freed, h.freed[cls]); // (the last one due: cumulative counts)
        }
    }
    return m_peerBuffer + freed - m_sent[cls];
}

void
FabricCreditFlowControl::SettleLate()
{
    if (m_held.empty())
    {
        return;
    }
    const Time now = hotsim::Now();
    size_t due = 0;
    while (due < m_held.size() && m_held[due].at.Arrived(now))
    {
        ++due;
    }
    if (due == 0)
    {
        return;
    }
    // Cumulative counts, sent in order: the last update due holds the
    // others' (the max keeps that true whatever the order).
    const std::array<uint64_t, kFabricClasses>& freed = m_held[due - 1].freed;
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        m_peerFreed[c] = std::max(m_peerFreed[c], freed[c]);
    }
    m_heldSettled += due;
    if (due == m_held.size())
    {
        m_held.clear();
    }
    else
    {
        m_held.erase(m_held.begin(), m_held.begin() + due);
    }
}

bool
FabricCreditFlowControl::ReceiveControlAt(const FabricControlFrame& frame, const FabricFoldedArrival& at)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << at.at);
    SettleLate();
    if (frame.kind != FabricHeader::CREDIT_UPDATE)
    {
        return false;
    }
    // Cumulative counts: holding several changes nothing but when each is
    // counted (each from its own arrival on, in arrival order).
    InsertInArrivalOrder(m_held, HeldUpdate{at, frame.values}, [](const HeldUpdate& h) { return h.at; });
    return true;
}

uint64_t
FabricCreditFlowControl::GetFoldedArrived() const
{
    uint64_t n = m_heldSettled;
    const Time now = hotsim::Now();
    for (const HeldUpdate& h : m_held)
    {
        n += h.at.Arrived(now) ? 1 : 0;
    }
    return n;
}

void
FabricCreditFlowControl::NotifyTransmit(uint8_t cls, uint32_t wireBytes)
{
    m_sent[cls] += wireBytes;
}

void
FabricCreditFlowControl::ReceiveControl(const FabricControlFrame& frame)
{
    HOCKNEY_HOT_LOG_FUNCTION(this);
    if (frame.kind != FabricHeader::CREDIT_UPDATE)
    {
        return;
    }
    SettleLate();
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        m_peerFreed[c] = std::max(m_peerFreed[c], frame.values[c]);
    }
    m_device->NotifyFlowControl();
}

void
FabricCreditFlowControl::IngressFreed(uint8_t cls, uint32_t wireBytes)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(cls) << wireBytes);
    m_freed[cls] += wireBytes;
    // Links are symmetric (both ends get one FabricLinkConfig): the buffer
    // this port grants its peer is the PeerBufferBytes it is granted. Up to
    // a threshold of freed bytes may stay unreported, so the peer must still
    // have credit for its largest frame without them: the threshold is
    // capped at an eighth of the buffer and at the buffer less one frame.
    const uint64_t frame = m_device->MaxFrameWireBytes();
    const uint64_t room = m_peerBuffer > frame ? m_peerBuffer - frame : 1;
    const uint64_t threshold =
        std::max<uint64_t>(1, std::min<uint64_t>({uint64_t(m_updateThreshold), m_peerBuffer / 8, room}));
    if (!m_pending && m_freed[cls] - m_reported[cls] >= threshold)
    {
        m_pending = true;
        m_device->NotifyFlowControl();
    }
}

void
FabricCreditFlowControl::NotifyLinkState(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up)
    {
        m_pending = true;
        m_device->NotifyFlowControl();
        return;
    }
    // The held updates still on the wire are lost with the link (at their
    // own arrival time, as their events would have been ordered with the
    // fault's: FabricFoldedArrival::LostWithLinkDownNow).
    const Time now = hotsim::Now();
    m_held.erase(std::remove_if(m_held.begin(), m_held.end(),
                                [now](const HeldUpdate& h) { return h.at.LostWithLinkDownNow(now); }),
                 m_held.end());
    SettleLate();
}

bool
FabricCreditFlowControl::TakeControlFrame(FabricControlFrame& frame)
{
    HOCKNEY_HOT_LOG_FUNCTION(this);
    if (!m_pending)
    {
        return false;
    }
    m_pending = false;
    frame.kind = FabricHeader::CREDIT_UPDATE;
    frame.source = m_device->GetFabricAddress();
    frame.values = m_freed;
    m_reported = m_freed;
    return true;
}

} // namespace ns3
