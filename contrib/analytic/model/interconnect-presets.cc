// SPDX-License-Identifier: GPL-2.0-only
#include "interconnect-presets.h"

#include "analytic-model.h"
#include "input-error.h"

#include "ns3/data-rate.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

const std::vector<InterconnectPreset>&
InterconnectPresets()
{
    // Sources: validation/data/hardware_anchors.csv (which names each original:
    // vendor page, datasheet, perftest or nccl-tests measurement). The n0 values
    // are the assumed typical ones of doc/analytic.md ("Sources: Rules of thumb").
    // "assumed" marks a value with no measurement behind it.
    static const std::vector<InterconnectPreset> table = {
        // The H100 NVLink example: alpha ~ 5 us (assumed), beta ~ 450 GB/s,
        // n* = 2.25 MB; n0 ~ 256 KB (assumed). 450 GB/s per direction = 18 NVLink 4
        // links (NVIDIA Hopper page, 900 GB/s bidirectional).
        {"h100-nvlink", "H100/H200 NVLink 4, per GPU, one direction", 5.0, 450e9, 256000,
         "alpha, n0 assumed (doc/analytic.md); NVIDIA Hopper architecture page (900 GB/s bidirectional)"},
        // A100: 12 links x 50 GB/s bidirectional = 300 GB/s per direction (third-party table
        // in hardware_anchors.csv); alpha and n0 assumed equal to h100-nvlink's.
        {"a100-nvlink", "A100 NVLink 3, per GPU, one direction", 5.0, 300e9, 256000,
         "beta: 600 GB/s bidirectional (hardware_anchors.csv, third-party); alpha, n0 assumed as h100-nvlink"},
        // B200/GB200: 18 x 100 GB/s bidirectional = 900 GB/s per direction (NVIDIA NVLink page);
        // alpha and n0 assumed as NVLink 4.
        {"nvlink5", "B200/GB200 NVLink 5, per GPU, one direction", 5.0, 900e9, 256000,
         "beta: NVIDIA NVLink page, 1.8 TB/s bidirectional; alpha, n0 assumed as h100-nvlink"},
        // NDR 400 Gb/s per port (NVIDIA QM97XX manual). alpha: 1.67 us switched one-way verbs
        // latency measured on EDR (perftest ib_send_lat, hardware_anchors.csv); no NDR
        // latency measurement at hand. n0 ~ 64 KB for IB (assumed).
        {"ib-ndr", "InfiniBand NDR, one 400 Gb/s port through one switch", 1.67, 50e9, 64000,
         "beta: QM97XX manual (400 Gb/s); alpha: EDR switched ib_send_lat 1.67 us; n0: assumed (IB typical)"},
        // HDR 200 Gb/s; ib_write_bw plateau 196.8 Gb/s on ConnectX-6 (perftest, hardware_anchors.csv).
        {"ib-hdr", "InfiniBand HDR, one 200 Gb/s port through one switch", 1.67, 25e9, 64000,
         "beta: 200 Gb/s (ib_write_bw plateau 196.8 Gb/s measured); alpha: EDR switched 1.67 us; n0: assumed (IB typical)"},
        // EDR 100 Gb/s back to back: 0.79 us one-way (perftest ib_send_lat UD, hardware_anchors.csv).
        {"ib-edr", "InfiniBand EDR, one 100 Gb/s port, back to back", 0.79, 12.5e9, 64000,
         "alpha: ib_send_lat UD EDR back to back 0.79 us (measured); beta: 100 Gb/s; n0: assumed (IB typical)"},
        // RoCEv2: no measured latency in data/measured; assumed 2 us (switched IB 1.67 us plus an
        // Ethernet switch's extra forwarding). n0 as IB (assumed).
        {"roce-100", "RoCEv2, one 100 Gb/s port through one switch", 2.0, 12.5e9, 64000,
         "beta: 100 Gb/s line rate; alpha assumed (no measurement at hand); n0 as IB (assumed)"},
        {"roce-400", "RoCEv2, one 400 Gb/s port through one switch", 2.0, 50e9, 64000,
         "beta: 400 Gb/s line rate; alpha assumed (no measurement at hand); n0 as IB (assumed)"},
        // PCIe Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction (derived); H2D
        // measured 54.8 GB/s on H100 (hardware_anchors.csv). alpha assumed 1 us (the typical
        // DMA start range 0.2-1 us of doc/analytic.md, at its upper end); n0 assumed as IB.
        {"pcie-gen5-x16", "PCIe Gen5 x16, one direction", 1.0, 63.0e9, 64000,
         "beta: derived 63.0 GB/s (measured H2D 54.8 GB/s); alpha, n0 assumed"},
        // PCIe Gen4 x16: 16 GT/s, half of Gen5: 31.5 GB/s (derived).
        {"pcie-gen4-x16", "PCIe Gen4 x16, one direction", 1.0, 31.5e9, 64000,
         "beta: derived 31.5 GB/s; alpha, n0 assumed"},
    };
    return table;
}

const InterconnectPreset&
FindInterconnectPreset(const std::string& name, const std::string& field)
{
    std::string names;
    for (const auto& p : InterconnectPresets())
    {
        if (p.name == name)
        {
            return p;
        }
        names += (names.empty() ? "" : ", ") + p.name;
    }
    throw InputError(field, "expected one of " + names + ", got '" + name + "'");
}

void
ApplyInterconnectPreset(Ptr<AlphaBetaModel> model, const InterconnectPreset& preset)
{
    model->SetAttribute("Alpha", TimeValue(SecondsToTime(preset.alphaUs * 1e-6)));
    model->SetAttribute("Beta",
                        DataRateValue(DataRate(static_cast<uint64_t>(std::llround(preset.betaBytesPerSecond * 8)))));
    model->SetAttribute("N0", UintegerValue(preset.n0Bytes));
}

Ptr<AlphaBetaModel>
CreateAlphaBetaModel(const std::string& presetName)
{
    const InterconnectPreset& p = FindInterconnectPreset(presetName);
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    ApplyInterconnectPreset(m, p);
    return m;
}

} // namespace ns3
