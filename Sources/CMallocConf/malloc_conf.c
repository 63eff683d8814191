// jemalloc's settings for the flipaudit executable, read when jemalloc
// starts (it looks up this symbol). Freed pages go back to the system at
// once instead of after 10 s: a run's peak RSS then counts what it holds,
// not the dictionary storage it has just outgrown. docs/performance.md
// has the measurements.
#include "CMallocConf.h"

const char *malloc_conf = "dirty_decay_ms:0,muzzy_decay_ms:0";
