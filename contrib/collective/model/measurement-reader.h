// SPDX-License-Identifier: GPL-2.0-only
//
// The one entry point that turns a measurement file into samples: it reads the
// file, recognises its format (perftest by its "#bytes #iterations" heading,
// nccl-tests by its header or its rows, otherwise CSV) and dispatches to the
// reader of that format. Bad input is an InputError that names the file (and
// the line where there is one): unreadable, empty, no table.
#ifndef HOCKNEY_MEASUREMENT_READER_H
#define HOCKNEY_MEASUREMENT_READER_H

#include "measurement-sample.h"

#include <string>

namespace ns3
{

/// Parses \p text read from \p file (the name used in samples and errors).
MeasurementSet ParseMeasurementText(const std::string& text, const std::string& file);

/// Reads and parses \p path.
MeasurementSet ReadMeasurementFile(const std::string& path);

} // namespace ns3

#endif
