// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: nccl-tests output (ParseNcclTestsLog, the reader
// ReadMeasurementFile hands a log with an nccl-tests header, heading or bare
// rows to, for `hockney calibrate --input=FILE`). Every input goes to this
// reader, whatever it looks like, so that the fuzzer spends its time here;
// the dispatch itself is the measurement target's. Pure parsing: no ns-3 state.
#include "fuzz-target.h"
#include "measurement-checks.h"
#include "nccl-tests-log.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = hockney::fuzz::Text(data, size);
    hockney::fuzz::RunParser("nccl-tests-log", [&] {
        ns3::LooksLikeNcclTestsLog(text);
        hockney::fuzz::CheckSamples("nccl-tests-log", ns3::ParseNcclTestsLog(text, "fuzz.log"));
    });
    return 0;
}
