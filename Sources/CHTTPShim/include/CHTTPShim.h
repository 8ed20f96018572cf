// The libmicrohttpd side of the sandbox's HTTP server: starting the daemon (a variadic
// call), collecting request bodies, and the suspend/resume handshake that lets Swift
// answer a request later from another thread.
#ifndef CHTTPSHIM_H
#define CHTTPSHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct chttp_server chttp_server;
typedef struct chttp_exchange chttp_exchange;

/// Called on the daemon's thread when a request is complete. `headers` and `query` are
/// "name\0value\0" sequences of `headers_len`/`query_len` bytes. The handler must not
/// block; it answers later with `chttp_respond` (exactly once).
typedef void (*chttp_request_handler)(void *context, chttp_exchange *exchange, const char *method,
                                      const char *path, const char *headers, size_t headers_len,
                                      const char *query, size_t query_len, const char *body, size_t body_len);

/// Starts a server on `address:port` (port 0: any free port). NULL on failure, with
/// `error` describing why.
chttp_server *chttp_start(const char *address, uint16_t port, size_t max_body_bytes, unsigned threads,
                          chttp_request_handler handler, void *context, char *error, size_t error_size);

/// The port the server listens on.
uint16_t chttp_port(const chttp_server *server);

/// Answers a request (from any thread). `headers` is "Name: value\n" lines; may be NULL.
void chttp_respond(chttp_exchange *exchange, unsigned status, const char *headers, const char *body, size_t body_len);

/// Stops accepting connections, waits up to `grace_seconds` for requests in progress to be
/// answered, then stops the daemon.
void chttp_stop(chttp_server *server, double grace_seconds);

#endif
