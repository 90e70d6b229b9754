// SPDX-License-Identifier: GPL-2.0-only
#include "measurement-reader.h"

#include "input-error.h"
#include "measurement-csv.h"
#include "measurement-text.h"
#include "nccl-tests-log.h"
#include "perftest-log.h"

#include <fstream>
#include <sstream>

namespace ns3
{

MeasurementSet
ParseMeasurementText(const std::string& text, const std::string& file)
{
    auto lines = measurement::SplitLines(text);
    bool blank = true;
    for (const auto& l : lines)
    {
        if (!measurement::Trim(l).empty())
        {
            blank = false;
            break;
        }
    }
    if (blank)
    {
        throw InputError(file + ":1", "expected a measurement log (nccl-tests, perftest or CSV), the file is empty");
    }
    std::string first; // the first line that is not a '#' comment
    for (const auto& l : lines)
    {
        std::string s = measurement::Trim(l);
        if (!s.empty() && s[0] != '#')
        {
            first = s;
            break;
        }
    }
    MeasurementSet set;
    std::string format;
    if (LooksLikePerftestLog(text))
    {
        format = "perftest";
        set = ParsePerftestLog(text, file);
    }
    else if (text.find("nccl-tests version") != std::string::npos ||
             text.find("Collective test starting") != std::string::npos)
    {
        // Before the CSV test: NCCL INFO lines above the header may hold commas.
        format = "nccl-tests";
        set = ParseNcclTestsLog(text, file);
    }
    else if (first.find(',') != std::string::npos)
    {
        format = "CSV";
        set = ParseMeasurementCsv(text, file);
    }
    else if (LooksLikeNcclTestsLog(text))
    {
        format = "nccl-tests";
        set = ParseNcclTestsLog(text, file);
    }
    else
    {
        throw InputError(file, "expected an nccl-tests table, a perftest table or a CSV of size and "
                               "time; found no table in " +
                                   std::to_string(lines.size()) + " lines");
    }
    if (set.samples.empty())
    {
        throw InputError(file, "expected at least one measured row in the " + format + " log; found none in " +
                                   std::to_string(lines.size()) + " lines");
    }
    return set;
}

MeasurementSet
ReadMeasurementFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path, "expected a readable measurement file, cannot open it");
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
    {
        throw InputError(path, "expected a readable measurement file, reading failed");
    }
    return ParseMeasurementText(ss.str(), path);
}

} // namespace ns3
