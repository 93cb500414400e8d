#pragma once

#include <cstddef>
#include <cstdint>

namespace shoal::state {

/// CRC-32C (Castagnoli, as in iSCSI, ext4 and LevelDB) of `size` bytes at `data`, continuing from
/// `crc` (0 to start). Uses the SSE 4.2 instruction where the CPU has it, a table otherwise; both
/// give the same value ("123456789" -> 0xE3069283).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

}  // namespace shoal::state
