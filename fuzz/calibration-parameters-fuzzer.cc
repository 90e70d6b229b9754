// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: a calibration parameter file (the JSON `hockney calibrate
// --output=FILE` writes) as `hockney model --calibration=FILE` and `hockney
// compare --calibration=FILE` read it: LoadCalibratedParameters, then each fit
// made into the model the commands build from it (MakeAlphaBetaModel or
// MakeLogGpModel) and the alpha and beta compare takes from it.
//
// ns-3 state: the models are objects of their own (CreateObject and
// SetAttribute on them); no Config default or global value is changed.
#include "calibration-parameters.h"
#include "fuzz-target.h"

#include <cmath>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static hockney::fuzz::InputFile file(".json");
    const std::string& path = file.Write(data, size);
    std::vector<ns3::CalibratedParameters> fits;
    if (!hockney::fuzz::RunParser("calibration-parameters",
                                  [&] { fits = ns3::LoadCalibratedParameters(path, "--calibration"); }))
    {
        return 0;
    }
    for (const auto& fit : fits)
    {
        // Each fit as the command that would select it uses it (one
        // InputError does not stop the others from being tried).
        hockney::fuzz::RunParser("calibration-parameters", [&] {
            if (fit.model == "loggp")
            {
                fit.MakeLogGpModel();
            }
            else
            {
                const ns3::Ptr<ns3::AlphaBetaModel> m = fit.MakeAlphaBetaModel();
                m->GetAlpha(1);
                m->MaxBandwidth();
            }
        });
    }
    return 0;
}
