// The libmicrohttpd side of the sandbox's HTTP server: starting the daemon (a variadic
// call), collecting request bodies, and the suspend/resume handshake that lets Swift
// answer a request later from another thread.
#ifndef CHTTPSHIM_H
#define CHTTPSHIM_H

#include <stddef.h>
#include <stdint.h>

#include "chttp_body_budget.h"

typedef struct chttp_server chttp_server;
typedef struct chttp_exchange chttp_exchange;

/// What the server holds at most: no request is read past these.
typedef struct {
    /// Bytes of request bodies held in memory, all connections together; past it bodies
    /// spool to temporary files.
    size_t memory_bytes;
    /// A body larger than this is spooled to an unlinked temporary file.
    size_t spool_after_bytes;
    /// Bytes of request bodies spooled, all connections together; past it a request is
    /// answered 503.
    size_t spool_bytes;
    /// Bytes written to one event stream and not yet sent; past it the connection is dropped.
    size_t stream_bytes;
    /// Bytes written to all event streams together and not yet sent; the stream whose write
    /// would pass it is dropped.
    size_t streams_bytes;
    /// Bytes of request bodies admitted without a token, all connections together: held in
    /// memory only, apart from the budgets above; past it a request is answered 503.
    size_t anonymous_bytes;
    /// Of `anonymous_bytes`, what the bodies from one address may hold (loopback is exempt
    /// unless `limit_loopback`); 0: no limit per address.
    size_t anonymous_bytes_per_address;
    /// Seconds after its headers from which a body without a token still arriving is slow,
    /// and gives its share up (its connection is closed) to a body that needs room.
    double anonymous_slow_seconds;
    /// Seconds a connection has to deliver a request's headers (and, without a token, its
    /// whole body), from when it opens or its previous request ends; past it it is closed.
    double request_seconds;
    /// Connections open at once; 0: derived from the process's descriptor limit.
    unsigned connections;
    /// Connections open at once from one address; 0: no limit.
    unsigned connections_per_address;
    /// Whether loopback addresses (127.0.0.0/8) count against `connections_per_address` and
    /// `anonymous_bytes_per_address`.
    int limit_loopback;
} chttp_limits;

/// The decision on a request from its headers alone, before a byte of body is read.
typedef struct {
    /// 0 to read the body (at most `max_body_bytes`), else the status to answer with `body`.
    unsigned status;
    size_t max_body_bytes;
    /// 1 when the request was admitted without a token: its body counts against
    /// `anonymous_bytes`, and it stays under the connection's deadline until it is read.
    int anonymous;
    /// 1 when the body is a file that may come as a form: a `multipart/form-data` body is
    /// then read as its part named `file` (libmicrohttpd's post processor), and the request
    /// handler gets that part's bytes as the body, its Content-Type as the request's, and
    /// its filename as the `name` query parameter unless the query has one. A form without
    /// exactly one such part, or cut short, is answered 400.
    int file_form;
    /// The route the router found (its own index, -1 for none), handed back to the
    /// request handler so that it is not looked up twice.
    int route;
    /// The JSON answer when refused (NUL-terminated).
    char body[512];
    /// Headers of the answer as "name\0value\0" pairs (`Allow` of a 405, `Retry-After`
    /// of a 429), `headers_len` bytes.
    char headers[256];
    size_t headers_len;
} chttp_admission;

/// Called on the daemon's thread when a request's headers are in. `authorization` is the
/// Authorization header (or NULL); `content_length` the declared length, or -1; `query`
/// the query parameters as "name\0value\0" pairs of `query_len` bytes (a pre-signed URL
/// is checked on them). Must not block: it fills `admission`.
typedef void (*chttp_admission_handler)(void *context, const char *method, const char *path, const char *authorization,
                                        long long content_length, const char *query, size_t query_len,
                                        chttp_admission *admission);

/// Called on the daemon's thread when a request is complete. `route` is its admission's
/// (``chttp_admission/route``). `client` is the address it
/// came from ("203.0.113.7"), or NULL if unknown. `headers` and `query` are
/// "name\0value\0" sequences of `headers_len`/`query_len` bytes. The body is `body` in
/// memory, or, when `body_fd` is not -1, the first `body_len` bytes of that file (valid
/// during the call only). The handler must not block; it answers later with
/// `chttp_respond` (exactly once).
typedef void (*chttp_request_handler)(void *context, chttp_exchange *exchange, int route, const char *client,
                                      const char *method, const char *path, const char *headers, size_t headers_len,
                                      const char *query, size_t query_len, const char *body, int body_fd,
                                      size_t body_len);

/// Starts a server on `address:port` (port 0: any free port). NULL on failure, with
/// `error` describing why.
chttp_server *chttp_start(const char *address, uint16_t port, chttp_limits limits, unsigned threads,
                          chttp_admission_handler admit, chttp_request_handler handler, void *context, char *error,
                          size_t error_size);

/// The port the server listens on.
uint16_t chttp_port(const chttp_server *server);

/// Bytes of request bodies admitted without a token that the server holds now.
size_t chttp_anonymous_held(chttp_server *server);

/// Answers a request (from any thread). `headers` is "name\0value\0" pairs of
/// `headers_len` bytes (may be NULL); a pair with a CR or LF is dropped.
void chttp_respond(chttp_exchange *exchange, unsigned status, const char *headers, size_t headers_len, const char *body,
                   size_t body_len);

/// A streamed response body (Server-Sent Events): written from any thread, sent as it
/// comes. Reference-counted between the daemon and the writer.
typedef struct chttp_stream chttp_stream;

/// Answers a request with a streamed body; returns the stream to write to (release it
/// with `chttp_stream_release`).
chttp_stream *chttp_respond_stream(chttp_exchange *exchange, unsigned status, const char *headers, size_t headers_len);

/// Appends bytes to the stream; 0 when the client is gone, the stream is closed, or it
/// (or all streams together) would hold more than the limit unsent (the connection is
/// then dropped).
int chttp_stream_write(chttp_stream *stream, const char *data, size_t len);

/// Ends the stream once what was written has been sent.
void chttp_stream_close(chttp_stream *stream);

/// Whether the client is still there and the stream open.
int chttp_stream_is_open(chttp_stream *stream);

/// Bytes written and not yet sent.
size_t chttp_stream_pending(chttp_stream *stream);

/// Calls `wake(context)` once, on whichever thread gets there: when at most `at_most`
/// bytes wait unsent (the client read, at once if that holds now) or the stream has ended
/// (the client left, it overflowed, the server stopped). One watch at a time: a new one
/// wakes the one it replaces.
void chttp_stream_when_drained(chttp_stream *stream, size_t at_most, void (*wake)(void *), void *context);

/// The drain watch for the end alone: `wake(context)` once the stream has ended.
void chttp_stream_when_ended(chttp_stream *stream, void (*wake)(void *), void *context);
/// Drops the writer's reference.
void chttp_stream_release(chttp_stream *stream);

/// Stops accepting connections, waits up to `grace_seconds` for requests in progress to be
/// answered, then stops the daemon.
void chttp_stop(chttp_server *server, double grace_seconds);

#endif
