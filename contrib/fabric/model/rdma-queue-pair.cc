// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-queue-pair.h"

#include "ns3/assert.h"

#include <algorithm>

namespace ns3
{

const RdmaMessage&
RdmaQueuePair::Post(RdmaMessage m, uint32_t mtu)
{
    m.firstPsn = nextPsn;
    m.startByte = postedBytes;
    m.npkts = m.bytes == 0 ? 1 : (m.bytes + mtu - 1) / mtu;
    nextPsn += m.npkts;
    outstandingBytes += m.bytes;
    postedBytes += m.bytes;
    sq.push_back(std::move(m));
    return sq.back();
}

const RdmaMessage*
RdmaQueuePair::FindMessage(uint64_t psn) const
{
    // sq holds consecutive PSN ranges in order: the message is the last one
    // starting at or before psn (O(log n), not a scan of every posted message).
    uint32_t lo = 0;
    uint32_t hi = sq.size(); // first message starting after psn: in [lo, hi]
    while (lo < hi)
    {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (psn < sq[mid].firstPsn)
        {
            hi = mid;
        }
        else
        {
            lo = mid + 1;
        }
    }
    if (lo == 0)
    {
        return nullptr;
    }
    const RdmaMessage& m = sq[lo - 1];
    return psn < m.firstPsn + m.npkts ? &m : nullptr;
}

uint64_t
RdmaQueuePair::ByteOffset(uint64_t psn, uint32_t mtu) const
{
    if (psn >= nextPsn)
    {
        return postedBytes;
    }
    const RdmaMessage* m = FindMessage(psn);
    NS_ASSERT(m);
    return m->startByte + std::min<uint64_t>((psn - m->firstPsn) * mtu, m->bytes);
}

void
RdmaQueuePair::RecordAckRequest(uint64_t psn, Time now)
{
    // Go-back-N sends the PSNs from psn on again, in order.
    while (!ackReqSent.empty() && ackReqSent.back().first >= psn)
    {
        ackReqSent.pop_back();
    }
    ackReqSent.emplace_back(psn, now);
}

Time
RdmaQueuePair::TakeRttSample(uint64_t psn, bool nak, Time now)
{
    // ACKs are cumulative: records below psn are answered without a sample
    // of their own (coalesced or lost ACKs); a NAK answers none.
    while (!ackReqSent.empty() && ackReqSent.front().first < psn)
    {
        ackReqSent.pop_front();
    }
    if (nak || ackReqSent.empty() || ackReqSent.front().first != psn)
    {
        return Time(0);
    }
    Time rtt = now - ackReqSent.front().second;
    ackReqSent.pop_front();
    return rtt;
}

uint64_t
RdmaQueuePair::Unwrap(uint64_t reference, uint32_t psn24)
{
    int64_t diff = static_cast<int64_t>((psn24 - (reference & 0xFFFFFF)) & 0xFFFFFF);
    if (diff >= (1 << 23))
    {
        diff -= (1 << 24);
    }
    return static_cast<uint64_t>(static_cast<int64_t>(reference) + diff);
}

RdmaQueuePair::AckOutcome
RdmaQueuePair::Acknowledge(uint32_t psn24, bool nak, Time now, uint32_t mtu, RdmaAckSample& sample)
{
    AckOutcome r{Unwrap(sndUna, psn24), false, false, false};
    const uint64_t newUna = nak ? r.psn : r.psn + 1;
    if (newUna > highSent)
    {
        r.stale = true; // stale or corrupt
        return r;
    }
    r.progress = newUna > sndUna;
    sample.nak = nak;
    sample.rtt = TakeRttSample(r.psn, nak, now);
    if (r.progress)
    {
        sample.ackedBytes = ByteOffset(newUna, mtu) - ByteOffset(sndUna, mtu);
        sndUna = newUna;
    }
    if (nak && sndNxt > r.psn)
    {
        r.goBack = true;
        sndNxt = r.psn;
    }
    if (sndNxt < sndUna)
    {
        sndNxt = sndUna;
    }
    return r;
}

} // namespace ns3
