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

/// A streamed response body (Server-Sent Events): written from any thread, sent as it
/// comes. Reference-counted between the daemon and the writer.
typedef struct chttp_stream chttp_stream;

/// Answers a request with a streamed body; returns the stream to write to (release it
/// with `chttp_stream_release`).
chttp_stream *chttp_respond_stream(chttp_exchange *exchange, unsigned status, const char *headers);

/// Appends bytes to the stream; 0 when the client is gone or the stream is closed.
int chttp_stream_write(chttp_stream *stream, const char *data, size_t len);

/// Ends the stream once what was written has been sent.
void chttp_stream_close(chttp_stream *stream);

/// Whether the client is still there and the stream open.
int chttp_stream_is_open(chttp_stream *stream);

/// Drops the writer's reference.
void chttp_stream_release(chttp_stream *stream);

/// Stops accepting connections, waits up to `grace_seconds` for requests in progress to be
/// answered, then stops the daemon.
void chttp_stop(chttp_server *server, double grace_seconds);

#endif
