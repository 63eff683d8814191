#ifndef FLIPAUDIT_CZLIB_SHIM_H
#define FLIPAUDIT_CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit2` is a macro in zlib.h (it passes the library version and the
/// struct size); Swift cannot import macros that take arguments, so this is
/// the one wrapper the module needs.
static inline int czlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

#endif
