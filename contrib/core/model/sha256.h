// SPDX-License-Identifier: GPL-2.0-only
//
// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content hash
// an output's provenance gives for its scenario file, the digest
// `sha256sum FILE` prints, so a user can check which file made a result.
#ifndef HOCKNEY_SHA256_H
#define HOCKNEY_SHA256_H

#include <string>

namespace ns3
{

/// The SHA-256 digest of \p data, 64 lowercase hex digits.
std::string Sha256Hex(const std::string& data);

} // namespace ns3

#endif
