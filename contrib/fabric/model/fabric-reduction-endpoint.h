// SPDX-License-Identifier: GPL-2.0-only
//
// The GPU side of in-switch reduction (fabric-switch-reduction.h) on one
// endpoint port: it sends a contribution as DATA packets addressed to the
// group (port MTU each, FabricHeader class 0, flow id = group), keeping a few
// packets queued at the port and adding one each time one of them starts
// on the wire (so a 1 GB contribution is never a million queued packets),
// and it takes the sums' copies (source = the group address) off the port's
// receive path, handing every other packet to the receiver installed before
// it (the RDMA NIC). NVLink credits pace the sending as for any packet.
#ifndef HOCKNEY_FABRIC_REDUCTION_ENDPOINT_H
#define HOCKNEY_FABRIC_REDUCTION_ENDPOINT_H

#include "fabric-net-device.h"

#include "ns3/object.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>

namespace ns3
{

class FabricReductionEndpoint : public Object
{
  public:
    static TypeId GetTypeId();
    FabricReductionEndpoint();
    ~FabricReductionEndpoint() override;

    /// Takes over \p port's receive path (chaining the current receiver) and
    /// watches its transmissions.
    void Attach(Ptr<FabricNetDevice> port);
    Ptr<FabricNetDevice> GetPort() const { return m_port; }

    /// Sends \p bytes of contribution to \p group now (after what is queued).
    void Contribute(uint32_t group, uint64_t bytes);
    /// \p done runs when \p bytes of the sum of \p group have arrived here.
    void ExpectSum(uint32_t group, uint64_t bytes, std::function<void()> done);

    uint64_t GetBytesContributed() const { return m_sent; } ///< contribution payload handed to the port
    uint64_t GetBytesReceived() const { return m_received; } ///< sum payload received
    /// Sums expected and not (yet) complete.
    uint32_t GetPendingSums() const { return static_cast<uint32_t>(m_expect.size()); }

  protected:
    void DoDispose() override;

  private:
    void Pump();
    void TxBegin(Ptr<const Packet> packet);
    void Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header);

    struct Expectation
    {
        uint64_t bytes = 0;
        uint64_t received = 0;
        std::function<void()> done;
    };

    Ptr<FabricNetDevice> m_port;
    FabricNetDevice::FabricRxCallback m_next;
    std::deque<std::pair<uint32_t, uint64_t>> m_toSend; ///< (group, bytes left)
    uint32_t m_queued{0};                                 ///< own packets queued at the port
    uint32_t m_window{4};
    uint64_t m_sent{0};
    uint64_t m_received{0};
    std::map<uint32_t, Expectation> m_expect;
};

} // namespace ns3

#endif
