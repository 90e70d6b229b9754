// SPDX-License-Identifier: GPL-2.0-only
//
// The one error type for bad user input (flags, scenario fields, attributes
// given out of range). Its message is one line that names the field and says
// what was expected; the CLI prints it and exits with status 2. It derives from
// std::invalid_argument so that modules which cannot include this header (the
// fabric) can throw std::invalid_argument with the same one-line contract.
#ifndef HOCKNEY_INPUT_ERROR_H
#define HOCKNEY_INPUT_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

class InputError : public std::invalid_argument
{
  public:
    /// \param field the flag or field, e.g. "--bytes" or "topology.tiers[1].rate"
    /// \param expected what a valid value looks like, and what was given
    InputError(const std::string& field, const std::string& expected)
        : std::invalid_argument(field + ": " + expected)
    {
    }
};

} // namespace ns3

#endif
