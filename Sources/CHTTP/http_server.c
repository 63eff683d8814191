// libmicrohttpd behind flipaudit_http.h.
//
// Loaded when a server first starts (dlopen), not linked: only
// `follow --listen` serves, and linking it would load GnuTLS and eight
// more libraries into every run (about 1.5 ms of startup, most of it
// symbol lookups across twice as many libraries; docs/performance.md).

#include "flipaudit_http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// The six functions used, from the library once loaded.
static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} mhd;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
// Why it could not be loaded; empty once it is.
static char mhd_failure[512];

static void *symbol(void *library, const char *name) {
    void *found = dlsym(library, name);
    if (found == NULL && mhd_failure[0] == 0)
        snprintf(mhd_failure, sizeof mhd_failure, "libmicrohttpd has no %s (%s)", name, dlerror());
    return found;
}

static void mhd_load(void) {
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        // Said as the package's own soname failed; then the development
        // link, should the soname have moved on.
        const char *why = dlerror();
        snprintf(mhd_failure, sizeof mhd_failure, "libmicrohttpd could not be loaded (%s); install libmicrohttpd12",
                 why != NULL ? why : "not found");
        library = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) return;
        mhd_failure[0] = 0;
    }
    // POSIX: a function's address from dlsym, through a void pointer.
    *(void **)&mhd.start_daemon = symbol(library, "MHD_start_daemon");
    *(void **)&mhd.stop_daemon = symbol(library, "MHD_stop_daemon");
    *(void **)&mhd.create_response_from_buffer = symbol(library, "MHD_create_response_from_buffer");
    *(void **)&mhd.add_response_header = symbol(library, "MHD_add_response_header");
    *(void **)&mhd.queue_response = symbol(library, "MHD_queue_response");
    *(void **)&mhd.destroy_response = symbol(library, "MHD_destroy_response");
}

struct fa_http_server {
    struct MHD_Daemon *daemon;
    fa_http_handler handler;
    void *context;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **request) {
    (void)version;
    (void)upload_data;
    struct fa_http_server *server = cls;
    const int get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    // A body is never read: the first call with one is answered at once.
    if (*request == NULL) *request = server;
    if (*upload_data_size != 0) *upload_data_size = 0;
    char *body = NULL;
    size_t length = 0;
    const char *type = "text/plain; charset=utf-8";
    unsigned status;
    if (get) {
        status = server->handler(server->context, url, &body, &length, &type);
    } else {
        static const char refused[] = "GET only\n";
        body = malloc(sizeof refused - 1);
        if (body != NULL) {
            memcpy(body, refused, sizeof refused - 1);
            length = sizeof refused - 1;
        }
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
    }
    struct MHD_Response *response = mhd.create_response_from_buffer(length, body, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) {
        free(body);
        return MHD_NO;
    }
    mhd.add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (!get) mhd.add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    const enum MHD_Result queued = mhd.queue_response(connection, status, response);
    mhd.destroy_response(response);
    return queued;
}

static void say(char *error, size_t size, const char *what) {
    if (size > 0) snprintf(error, size, "%s", what);
}

fa_http_server *fa_http_start(const char *host, uint16_t port, fa_http_handler handler, void *context, char *error,
                              size_t error_size) {
    pthread_once(&mhd_once, mhd_load);
    if (mhd_failure[0] != 0) {
        say(error, error_size, mhd_failure);
        return NULL;
    }
    const int v6 = strchr(host, ':') != NULL;
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    socklen_t address_size;
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&address;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) {
            say(error, error_size, "not an IPv6 address");
            return NULL;
        }
        address_size = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&address;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        if (inet_pton(AF_INET, host, &a->sin_addr) != 1) {
            say(error, error_size, "not an IPv4 address");
            return NULL;
        }
        address_size = sizeof *a;
    }
    // The socket is bound here, not by libmicrohttpd, so that a port in
    // use or an address not this machine's is said in the system's words.
    const int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        say(error, error_size, strerror(errno));
        return NULL;
    }
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof yes);
    if (bind(fd, (struct sockaddr *)&address, address_size) != 0 || listen(fd, 64) != 0) {
        say(error, error_size, strerror(errno));
        close(fd);
        return NULL;
    }
    struct fa_http_server *server = calloc(1, sizeof *server);
    if (server == NULL) {
        say(error, error_size, strerror(ENOMEM));
        close(fd);
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    // Its own thread (epoll where there is one); no error log: its lines
    // would land among the findings.
    server->daemon = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, answer, server,
                                      MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
                                      (unsigned)FA_HTTP_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                                      (unsigned)FA_HTTP_IDLE_SECONDS, MHD_OPTION_END);
    if (server->daemon == NULL) {
        say(error, error_size, "libmicrohttpd could not start");
        close(fd);
        free(server);
        return NULL;
    }
    return server;
}

void fa_http_stop(fa_http_server *server) {
    if (server == NULL) return;
    mhd.stop_daemon(server->daemon);
    free(server);
}
