// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-experiment.h"

#include "input-error.h"
#include "published-comparison.h"
#include "units.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace ns3
{

namespace
{

std::string
Field(const nlohmann::json& j, const std::string& key, const std::string& file, bool required = true)
{
    if (!j.contains(key))
    {
        if (required)
        {
            throw InputError(file + ": " + key, "expected a string field");
        }
        return "";
    }
    if (!j.at(key).is_string())
    {
        throw InputError(file + ": " + key, "expected a string, got " + j.at(key).dump());
    }
    return j.at(key).get<std::string>();
}

void
RejectUnknownFields(const nlohmann::json& j, const std::string& file)
{
    static const std::set<std::string> known{"id",       "title",  "seed_claim", "why",         "default",
                                             "scenario", "full",   "variants",   "expect",      "traces",
                                             "assumptions", "plot_x", "recover", "cases"};
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (!known.count(it.key()))
        {
            throw InputError(file + ": " + it.key(), "unknown field");
        }
    }
}

/// \p name is "expect" or "recover": only the expectation may judge the
/// packet curve's fall (packet_drop), a correction is always an error range.
AccuracyExpectation
ParseExpectation(const nlohmann::json& x, const std::string& name, const std::string& file)
{
    AccuracyExpectation a;
    a.backend = x.value("backend", a.backend);
    a.params = x.value("params", a.params);
    a.metric = x.value("metric", a.metric);
    if (a.metric != "max" && a.metric != "median" && a.metric != "min" &&
        (a.metric != "packet_drop" || name != "expect"))
    {
        throw InputError(file + ": " + name + ".metric",
                         name == "expect" ? "expected max, median, min or packet_drop" : "expected max, median or min");
    }
    a.min = x.value("min", 0.0);
    a.max = x.value("max", 1e300);
    return a;
}

/// A list of {label, patch} (`key`: variants or cases); empty when absent.
std::vector<std::pair<std::string, nlohmann::json>>
ParseLabelledPatches(const nlohmann::json& j, const std::string& key, const std::string& file)
{
    std::vector<std::pair<std::string, nlohmann::json>> list;
    if (j.contains(key))
    {
        if (!j.at(key).is_array())
        {
            throw InputError(file + ": " + key, "expected a list of {label, patch}");
        }
        for (const auto& v : j.at(key))
        {
            list.emplace_back(Field(v, "label", file + ": " + key + "[]"), v.value("patch", nlohmann::json::object()));
        }
    }
    return list;
}

/// The variants, each crossed with every case when there are cases: case
/// by case, the variants in their order, labelled "VARIANT CASE", the
/// variant's patch merged over the case's (so adding an algorithm is one
/// variant whatever the number of cases).
std::vector<std::pair<std::string, nlohmann::json>>
ParseVariants(const nlohmann::json& j, const std::string& file)
{
    std::vector<std::pair<std::string, nlohmann::json>> variants = ParseLabelledPatches(j, "variants", file);
    if (variants.empty())
    {
        variants.emplace_back("base", nlohmann::json::object());
    }
    const auto cases = ParseLabelledPatches(j, "cases", file);
    if (cases.empty())
    {
        return variants;
    }
    std::vector<std::pair<std::string, nlohmann::json>> crossed;
    for (const auto& c : cases)
    {
        for (const auto& v : variants)
        {
            nlohmann::json patch = c.second;
            patch.merge_patch(v.second);
            crossed.emplace_back(v.first + " " + c.first, patch);
        }
    }
    return crossed;
}

void
ParseJudgements(const nlohmann::json& j, const std::string& file, AccuracyExperiment& e)
{
    if (!j.contains("expect") || !j.at("expect").is_object())
    {
        throw InputError(file + ": expect", "expected {backend, params, metric, min, max}");
    }
    e.expect = ParseExpectation(j.at("expect"), "expect", file);
    if (j.contains("recover"))
    {
        if (!j.at("recover").is_object())
        {
            throw InputError(file + ": recover", "expected {backend, params, metric, min, max}");
        }
        e.hasRecovery = true;
        e.recovery = ParseExpectation(j.at("recover"), "recover", file);
    }
}

void
ParseExtras(const nlohmann::json& j, const std::string& file, AccuracyExperiment& e)
{
    e.traces = j.value("traces", false);
    if (j.contains("assumptions"))
    {
        e.assumptions = true;
        const auto& a = j.at("assumptions");
        if (a.contains("n0"))
        {
            e.n0Bytes = units::ParseBytes(Field(a, "n0", file + ": assumptions"), file + ": assumptions.n0");
        }
    }
    e.plotX = j.value("plot_x", std::string("bytes"));
    if (e.plotX != "bytes" && e.plotX != "ranks")
    {
        throw InputError(file + ": plot_x", "expected bytes or ranks");
    }
}

} // namespace

nlohmann::json
ReadValidationJson(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path, "expected a readable JSON file");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const nlohmann::json::exception& ex)
    {
        throw InputError(path, std::string("expected valid JSON (") + ex.what() + ")");
    }
    return j;
}

ComparisonConfig
VariantConfig(const AccuracyExperiment& e, const std::pair<std::string, nlohmann::json>& variant, bool full)
{
    nlohmann::json s = e.scenario;
    if (full)
    {
        s.merge_patch(e.full);
    }
    s.merge_patch(variant.second);
    ComparisonConfig c;
    try
    {
        ApplyScenario(s, c);
    }
    catch (const InputError& ex)
    {
        throw InputError(e.file + ": variant " + variant.first, ex.what());
    }
    return c;
}

AccuracyExperiment
ParseAccuracyExperiment(const nlohmann::json& j, const std::string& file)
{
    if (!j.is_object())
    {
        throw InputError(file, "expected a JSON object with id, title, seed_claim, scenario, expect");
    }
    RejectUnknownFields(j, file);
    AccuracyExperiment e;
    e.file = file;
    e.id = Field(j, "id", file);
    e.title = Field(j, "title", file);
    e.seedClaim = Field(j, "seed_claim", file);
    e.why = Field(j, "why", file, false);
    e.inDefault = j.value("default", false);
    if (!j.contains("scenario") || !j.at("scenario").is_object())
    {
        throw InputError(file + ": scenario", "expected a compare scenario object");
    }
    e.scenario = j.at("scenario");
    e.full = j.value("full", nlohmann::json::object());
    e.variants = ParseVariants(j, file);
    ParseJudgements(j, file, e);
    ParseExtras(j, file, e);
    // Every variant must make a valid comparison (fails early, naming the file).
    for (const auto& variant : e.variants)
    {
        ValidateComparison(VariantConfig(e, variant, false));
    }
    return e;
}

std::vector<AccuracyExperiment>
LoadAccuracyExperiments(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
    {
        if (entry.path().extension() == ".json" && entry.path().filename() != kPublishedCasesFile)
        {
            files.push_back(entry.path().string());
        }
    }
    if (files.empty())
    {
        throw InputError("--validation-dir", "expected a directory with experiment *.json files, got '" + dir + "'");
    }
    std::sort(files.begin(), files.end());
    std::vector<AccuracyExperiment> out;
    for (const auto& f : files)
    {
        out.push_back(ParseAccuracyExperiment(ReadValidationJson(f), fs::path(f).filename().string()));
    }
    return out;
}

} // namespace ns3
