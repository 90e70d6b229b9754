// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-flow-control.h"
#include "fast-simulator-impl.h"

#include "fabric-channel.h"
#include "fabric-net-device.h"
#include "fabric-switch.h"
#include "switch-buffer.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricPfc");

namespace
{
// Pause timers are long (up to 335 us at 100 Gb/s): a cancelled event would
// still advance the clock to its time at the end of a run, so remove it.
void
Drop(EventId& e)
{
    if (e.IsRunning())
    {
        Simulator::Remove(e);
    }
    e = EventId();
}
} // namespace
NS_OBJECT_ENSURE_REGISTERED(FabricPfcFlowControl);

TypeId
FabricPfcFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricPfcFlowControl")
            .SetParent<FabricFlowControl>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricPfcFlowControl>()
            .AddAttribute("LosslessClasses",
                          "Bit mask of the priority classes PFC protects (others are lossy).",
                          UintegerValue(0xFF),
                          MakeUintegerAccessor(&FabricPfcFlowControl::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time sent in an XOFF frame, in quanta of 512 bit times "
                          "(IEEE 802.1Qbb; 0xFFFF = 335.5 us at 100 Gb/s).",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&FabricPfcFlowControl::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("RefreshFraction",
                          "While congested, the XOFF frame is re-sent after this fraction "
                          "of its pause time, so the peer never resumes early.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&FabricPfcFlowControl::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            // SONiC's pfcwd takes 100-5000 ms for detection and restoration
            // ("hundreds of milliseconds"; restoration 2 x detection when
            // unset): far above any pause a congested but healthy fabric
            // holds, so only a storm trips it.
            .AddAttribute("StormDetectionTime",
                          "PFC watchdog: a class held paused by the peer without a break for "
                          "this long is a PFC storm (checked when a pause frame extends it).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&FabricPfcFlowControl::m_stormDetection),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("StormRestorationTime",
                          "PFC watchdog: after a storm, PFC is restored on the class once no "
                          "pause frame of it arrived for this long.",
                          TimeValue(MilliSeconds(400)),
                          MakeTimeAccessor(&FabricPfcFlowControl::m_stormRestoration),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("StormAction",
                          "PFC watchdog's action on a storm: Forward (ignore the peer's pauses "
                          "of the class until restoration: PFC off on that queue) or Alert "
                          "(report only).",
                          EnumValue(STORM_FORWARD),
                          MakeEnumAccessor(&FabricPfcFlowControl::m_stormAction),
                          MakeEnumChecker(STORM_FORWARD, "Forward", STORM_ALERT, "Alert"))
            .AddTraceSource("PfcStorm",
                            "The PFC watchdog detected a storm on a class (class, time it had "
                            "been paused, true) or restored PFC on it (class, storm length, false).",
                            MakeTraceSourceAccessor(&FabricPfcFlowControl::m_stormTrace),
                            "ns3::FabricPfcFlowControl::StormCallback");
    return tid;
}

FabricPfcFlowControl::FabricPfcFlowControl() = default;
FabricPfcFlowControl::~FabricPfcFlowControl() = default;

void
FabricPfcFlowControl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& e : m_refresh)
    {
        e.Cancel();
    }
    for (auto& e : m_expire)
    {
        e.Cancel();
    }
    for (auto& e : m_restore)
    {
        e.Cancel();
    }
    FabricFlowControl::DoDispose();
}

bool
FabricPfcFlowControl::IsLossless(uint8_t cls) const
{
    return (m_losslessMask >> cls) & 1u;
}

void
FabricPfcFlowControl::SetParameters(const FabricFlowControlParameters& params)
{
    NS_LOG_FUNCTION(this << unsigned(params.losslessClasses));
    SetAttribute("LosslessClasses", UintegerValue(params.losslessClasses));
}

void
FabricPfcFlowControl::AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                                       uint64_t headroomBytes) const
{
    NS_LOG_FUNCTION(this << port << headroomBytes);
    uint8_t lossless = 0;
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        lossless |= uint8_t(IsLossless(c) << c);
    }
    if (headroomBytes == 0)
    {
        const FabricNetDevice* device = m_device;
        Ptr<FabricChannel> ch = DynamicCast<FabricChannel>(device->GetChannel());
        Time delay = ch ? ch->GetDelay() : Time(0);
        // The frame the switch's port may be sending and the one the
        // sender may have started: the larger MTU of the two ends.
        // A network transfer unit is indivisible on the wire as a frame is:
        // it is the F_max of the delay model (MaxFrameWireBytes).
        uint32_t maxFrame = device->MaxFrameWireBytes();
        if (Ptr<FabricNetDevice> peer = device->GetPeer())
        {
            maxFrame = std::max(maxFrame, peer->MaxFrameWireBytes());
        }
        headroomBytes = FabricSwitch::PfcHeadroomBytes(device->GetDataRate(), delay, maxFrame,
                                                       device->GetControlFrameBytes());
    }
    buffer.AddPort(port, FabricSwitchBuffer::LOSSLESS, headroomBytes, lossless);
}

Time
FabricPfcFlowControl::QuantaToTime(uint16_t quanta) const
{
    // One quantum is 512 bit times = 64 bytes at the link rate.
    return m_device->SerializationTime(uint64_t(quanta) * 64);
}

void
FabricPfcFlowControl::IngressCongested(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    if (!IsLossless(cls) || IsAsserting(cls))
    {
        return;
    }
    NS_LOG_LOGIC("XOFF class " << unsigned(cls));
    m_assertMask |= uint8_t(1u << cls);
    m_pendingMask |= uint8_t(1u << cls);
    m_device->NotifyFlowControl();
}

void
FabricPfcFlowControl::IngressUncongested(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    if (!IsAsserting(cls))
    {
        return;
    }
    NS_LOG_LOGIC("XON class " << unsigned(cls));
    m_assertMask &= uint8_t(~(1u << cls));
    Drop(m_refresh[cls]);
    m_pendingMask |= uint8_t(1u << cls);
    m_device->NotifyFlowControl();
}

void
FabricPfcFlowControl::Refresh(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    if (IsAsserting(cls))
    {
        m_pendingMask |= uint8_t(1u << cls);
        m_device->NotifyFlowControl();
    }
}

bool
FabricPfcFlowControl::TakeControlFrame(FabricControlFrame& frame)
{
    NS_LOG_FUNCTION(this);
    if (m_pendingMask == 0)
    {
        return false;
    }
    frame.kind = FabricHeader::PFC_PAUSE;
    frame.source = m_device->GetFabricAddress();
    frame.classEnable = m_pendingMask;
    frame.values.fill(0);
    bool pause = false;
    Time refresh = Time(QuantaToTime(m_pauseQuanta).GetTimeStep() * m_refreshFraction);
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        if (!((m_pendingMask >> c) & 1u))
        {
            continue;
        }
        if (IsAsserting(c))
        {
            frame.values[c] = m_pauseQuanta;
            pause = true;
            Drop(m_refresh[c]);
            m_refresh[c] = hotsim::Schedule(refresh, &FabricPfcFlowControl::Refresh, this, c);
        }
    }
    m_pendingMask = 0;
    m_device->CountPfcFrameSent(pause);
    return true;
}

void
FabricPfcFlowControl::ReceiveControl(const FabricControlFrame& frame)
{
    NS_LOG_FUNCTION(this << frame.classEnable);
    if (frame.kind != FabricHeader::PFC_PAUSE)
    {
        return;
    }
    bool anyPause = false;
    bool resumed = false;
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        if (!((frame.classEnable >> c) & 1u))
        {
            continue;
        }
        const auto quanta = static_cast<uint16_t>(frame.values[c]);
        if (IsIgnoringPauses(c))
        {
            // Storm mitigated: PFC is off on this class; count the frame
            // towards restoration only.
            anyPause = anyPause || quanta > 0;
            m_lastStormPause[c] = quanta > 0 ? hotsim::Now() : m_lastStormPause[c];
            continue;
        }
        bool was = IsPaused(c);
        Drop(m_expire[c]);
        if (quanta > 0)
        {
            anyPause = true;
            m_expire[c] = hotsim::Schedule(QuantaToTime(quanta),
                                              &FabricPfcFlowControl::PauseExpired, this, c);
            if (!was)
            {
                m_pausedMask |= uint8_t(1u << c);
                m_pausedSince[c] = hotsim::Now();
                m_device->NotifyPauseState(c, true);
            }
            else if (!((m_stormMask >> c) & 1u) && hotsim::Now() - m_pausedSince[c] >= m_stormDetection)
            {
                DetectStorm(c);
                resumed = resumed || IsIgnoringPauses(c);
            }
        }
        else if (was)
        {
            m_pausedMask &= uint8_t(~(1u << c));
            EndAlertedStorm(c);
            m_device->NotifyPauseState(c, false);
            resumed = true;
        }
    }
    if (anyPause)
    {
        m_device->CountPfcFrameReceived();
    }
    if (resumed)
    {
        m_device->NotifyFlowControl();
    }
}

void
FabricPfcFlowControl::DetectStorm(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    const Time now = hotsim::Now();
    m_stormMask |= uint8_t(1u << cls);
    m_stormTrace(cls, now - m_pausedSince[cls], true);
    if (m_stormAction != STORM_FORWARD)
    {
        return;
    }
    m_ignoreMask |= uint8_t(1u << cls);
    Drop(m_expire[cls]);
    m_pausedMask &= uint8_t(~(1u << cls));
    m_device->NotifyPauseState(cls, false);
    m_lastStormPause[cls] = now;
    Drop(m_restore[cls]);
    m_restore[cls] = hotsim::Schedule(m_stormRestoration, &FabricPfcFlowControl::CheckRestoration, this, cls);
}

void
FabricPfcFlowControl::CheckRestoration(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    m_restore[cls] = EventId();
    const Time quiet = hotsim::Now() - m_lastStormPause[cls];
    if (quiet < m_stormRestoration)
    {
        // A pause arrived meanwhile: one event per restoration period, not per frame.
        m_restore[cls] = hotsim::Schedule(m_stormRestoration - quiet, &FabricPfcFlowControl::CheckRestoration,
                                             this, cls);
        return;
    }
    m_ignoreMask &= uint8_t(~(1u << cls));
    m_stormMask &= uint8_t(~(1u << cls));
    m_stormTrace(cls, m_lastStormPause[cls] - m_pausedSince[cls], false);
}

void
FabricPfcFlowControl::EndAlertedStorm(uint8_t cls)
{
    // Alert only: the storm ends when the pause does.
    if ((m_stormMask >> cls) & 1u && !IsIgnoringPauses(cls))
    {
        m_stormMask &= uint8_t(~(1u << cls));
        m_stormTrace(cls, hotsim::Now() - m_pausedSince[cls], false);
    }
}

void
FabricPfcFlowControl::NotifyLinkState(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (!up)
    {
        for (uint8_t c = 0; c < kFabricClasses; ++c)
        {
            if (IsPaused(c))
            {
                Drop(m_expire[c]);
                m_pausedMask &= uint8_t(~(1u << c));
                EndAlertedStorm(c);
                m_device->NotifyPauseState(c, false);
            }
        }
        return;
    }
    if (m_assertMask)
    {
        m_pendingMask |= m_assertMask;
        m_device->NotifyFlowControl();
    }
}

void
FabricPfcFlowControl::PauseExpired(uint8_t cls)
{
    NS_LOG_FUNCTION(this << unsigned(cls));
    m_expire[cls] = EventId();
    m_pausedMask &= uint8_t(~(1u << cls));
    EndAlertedStorm(cls);
    m_device->NotifyPauseState(cls, false);
    m_device->NotifyFlowControl();
}

} // namespace ns3
