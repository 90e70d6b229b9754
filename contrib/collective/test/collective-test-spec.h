// SPDX-License-Identifier: GPL-2.0-only
//
// Helpers the collective tests share: a CollectiveSpec from its fields and an
// alpha-beta model from its two parameters.
#ifndef HOCKNEY_COLLECTIVE_TEST_SPEC_H
#define HOCKNEY_COLLECTIVE_TEST_SPEC_H

#include "alpha-beta-model.h"
#include "collective-algorithms.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace hockney
{

inline ns3::CollectiveSpec
Spec(ns3::CollectiveKind kind,
     const std::string& algorithm,
     uint32_t n,
     uint64_t bytes,
     uint32_t slices = 1,
     uint32_t channels = 1)
{
    ns3::CollectiveSpec s;
    s.collective = kind;
    s.algorithm = algorithm;
    s.ranks = n;
    s.bytes = bytes;
    s.slices = slices;
    s.channels = channels;
    return s;
}

inline ns3::Ptr<ns3::AlphaBetaModel>
AlphaBeta(ns3::Time alpha, ns3::DataRate beta)
{
    ns3::Ptr<ns3::AlphaBetaModel> m = ns3::CreateObject<ns3::AlphaBetaModel>();
    m->SetAttribute("Alpha", ns3::TimeValue(alpha));
    m->SetAttribute("Beta", ns3::DataRateValue(beta));
    return m;
}

} // namespace hockney

#endif
