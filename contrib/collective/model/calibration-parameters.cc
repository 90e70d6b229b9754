// SPDX-License-Identifier: GPL-2.0-only
#include "calibration-parameters.h"

#include "input-error.h"
#include "time-conversion.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
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

std::string
Number(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

// A fitted value as the attribute value it becomes, refused as an InputError
// naming --calibration and the file's key when the attribute cannot take it
// (ns-3 aborts the program on a value its checker refuses): a file edited by
// hand, or a LogGP fit whose L came out negative because the o given to
// calibrate (--o) exceeds half of the fitted 2o + L. \p why explains a
// refusal where a cause is known.
Time
FitTime(double seconds, const std::string& key, const std::string& why = "")
{
    if (!(seconds >= 0))
    {
        throw InputError("--calibration", "expected " + key + " >= 0 s, got " + Number(seconds) + why);
    }
    try
    {
        return SecondsToTime(seconds);
    }
    catch (const InputError& e)
    {
        throw InputError("--calibration", key + ": " + e.Expected());
    }
}

uint64_t
FitBytes(double v, const std::string& key)
{
    if (!(v >= 0 && v < 1.8e19))
    {
        throw InputError("--calibration", "expected " + key + " from 0 to 1.8e19, got " + Number(v));
    }
    return static_cast<uint64_t>(std::round(v));
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
    // is_string() before the comparison: json::value("format", "") throws a
    // json type_error (not an InputError) when the format is not a string.
    if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string() ||
        doc["format"] != "hockney-calibration" || !doc.contains("fits") || !doc["fits"].is_array())
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
        auto text = [&](const char* key, const std::string& fallback) -> std::string {
            if (!j.contains(key) || j[key].is_null())
            {
                return fallback;
            }
            if (!j[key].is_string())
            {
                throw InputError(where + "." + key, "expected a string");
            }
            return j[key].get<std::string>();
        };
        CalibratedParameters p;
        p.model = j["model"].get<std::string>();
        p.collective = text("collective", "");
        p.kind = text("kind", "latency");
        if (j.contains("ranks") && j["ranks"].is_number_unsigned())
        {
            if (j["ranks"].get<uint64_t>() > UINT32_MAX)
            {
                throw InputError(where + ".ranks", "expected a rank count below 2^32, got " + j["ranks"].dump());
            }
            p.ranks = j["ranks"].get<uint32_t>();
        }
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
    m->SetAttribute("Alpha", TimeValue(FitTime(alphaS, "alpha_s")));
    m->SetAttribute("Beta", DataRateValue(DataRate(FitBytes(betaBps * 8, "beta_Bps x 8 (bit/s)"))));
    if (model == "scurve" && std::isfinite(n0Bytes))
    {
        m->SetAttribute("SCurve", BooleanValue(true));
        m->SetAttribute("N0", UintegerValue(std::max<uint64_t>(1, FitBytes(n0Bytes, "n0_bytes"))));
    }
    if (model == "protocol" && std::isfinite(eagerLimitBytes) && std::isfinite(rendezvousLimitBytes))
    {
        m->SetAttribute("ProtocolSwitch", BooleanValue(true));
        m->SetAttribute("EagerAlpha", TimeValue(FitTime(alphaS, "alpha_s")));
        m->SetAttribute("RendezvousRtt",
                        TimeValue(FitTime(std::isfinite(rendezvousRttS) ? rendezvousRttS : 0, "rendezvous_rtt_s")));
        m->SetAttribute("PipelineSetup",
                        TimeValue(FitTime(std::isfinite(pipelineSetupS) ? pipelineSetupS : 0, "pipeline_setup_s")));
        m->SetAttribute("EagerLimit", UintegerValue(FitBytes(eagerLimitBytes, "eager_limit_bytes")));
        m->SetAttribute("RendezvousLimit", UintegerValue(FitBytes(rendezvousLimitBytes, "rendezvous_limit_bytes")));
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
    if (!(GSPerByte >= 0))
    {
        throw InputError("--calibration", "expected G_s_per_byte >= 0, got " + Number(GSPerByte));
    }
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("GapPerByte", DoubleValue(GSPerByte));
    if (std::isfinite(LS) && std::isfinite(oS))
    {
        const std::string why =
            " (the o given to calibrate, --o, is more than half of the fitted 2o + L: " + Number(twoOPlusLS) + " s)";
        m->SetAttribute("L", TimeValue(FitTime(LS, "L_s", why)));
        m->SetAttribute("o", TimeValue(FitTime(oS, "o_s")));
    }
    else if (std::isfinite(twoOPlusLS))
    {
        // Only 2o + L is known: o = 0 keeps every point-to-point time right.
        m->SetAttribute("L", TimeValue(FitTime(twoOPlusLS, "two_o_plus_L_s")));
        m->SetAttribute("o", TimeValue(Seconds(0)));
    }
    if (std::isfinite(gS))
    {
        m->SetAttribute("g", TimeValue(FitTime(gS, "g_s")));
    }
    return m;
}

} // namespace ns3
