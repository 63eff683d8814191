#ifndef FLIPAUDIT_CDEFLATE_SHIM_H
#define FLIPAUDIT_CDEFLATE_SHIM_H

/// Only libdeflate's CRC-32 is used (`libdeflate_crc32`, carry-less multiply
/// on x86-64): gzip members are still inflated by zlib, which streams.
#include <libdeflate.h>

#endif
