// SPDX-License-Identifier: GPL-2.0-only
#include "analytic-model.h"

#include "input-error.h"

#include "ns3/log.h"

#include <cmath>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticModel");
NS_OBJECT_ENSURE_REGISTERED(AnalyticModel);

TypeId
AnalyticModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AnalyticModel").SetParent<Object>().SetGroupName("Analytic");
    return tid;
}

} // namespace ns3
