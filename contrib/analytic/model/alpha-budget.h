// SPDX-License-Identifier: GPL-2.0-only
//
// alpha as the sum of its physical parts:
//   alpha = alpha_sw + alpha_NoC + alpha_DMA + alpha_PHY + alpha_link
//           + sum_i alpha_switch_i + alpha_mem
// with a table of typical ranges per component and a table of levels (C2C / B2B /
// R2R / P2P) with their alpha ranges as data (both rules of thumb, not
// measurements; stated in doc/analytic.md, "Sources: Rules of thumb"),
// so that an alpha can be synthesised from datasheet values when there is no
// measurement.
#ifndef HOCKNEY_ALPHA_BUDGET_H
#define HOCKNEY_ALPHA_BUDGET_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One row of the component table: the range in microseconds. The typical
/// value is the geometric mean of the range's ends (the table gives only
/// ranges; the geometric mean is the middle of a range spanning decades).
struct AlphaComponentRange
{
    std::string name;   ///< "sw", "NoC", "DMA", "PHY", "link", "switch", "mem"
    std::string source; ///< physical origin of the component
    double minUs;
    double maxUs;
    double TypicalUs() const;
};

/// The seven components in microseconds (switch per hop, times the hop count).
struct AlphaComponents
{
    double swUs = 0;
    double nocUs = 0;
    double dmaUs = 0;
    double phyUs = 0;
    double linkUs = 0;
    double switchUs = 0; ///< per hop
    uint32_t switchHops = 0;
    double memUs = 0;
};

/// One row of the level table with the components hockney uses for it.
struct AlphaLevel
{
    std::string name; ///< "C2C", "B2B", "R2R", "P2P"
    std::string path; ///< the data path the level adds
    double alphaMinUs; ///< the typical range of alpha for the level
    double alphaMaxUs;
    std::string bottleneck;
    AlphaComponents components;
};

class AlphaBudget : public Object
{
  public:
    static TypeId GetTypeId();
    AlphaBudget();

    /// The seven-component sum, seconds; \p switchSeconds holds one entry per hop.
    static double Sum(double sw,
                      double noc,
                      double dma,
                      double phy,
                      double link,
                      const std::vector<double>& switchSeconds,
                      double mem);
    /// The same for a component set (all hops alike).
    static double SumSeconds(const AlphaComponents& c);

    /// The configured alpha.
    double AlphaSeconds() const;
    Time GetAlpha() const;

    /// The configured components.
    AlphaComponents GetComponents() const;
    void SetComponents(const AlphaComponents& c);

    /// Sets the components of a level ("C2C", "B2B", "R2R", "P2P") or of the
    /// component table's column ("min", "typical", "max", one switch hop).
    /// Throws InputError naming "preset" for another name.
    void ApplyPreset(const std::string& name);

    /// The component table (doc/analytic.md, Rules of thumb).
    static const std::vector<AlphaComponentRange>& ComponentRanges();
    /// The level table with hockney's component choices.
    static const std::vector<AlphaLevel>& Levels();
    static const AlphaLevel& FindLevel(const std::string& name); ///< throws InputError

  private:
    Time m_sw;
    Time m_noc;
    Time m_dma;
    Time m_phy;
    Time m_link;
    Time m_switch;
    uint32_t m_switchHops;
    Time m_mem;
};

} // namespace ns3

#endif
