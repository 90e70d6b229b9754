// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyRdmaCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RdmaRateState);
NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

TypeId
RdmaRateState::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaRateState")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<RdmaRateState>()
            .AddTraceSource("Rate",
                            "Current sending rate RC of the QP",
                            MakeTraceSourceAccessor(&RdmaRateState::m_rate),
                            "ns3::RdmaRateState::DataRateTracedCallback")
            .AddTraceSource("TargetRate",
                            "Target rate RT of the QP",
                            MakeTraceSourceAccessor(&RdmaRateState::m_targetRate),
                            "ns3::RdmaRateState::DataRateTracedCallback");
    return tid;
}

RdmaRateState::RdmaRateState()
    : m_lineRate(DataRate(0)),
      m_rate(DataRate(0)),
      m_targetRate(DataRate(0))
{
}

void
RdmaRateState::SetRate(DataRate r)
{
    if (r == m_rate.Get())
    {
        return;
    }
    m_rate = r;
    if (!m_rateChanged.IsNull())
    {
        m_rateChanged();
    }
}

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionControl").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

void
RdmaCongestionControl::FlowStart(Ptr<RdmaRateState> state)
{
    state->SetTargetRate(state->GetLineRate());
    state->SetRate(state->GetLineRate());
}

void
RdmaCongestionControl::CnpReceived(Ptr<RdmaRateState> state)
{
}

void
RdmaCongestionControl::BytesSent(Ptr<RdmaRateState> state, uint32_t bytes)
{
}

bool
RdmaCongestionControl::DataReceived(Ptr<RdmaRateState> state, bool ceMarked)
{
    return false;
}

void
RdmaCongestionControl::Stop()
{
}

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCcNone")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RdmaCcNone>();
    return tid;
}

Ptr<RdmaCongestionControl>
RdmaCcNone::Fork() const
{
    return CreateObject<RdmaCcNone>();
}

} // namespace ns3
