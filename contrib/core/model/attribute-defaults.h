// SPDX-License-Identifier: GPL-2.0-only
//
// Any ns-3 attribute default set by name, from a --ns3::Type::Attribute=value
// flag or a scenario's "attributes" object, through ns-3's own attribute
// system (Config::SetDefault semantics: objects created afterwards start with
// the value). Unlike Config::SetDefaultFailSafe, which only returns false, a
// wrong name or value is an InputError naming the flag or field, so that a
// typo is never ignored silently.
#ifndef HOCKNEY_ATTRIBUTE_DEFAULTS_H
#define HOCKNEY_ATTRIBUTE_DEFAULTS_H

#include "ns3/object.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// Sets the default of attribute \p fullName ("ns3::Dcqcn::G") to \p value
/// ("0.00390625"). Throws InputError naming \p field when the type is not
/// registered, the type has no such attribute (or inherits it: the error names
/// the defining type), or the value does not parse for the attribute's checker.
/// A value set with \p fromCommandLine stays: a later call for the same
/// attribute without it (a scenario file read afterwards) is checked but not
/// applied, because a flag given on the command line overrides a scenario.
void SetAttributeDefault(const std::string& fullName,
                         const std::string& value,
                         const std::string& field,
                         bool fromCommandLine = false);

/// The checks of SetAttributeDefault without setting anything: throws
/// InputError naming \p field for an unknown type or attribute, an inherited
/// attribute or a value the attribute cannot read.
void CheckAttributeDefault(const std::string& fullName, const std::string& value, const std::string& field);

/**
 * Attribute defaults that hold for one run only: Set() records the current
 * default and sets the new one (unless a --ns3:: flag set that attribute: the
 * flag wins), and the destructor puts every recorded default back, latest
 * first. A scenario's "attributes" therefore apply to its own run and not to
 * the runs after it in the same process (validate runs many experiments).
 * The values must have passed CheckAttributeDefault.
 */
class ScopedAttributeDefaults
{
  public:
    ScopedAttributeDefaults() = default;
    /// Set() for each (name, value) in order.
    explicit ScopedAttributeDefaults(const std::vector<std::pair<std::string, std::string>>& attributes);
    ScopedAttributeDefaults(const ScopedAttributeDefaults&) = delete;
    ScopedAttributeDefaults& operator=(const ScopedAttributeDefaults&) = delete;
    ~ScopedAttributeDefaults();
    void Set(const std::string& fullName, const std::string& value);

  private:
    std::vector<std::pair<std::string, std::string>> m_previous; ///< name, serialized default
};

/**
 * The attributes the user set explicitly for the current run: by a --ns3::
 * flag (for the whole process) or by a scenario's "attributes" (while its
 * ScopedAttributeDefaults lives). A builder that derives an attribute's value
 * itself asks here, so that the user's setting is never overwritten silently:
 * it either lets the user's value win (ApplyUserAttributes) or refuses the run
 * (RefuseUserAttribute).
 */
bool UserSetAttribute(const std::string& fullName);

/// The flag or scenario field that set \p fullName ("--ns3::Dcqcn::G",
/// "scenario.attributes[\"ns3::Dcqcn::G\"]"); "" when the user did not set it.
std::string UserAttributeField(const std::string& fullName);

/// Throws InputError naming the flag or field that set \p fullName, with \p why
/// (why the builder cannot use it and what to set instead), when the user set it.
void RefuseUserAttribute(const std::string& fullName, const std::string& why);

/// Sets on \p object each attribute of its type or a parent type that the user
/// set, to the user's value (the attribute's current default). Called by a
/// builder after it derived its own values, so that the user's win.
void ApplyUserAttributes(Ptr<Object> object);

/// What a value of \p checker looks like, for error messages and listings
/// ("an unsigned integer (uint32_t 0:4294967295)").
std::string DescribeAttributeValue(const AttributeChecker& checker);

} // namespace ns3

#endif
