// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-loss.h"

#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricLinkLoss");

void
InstallLinkLoss(Ptr<FabricNetDevice> a, Ptr<FabricNetDevice> b, const FabricLinkLoss& loss)
{
    NS_LOG_FUNCTION(a << b << loss.rate);
    if (!a || !b)
    {
        throw std::invalid_argument("InstallLinkLoss: expected the two devices of a link");
    }
    // 1 would lose every packet: no transport recovers from that.
    if (!(loss.rate >= 0 && loss.rate < 1))
    {
        throw std::invalid_argument("InstallLinkLoss rate: expected a probability in [0, 1), got " +
                                    std::to_string(loss.rate));
    }
    for (const Ptr<FabricNetDevice>& d : {a, b})
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(loss.unit == FabricLinkLoss::Unit::BIT ? RateErrorModel::ERROR_UNIT_BIT
                                                           : RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(loss.rate);
        d->SetReceiveErrorModel(em);
    }
}

} // namespace ns3
