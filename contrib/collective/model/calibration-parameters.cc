// SPDX-License-Identifier: GPL-2.0-only
#include "calibration-parameters.h"

#include "input-error.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>

namespace ns3
{

namespace
{

nlohmann::ordered_json
ToJson(const ResultRow::Value& v)
{
    if (const auto* b = std::get_if<bool>(&v))
    {
        return *b;
    }
    if (const auto* i = std::get_if<int64_t>(&v))
    {
        return *i;
    }
    if (const auto* d = std::get_if<double>(&v))
    {
        return std::isfinite(*d) ? nlohmann::ordered_json(*d) : nlohmann::ordered_json();
    }
    if (const auto* s = std::get_if<std::string>(&v))
    {
        return *s;
    }
    return nullptr;
}

uint64_t
RoundBytes(double v)
{
    return static_cast<uint64_t>(std::llround(v));
}

} // namespace

void
WriteCalibrationFile(const std::string& path, const std::vector<CalibrationFit>& fits)
{
    nlohmann::ordered_json doc;
    doc["format"] = "hockney-calibration";
    doc["version"] = 1;
    doc["fits"] = nlohmann::ordered_json::array();
    for (const auto& f : fits)
    {
        nlohmann::ordered_json j;
        ResultRow row = f.ToRow();
        for (const auto& [k, v] : row.Fields())
        {
            if (k != "diagnostics")
            {
                j[k] = ToJson(v);
            }
        }
        j["steps"] = f.steps;
        j["busbw_factor"] = f.busbwFactor;
        j["sources"] = f.sources;
        j["diagnostics"] = f.diagnostics;
        j["residuals"] = nlohmann::ordered_json::array();
        for (const auto& r : f.residuals)
        {
            j["residuals"].push_back({{"bytes", r.bytes},
                                      {"step_bytes", r.stepBytes},
                                      {"time_s", r.timeS},
                                      {"fitted_s", r.fittedS},
                                      {"relative", r.relative},
                                      {"where", r.where}});
        }
        doc["fits"].push_back(j);
    }
    doc["meta"] = ProvenanceJson(); // as every JSON output (result-row.h)
    std::ofstream out(path);
    if (!out)
    {
        throw std::runtime_error("cannot write parameter file '" + path + "'");
    }
    out << doc.dump(2) << "\n";
    if (!out)
    {
        throw std::runtime_error("writing parameter file '" + path + "' failed");
    }
}

namespace
{
std::vector<CalibratedParameters> LoadFile(const std::string& path);
} // namespace

std::vector<CalibratedParameters>
LoadCalibratedParameters(const std::string& path, const std::string& flag)
{
    if (flag.empty())
    {
        return LoadFile(path);
    }
    try
    {
        return LoadFile(path);
    }
    catch (const InputError& e)
    {
        throw InputError(flag, e.what());
    }
}

namespace
{

std::vector<CalibratedParameters>
LoadFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path, "expected a readable hockney calibration file, cannot open it");
    }
    nlohmann::json doc;
    try
    {
        in >> doc;
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError(path, std::string("expected a JSON calibration file: ") + e.what());
    }
    if (!doc.is_object() || doc.value("format", "") != "hockney-calibration" || !doc.contains("fits") ||
        !doc["fits"].is_array())
    {
        throw InputError(path, "expected {\"format\": \"hockney-calibration\", \"fits\": [...]} as written "
                               "by hockney calibrate --output");
    }
    std::vector<CalibratedParameters> out;
    size_t i = 0;
    for (const auto& j : doc["fits"])
    {
        std::string where = path + ": fits[" + std::to_string(i++) + "]";
        if (!j.is_object() || !j.contains("model") || !j["model"].is_string())
        {
            throw InputError(where, "expected an object with a \"model\"");
        }
        auto num = [&](const char* key) -> double {
            if (!j.contains(key) || j[key].is_null())
            {
                return NAN;
            }
            if (!j[key].is_number())
            {
                throw InputError(where + "." + key, "expected a number or null");
            }
            return j[key].get<double>();
        };
        CalibratedParameters p;
        p.model = j["model"].get<std::string>();
        p.collective = j.value("collective", "");
        p.kind = j.value("kind", "latency");
        p.ranks = j.contains("ranks") && j["ranks"].is_number_unsigned() ? j["ranks"].get<uint32_t>() : 0;
        p.alphaS = num("alpha_s");
        p.betaBps = num("beta_Bps");
        p.n0Bytes = num("n0_bytes");
        p.eagerLimitBytes = num("eager_limit_bytes");
        p.rendezvousLimitBytes = num("rendezvous_limit_bytes");
        p.rendezvousRttS = num("rendezvous_rtt_s");
        p.pipelineSetupS = num("pipeline_setup_s");
        p.LS = num("L_s");
        p.oS = num("o_s");
        p.gS = num("g_s");
        p.GSPerByte = num("G_s_per_byte");
        p.twoOPlusLS = num("two_o_plus_L_s");
        out.push_back(p);
    }
    return out;
}

} // namespace

const CalibratedParameters&
SelectCalibratedParameters(const std::vector<CalibratedParameters>& all,
                           const std::string& model,
                           const std::string& collective,
                           const std::string& field)
{
    for (const auto& p : all)
    {
        bool has = model == "loggp" ? std::isfinite(p.GSPerByte) : std::isfinite(p.alphaS) && std::isfinite(p.betaBps);
        if (p.model == model && has && (collective.empty() || p.collective == collective))
        {
            return p;
        }
    }
    throw InputError(field, "expected a fitted '" + model + "' model" +
                                (collective.empty() ? "" : " of " + collective) + " in the calibration file");
}

Ptr<AlphaBetaModel>
CalibratedParameters::MakeAlphaBetaModel() const
{
    if (model == "loggp" || !std::isfinite(alphaS) || !std::isfinite(betaBps))
    {
        throw InputError("--params", "expected an alphabeta, scurve or protocol fit with alpha_s and beta_Bps, got '" +
                                         model + "'");
    }
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("Alpha", TimeValue(SecondsToTime(alphaS)));
    m->SetAttribute("Beta", DataRateValue(DataRate(RoundBytes(betaBps * 8))));
    if (model == "scurve" && std::isfinite(n0Bytes))
    {
        m->SetAttribute("SCurve", BooleanValue(true));
        m->SetAttribute("N0", UintegerValue(std::max<uint64_t>(1, RoundBytes(n0Bytes))));
    }
    if (model == "protocol" && std::isfinite(eagerLimitBytes) && std::isfinite(rendezvousLimitBytes))
    {
        m->SetAttribute("ProtocolSwitch", BooleanValue(true));
        m->SetAttribute("EagerAlpha", TimeValue(SecondsToTime(alphaS)));
        m->SetAttribute("RendezvousRtt", TimeValue(SecondsToTime(std::isfinite(rendezvousRttS) ? rendezvousRttS : 0)));
        m->SetAttribute("PipelineSetup", TimeValue(SecondsToTime(std::isfinite(pipelineSetupS) ? pipelineSetupS : 0)));
        m->SetAttribute("EagerLimit", UintegerValue(RoundBytes(eagerLimitBytes)));
        m->SetAttribute("RendezvousLimit", UintegerValue(RoundBytes(rendezvousLimitBytes)));
    }
    m->Validate();
    return m;
}

Ptr<LogGpModel>
CalibratedParameters::MakeLogGpModel() const
{
    if (model != "loggp" || !std::isfinite(GSPerByte))
    {
        throw InputError("--params", "expected a loggp fit with G_s_per_byte, got '" + model + "'");
    }
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("GapPerByte", DoubleValue(GSPerByte));
    if (std::isfinite(LS) && std::isfinite(oS))
    {
        m->SetAttribute("L", TimeValue(SecondsToTime(LS)));
        m->SetAttribute("o", TimeValue(SecondsToTime(oS)));
    }
    else if (std::isfinite(twoOPlusLS))
    {
        // Only 2o + L is known: o = 0 keeps every point-to-point time right.
        m->SetAttribute("L", TimeValue(SecondsToTime(twoOPlusLS)));
        m->SetAttribute("o", TimeValue(Seconds(0)));
    }
    if (std::isfinite(gS))
    {
        m->SetAttribute("g", TimeValue(SecondsToTime(gS)));
    }
    return m;
}

} // namespace ns3
