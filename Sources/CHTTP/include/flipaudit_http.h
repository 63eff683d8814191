#ifndef FLIPAUDIT_HTTP_H
#define FLIPAUDIT_HTTP_H

/// `flipaudit follow --listen`: a GET-only HTTP server (libmicrohttpd, on a
/// thread of its own) answering from one handler. Bounded: a few connections
/// at once, each closed after a few idle seconds, so neither idle clients nor
/// a flood can take the follower's descriptors or starve its loop.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most connections served at once; more wait in the kernel's queue.
#define FA_HTTP_CONNECTIONS 16
/// Seconds a connection may sit idle before it is closed.
#define FA_HTTP_IDLE_SECONDS 10

/// Answers one GET (or HEAD) of `path` (without its query): sets `*body` to
/// `*length` bytes from malloc (the server frees them; NULL when empty) and
/// `*content_type` to a static string; returns the HTTP status. Called on
/// the server's thread.
typedef unsigned (*fa_http_handler)(void *context, const char *path, char **body, size_t *length, const char **content_type);

typedef struct fa_http_server fa_http_server;

/// Binds `host` (an IPv4 address, or an IPv6 one without brackets) and
/// `port`, and serves `handler` until `fa_http_stop`. NULL when it cannot
/// (the reason, one line, in `error`).
fa_http_server *fa_http_start(const char *host, uint16_t port, fa_http_handler handler, void *context, char *error,
                              size_t error_size);

/// Stops serving and closes every connection and the socket.
void fa_http_stop(fa_http_server *server);

#ifdef __cplusplus
}
#endif

#endif
