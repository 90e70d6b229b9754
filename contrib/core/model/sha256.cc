// SPDX-License-Identifier: GPL-2.0-only
//
// SHA-256 through OpenSSL's EVP digest interface (Debian's libssl-dev): a
// well-kept implementation rather than a hand-written one.
#include "sha256.h"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace ns3
{

std::string
Sha256Hex(const std::string& data)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    {
        throw std::runtime_error("OpenSSL EVP_Digest(sha256) failed");
    }
    std::string hex;
    hex.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i)
    {
        char byte[3];
        std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
        hex += byte;
    }
    return hex;
}

} // namespace ns3
