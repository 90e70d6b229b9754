// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: perftest output (ParsePerftestLog, the reader
// ReadMeasurementFile hands a log with a "#bytes" heading to, for `hockney
// calibrate --input=FILE`). Every input goes to this reader, whatever it looks
// like; the dispatch is the measurement target's. Pure parsing: no ns-3 state.
#include "fuzz-target.h"
#include "measurement-checks.h"
#include "perftest-log.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = hockney::fuzz::Text(data, size);
    hockney::fuzz::RunParser("perftest-log", [&] {
        ns3::LooksLikePerftestLog(text);
        hockney::fuzz::CheckSamples("perftest-log", ns3::ParsePerftestLog(text, "fuzz.log"));
    });
    return 0;
}
