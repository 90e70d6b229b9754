// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-congestion-control.h"
#include "fast-simulator-impl.h"

#include "attribute-defaults.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <stdexcept>

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
        m_rateChanged(qpNumber);
    }
}

void
RdmaRateState::SetWindow(uint64_t bytes)
{
    if (bytes == m_window)
    {
        return;
    }
    m_window = bytes;
    if (!m_windowChanged.IsNull())
    {
        m_windowChanged(qpNumber);
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

void
RdmaCongestionControl::AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample)
{
}

void
RdmaCongestionControl::Timeout(Ptr<RdmaRateState> state)
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
    m_timeout.Cancel();
}

void
RdmaCongestionControl::CopyAttributesTo(Ptr<RdmaCongestionControl> to) const
{
    for (TypeId tid = GetInstanceTypeId(); tid != RdmaCongestionControl::GetTypeId(); tid = tid.GetParent())
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            if ((info.flags & TypeId::ATTR_GET) && (info.flags & TypeId::ATTR_SET))
            {
                // Through the accessor, not by name: no lookup per attribute,
                // since a QP forks its algorithm whenever it is created.
                Ptr<AttributeValue> v = info.checker->Create();
                info.accessor->Get(this, *v);
                info.accessor->Set(PeekPointer(to), *v);
            }
        }
    }
}

void
RdmaCongestionControl::ScheduleTimeout(Ptr<RdmaRateState> state, Time delay)
{
    m_timeout.Cancel();
    m_timeout = hotsim::Schedule(delay, &RdmaCongestionControl::FireTimeout, this, state);
}

void
RdmaCongestionControl::CancelTimeout()
{
    m_timeout.Cancel();
}

bool
RdmaCongestionControl::IsTimeoutPending() const
{
    return m_timeout.IsRunning();
}

void
RdmaCongestionControl::FireTimeout(Ptr<RdmaRateState> state)
{
    Timeout(state);
}

void
RdmaCongestionControl::DoDispose()
{
    m_timeout.Cancel();
    Object::DoDispose();
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

bool
RdmaCcNone::IsFresh(const RdmaRateState& state) const
{
    return !IsTimeoutPending() && state.GetRate() == state.GetLineRate() &&
           state.GetTargetRate() == state.GetLineRate() && state.GetWindow() == 0;
}

namespace
{
std::vector<RdmaCcEntry>&
Entries()
{
    // Built on first use: registrations run during static initialisation, in
    // an order across files that C++ leaves open.
    static std::vector<RdmaCcEntry> entries{{"none", &RdmaCcNone::GetTypeId, {}, "", {}}};
    return entries;
}

std::string
SpecList()
{
    // "a, b, c or d"
    std::vector<std::string> specs = RdmaCcRegistry::Specs();
    std::string list;
    for (size_t i = 0; i < specs.size(); ++i)
    {
        list += (i == 0 ? "" : i + 1 == specs.size() ? " or " : ", ") + specs[i];
    }
    return list;
}

Ptr<RdmaCongestionControl>
Instantiate(const RdmaCcEntry& e)
{
    ObjectFactory f;
    f.SetTypeId(e.typeId());
    return f.Create<RdmaCongestionControl>();
}
} // namespace

void
RdmaCcRegistry::Register(const RdmaCcEntry& entry)
{
    if (Find(entry.name))
    {
        throw std::invalid_argument("congestion-control registration: expected a new name, got '" +
                                    entry.name + "' twice");
    }
    std::vector<RdmaCcEntry>& entries = Entries();
    // By name after "none": the lists that name them (Names, Specs, the
    // messages of a bad name) then do not depend on the order in which the
    // linker happened to run the registrations.
    auto at = std::upper_bound(entries.begin() + 1, entries.end(), entry.name,
                               [](const std::string& name, const RdmaCcEntry& e) { return name < e.name; });
    entries.insert(at, entry);
}

const RdmaCcEntry*
RdmaCcRegistry::Find(const std::string& name)
{
    for (const auto& e : Entries())
    {
        if (e.name == name)
        {
            return &e;
        }
    }
    return nullptr;
}

std::vector<std::string>
RdmaCcRegistry::Names()
{
    std::vector<std::string> v;
    for (const auto& e : Entries())
    {
        v.push_back(e.name);
    }
    return v;
}

std::string
RdmaCcRegistry::NameList()
{
    std::string list;
    for (const auto& n : Names())
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    return list;
}

std::vector<std::string>
RdmaCcRegistry::Specs()
{
    std::vector<std::string> v;
    for (const auto& e : Entries())
    {
        v.push_back(e.name);
        for (const auto& p : e.presets)
        {
            v.push_back(e.name + ":" + p);
        }
    }
    return v;
}

Ptr<RdmaCongestionControl>
RdmaCcRegistry::Create(const std::string& spec, DataRate lineRate)
{
    if (lineRate.GetBitRate() == 0)
    {
        throw std::invalid_argument("congestion-control line rate: expected a rate > 0, got 0");
    }
    const size_t colon = spec.find(':');
    const RdmaCcEntry* e = Find(spec.substr(0, colon));
    if (!e || (colon != std::string::npos &&
               std::find(e->presets.begin(), e->presets.end(), spec.substr(colon + 1)) ==
                   e->presets.end()))
    {
        throw std::invalid_argument("congestion-control: expected " + SpecList() + ", got '" +
                                    spec + "'");
    }
    Ptr<RdmaCongestionControl> cc = Instantiate(*e);
    const std::string preset =
        colon == std::string::npos ? e->defaultPreset : spec.substr(colon + 1);
    if (!preset.empty())
    {
        e->applyPreset(cc, preset, lineRate);
    }
    ApplyUserAttributes(cc); // the user's --ns3:: or scenario values win over the preset's
    return cc;
}

Ptr<RdmaCongestionControl>
CreateRdmaCongestionControl(const std::string& name)
{
    const RdmaCcEntry* e = RdmaCcRegistry::Find(name);
    if (!e)
    {
        throw std::invalid_argument("congestion-control: expected one of " + RdmaCcRegistry::NameList() + ", got '" +
                                    name + "'");
    }
    return name == "none" ? nullptr : Instantiate(*e);
}

} // namespace ns3
