// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: a measurement file as `hockney calibrate --input=FILE`
// reads it (ReadMeasurementFile): the format recognised (perftest, nccl-tests,
// CSV) and the matching reader run; the CSV reader (measurement-csv.cc) is
// fuzzed only here. Pure parsing: no ns-3 state.
#include "fuzz-target.h"
#include "measurement-checks.h"
#include "measurement-reader.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static hockney::fuzz::InputFile file(".log");
    const std::string& path = file.Write(data, size);
    hockney::fuzz::RunParser("measurement",
                             [&] { hockney::fuzz::CheckSamples("measurement", ns3::ReadMeasurementFile(path)); });
    return 0;
}
