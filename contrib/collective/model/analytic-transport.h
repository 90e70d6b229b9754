// SPDX-License-Identifier: GPL-2.0-only
//
// A Transport over the analytic module's AnalyticChannel: one node per rank,
// one AnalyticNetDevice per node and level, a message of n bytes delivered
// after whatever the channel's model and contention policy (none, endpoint,
// shared) say. A second level (the inter-node network of a hierarchical
// cluster, with its own model) is a second channel on the same nodes; a level
// function picks the channel of each (src, dst). With the shared policy the
// routes (links crossed per pair) are set on the channels directly.
#ifndef HOCKNEY_ANALYTIC_TRANSPORT_H
#define HOCKNEY_ANALYTIC_TRANSPORT_H

#include "analytic-channel.h"
#include "analytic-model.h"
#include "collective-transport.h"

#include "ns3/node-container.h"

#include <functional>
#include <vector>

namespace ns3
{

class AnalyticTransport : public CollectiveTransport
{
  public:
    using LevelFunction = std::function<uint32_t(uint32_t src, uint32_t dst)>;

    static TypeId GetTypeId();
    AnalyticTransport();

    /// Creates \p ranks nodes and the level-0 channel with \p model and \p policy.
    void Install(uint32_t ranks, Ptr<AnalyticModel> model, AnalyticChannel::ContentionPolicy policy);
    /// The same on nodes the caller made (rank i is nodes.Get(i)).
    void Install(const NodeContainer& nodes, Ptr<AnalyticModel> model, AnalyticChannel::ContentionPolicy policy);
    /// Adds a channel with \p model (same policy) on the same nodes; returns its level.
    uint32_t AddLevel(Ptr<AnalyticModel> model);
    /// Which level carries (src, dst); level 0 for every pair when unset.
    void SetLevelFunction(LevelFunction f);

    Ptr<AnalyticChannel> GetAnalyticChannel(uint32_t level = 0) const;
    uint32_t GetLevelCount() const;
    NodeContainer GetNodes() const;

    // Transport
    void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered) override;
    uint32_t GetRanks() const override;
    std::string GetTransportName() const override;

  protected:
    void DoDispose() override;

  private:
    NodeContainer m_nodes;
    std::vector<Ptr<AnalyticChannel>> m_channels;
    AnalyticChannel::ContentionPolicy m_policy;
    LevelFunction m_levelOf;
};

} // namespace ns3

#endif
