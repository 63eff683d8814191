/// flipaudit_inflate.h over the engine the package was built with.

#include "engines.h"

#if defined(FLIPAUDIT_ISAL) && defined(FLIPAUDIT_ZLIB)
#error "flipaudit: choose one inflate engine: the default trait (isal) or --traits zlib, not both"
#elif defined(FLIPAUDIT_ZLIB)
#define ENGINE(name) fa_zlib_##name
#define ENGINE_NAME "zlib"
typedef fa_zlib engine;
#elif defined(FLIPAUDIT_ISAL)
#define ENGINE(name) fa_isal_##name
#define ENGINE_NAME "isa-l"
typedef fa_isal engine;
#else
#error "flipaudit: no inflate engine: build with the default trait (isal) or --traits zlib"
#endif

fa_inflater *fa_inflater_new(void) { return (fa_inflater *)ENGINE(new)(); }
void fa_inflater_reset(fa_inflater *inflater) { ENGINE(reset)((engine *)inflater); }
void fa_inflater_free(fa_inflater *inflater) { ENGINE(free)((engine *)inflater); }

fa_inflate_status fa_inflate(fa_inflater *inflater, const uint8_t *in, size_t in_len, uint8_t *out,
                             size_t out_len, size_t *consumed, size_t *produced, const char **message) {
    return ENGINE(inflate)((engine *)inflater, in, in_len, out, out_len, consumed, produced, message);
}

fa_inflater *fa_inflater_new_look(void) { return (fa_inflater *)fa_zlib_new(); }
void fa_inflater_reset_look(fa_inflater *inflater) { fa_zlib_reset((fa_zlib *)inflater); }
void fa_inflater_free_look(fa_inflater *inflater) { fa_zlib_free((fa_zlib *)inflater); }

fa_inflate_status fa_inflate_look(fa_inflater *inflater, const uint8_t *in, size_t in_len, uint8_t *out,
                                  size_t out_len, size_t *consumed, size_t *produced, const char **message) {
    return fa_zlib_inflate((fa_zlib *)inflater, in, in_len, out, out_len, consumed, produced, message);
}

const char *fa_inflate_engine(void) { return ENGINE_NAME; }
