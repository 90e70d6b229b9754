// SPDX-License-Identifier: GPL-2.0-only
//
// The one error type for bad user input (flags, scenario fields, topology
// fields, attributes given out of range). Its message is one line, "FIELD:
// EXPECTED", that names the field and says what was expected; the CLI prints it
// and exits with status 2. It derives from std::invalid_argument so that a
// catch of std::invalid_argument (ns-3 style code, the CLI's main) still sees it.
//
// The field and the expectation are kept apart so that a caller that knows the
// value under another name (a scenario field that stands for a flag, a
// topology field inside a scenario) can re-name the error without taking its
// message apart.
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
    ///        ("expected a size like 4096, got 'x'")
    InputError(const std::string& field, const std::string& expected)
        : std::invalid_argument(field + ": " + expected),
          m_field(field),
          m_expected(expected)
    {
    }

    /// \p other's expectation under another field name: the same value known to
    /// the user as \p newField ("scenario.ranks" for "--ranks").
    InputError(const std::string& newField, const InputError& other)
        : InputError(newField, other.m_expected)
    {
    }

    /// The field the message names, "--bytes".
    const std::string& Field() const
    {
        return m_field;
    }

    /// The rest of the message after "FIELD: ".
    const std::string& Expected() const
    {
        return m_expected;
    }

  private:
    std::string m_field;
    std::string m_expected;
};

} // namespace ns3

#endif
