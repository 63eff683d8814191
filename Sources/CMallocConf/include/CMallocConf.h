#ifndef CMALLOCCONF_H
#define CMALLOCCONF_H

/// jemalloc's run-time settings (see malloc_conf.c).
extern const char *malloc_conf;

#endif
