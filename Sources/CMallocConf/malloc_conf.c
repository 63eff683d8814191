// jemalloc's settings for the executable, read when jemalloc starts (it
// looks up this symbol).
//
// - Blocks of 1 MiB or more (a growing dictionary's storage) come from
//   jemalloc's arena for large blocks, which hands freed pages back to the
//   system at once: a run's peak RSS counts what it holds, not the storage
//   it has just outgrown.
// - Smaller blocks hand theirs back after 100 ms instead of 10 s. A page
//   freed and taken again within a moment (a piece's event arrays, freed
//   on the audit thread while the next ones are made) is then not given
//   back and faulted in anew each time.
//
// docs/performance.md has the measurements.
#include "CMallocConf.h"

const char *malloc_conf = "dirty_decay_ms:100,muzzy_decay_ms:0,oversize_threshold:1048576";
