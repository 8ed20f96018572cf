#define _GNU_SOURCE
#include "CHTTPShim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct chttp_stream {
    pthread_mutex_t lock;
    int references;             // the daemon's and the writer's
    struct MHD_Connection *connection;
    struct chttp_server *server;
    char *data;
    size_t len, cap, offset;
    int closed;                 // no more writes; end after the data
    int overflowed;             // the client read too slowly: the connection is dropped
    int gone;                   // the daemon released it: the client left or the server stopped
    int reader_suspended;       // the reader suspended the connection waiting for data
    int parked;                 // counted in the server's parked readers
    void (*drained)(void *);    // the drain watch: called once, when at most drained_at bytes
    void *drained_context;      // wait unsent or the stream has ended
    size_t drained_at;
    int drained_at_end_only;    // the watch waits for the end alone
    struct chttp_stream *next, *previous;
};

/// A connection as the server watches it, from accept to close: its address (for the
/// per-address limit) and, while it owes the server a request (its headers and, without a
/// token, its body), since when, for the deadline.
typedef struct chttp_connection {
    int fd;
    uint32_t address;           // IPv4, network order
    int counted;                // counts in its address's connections
    int watched;                // in the server's watched list
    int shut;                   // shut down past its deadline; the daemon closes it
    struct timespec since;
    struct chttp_connection *next, *previous;
} chttp_connection;

/// Connections open from one address.
typedef struct address_count {
    uint32_t address;
    unsigned count;
    struct address_count *next;
} address_count;

enum { ADDRESS_BUCKETS = 1024 };

struct chttp_server {
    struct MHD_Daemon *daemon;
    struct chttp_stream *streams;     // open streams, to end them at shutdown
    int parked_readers;               // stream readers waiting for data (atomic)
    int stopping;                     // set by chttp_stop: readers end instead of parking (atomic)
    chttp_request_handler handler;
    chttp_admission_handler admit;
    void *context;
    chttp_limits limits;
    size_t memory_bytes;              // request bodies held in memory (atomic)
    size_t spooled_bytes;             // request bodies spooled to temporary files (atomic)
    chttp_body_budget *anonymous;     // bodies of requests admitted without a token
    size_t streams_pending;           // bytes written to event streams and not yet sent (atomic)
    // Connections: the watched ones in order of `since` (the oldest first), counts per
    // address, and the thread that closes those past their deadline; all under watch_lock.
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_wake;
    chttp_connection *watched_head, *watched_tail;
    address_count *addresses[ADDRESS_BUCKETS];
    pthread_t sweeper;
    int sweeping;                     // the sweeper runs until this is 0
    pthread_mutex_t lock;
    unsigned suspended;               // connections suspended and not yet resumed by the daemon
    struct chttp_exchange *waiting;   // exchanges handed to Swift and not yet answered
};

enum exchange_state { RECEIVING, DISPATCHED, ANSWERED };

struct chttp_exchange {
    chttp_server *server;
    struct MHD_Connection *connection;
    enum exchange_state state;
    size_t max_body;        // the route's limit, from the admission
    int route;              // the route the admission found, handed to the request handler
    size_t received;        // bytes of body read from the client: what the limit counts
    char *body;             // the body while it is small
    size_t body_len, body_cap;
    int body_fd;            // the body once spooled to an unlinked temporary file, else -1
    int too_large;
    int busy;               // the server's body budget ran out: the rest is read and dropped, then 503
    int anonymous;          // admitted without a token: the anonymous budget, memory only
    chttp_body_share *share;  // its part of the anonymous budget (anonymous only), or NULL
    // A file sent as a form (admission.file_form, a multipart/form-data body): only its part
    // named "file" is kept as the body, parsed by libmicrohttpd's post processor as it comes.
    int file_form;
    struct MHD_PostProcessor *form;
    int file_parts;         // parts named "file" seen
    int in_file_part;       // the processor's last piece was of the file part
    int io_failed;          // writing the file part failed: the connection is dropped
    char *file_type;        // the file part's Content-Type (malloc'd), or NULL
    char *file_name;        // its filename (malloc'd), or NULL
    const char *form_error; // why the form is refused (static text), or NULL
    chttp_connection *tracked;  // its connection, as the server watches it (or NULL)
    unsigned status;
    struct MHD_Response *response;
    struct chttp_exchange *next_waiting, *previous_waiting;
    int counted_suspended;  // counts in server->suspended until the daemon resumes it
};

static void uncount_suspended(chttp_exchange *exchange) {
    chttp_server *server = exchange->server;
    pthread_mutex_lock(&server->lock);
    if (exchange->counted_suspended) {
        exchange->counted_suspended = 0;
        server->suspended--;
    }
    pthread_mutex_unlock(&server->lock);
}

static void unlink_waiting(chttp_server *server, chttp_exchange *exchange) {
    if (exchange->previous_waiting) exchange->previous_waiting->next_waiting = exchange->next_waiting;
    else if (server->waiting == exchange) server->waiting = exchange->next_waiting;
    if (exchange->next_waiting) exchange->next_waiting->previous_waiting = exchange->previous_waiting;
    exchange->next_waiting = exchange->previous_waiting = NULL;
}

typedef struct {
    char *data;
    size_t len, cap;
} buffer;

static int buffer_append(buffer *b, const char *data, size_t len) {
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + len) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) return 0;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 1;
}

static enum MHD_Result collect_pair(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    buffer *b = cls;
    if (!key) return MHD_YES;
    buffer_append(b, key, strlen(key) + 1);
    if (value) buffer_append(b, value, strlen(value) + 1); else buffer_append(b, "", 1);
    return MHD_YES;
}

static enum MHD_Result queue_text(struct MHD_Connection *connection, unsigned status, const char *json) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(json), (void *)json, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/// Seconds on the monotonic clock.
static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void release_body(chttp_exchange *exchange) {
    chttp_server *server = exchange->server;
    if (exchange->body_fd >= 0) {
        close(exchange->body_fd);
        exchange->body_fd = -1;
        __atomic_sub_fetch(&server->spooled_bytes, exchange->body_len, __ATOMIC_SEQ_CST);
    } else if (exchange->body && !exchange->anonymous) {
        __atomic_sub_fetch(&server->memory_bytes, exchange->body_cap, __ATOMIC_SEQ_CST);
    }
    chttp_body_share_close(exchange->share);
    exchange->share = NULL;
    free(exchange->body);
    exchange->body = NULL;
    exchange->body_len = exchange->body_cap = 0;
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t written = write(fd, data, len);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return 0;
        data += written;
        len -= (size_t)written;
    }
    return 1;
}

/// An unlinked temporary file (mode 0600) for a spooled body; -1 on failure.
static int spool_file(void) {
    const char *folder = getenv("TMPDIR");
    if (!folder || !*folder) folder = "/tmp";
    int fd = open(folder, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/ccai-body-XXXXXX", folder);
    fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

/// Adds a chunk of body: in memory while small and while the server's memory budget
/// allows, else to a temporary file; a body admitted without a token stays in memory,
/// within the anonymous budget. 0 when the server has no room left (the caller answers
/// 503), -1 on an I/O failure.
static int append_body(chttp_exchange *exchange, const char *data, size_t len) {
    chttp_server *server = exchange->server;
    if (exchange->body_fd < 0) {
        size_t needed = exchange->body_len + len;
        size_t cap = exchange->body_cap ? exchange->body_cap : 256;
        while (cap < needed) cap *= 2;
        size_t grow = cap - exchange->body_cap;
        int fits;
        if (exchange->anonymous) {
            fits = exchange->share && chttp_body_share_grow(exchange->share, cap, monotonic_seconds());
        } else {
            fits = needed <= server->limits.spool_after_bytes &&
                   __atomic_load_n(&server->memory_bytes, __ATOMIC_SEQ_CST) + grow <= server->limits.memory_bytes;
        }
        if (fits) {
            if (grow > 0) {
                char *grown = realloc(exchange->body, cap);
                if (!grown) return -1;
                if (!exchange->anonymous) __atomic_add_fetch(&server->memory_bytes, grow, __ATOMIC_SEQ_CST);
                exchange->body = grown;
                exchange->body_cap = cap;
            }
            memcpy(exchange->body + exchange->body_len, data, len);
            exchange->body_len += len;
            return 1;
        }
        if (exchange->anonymous) return 0;  // never spooled
        size_t spooled = __atomic_load_n(&server->spooled_bytes, __ATOMIC_SEQ_CST);
        if (spooled + exchange->body_len + len > server->limits.spool_bytes) return 0;
        int fd = spool_file();
        if (fd < 0) return -1;
        if (exchange->body_len > 0 && !write_all(fd, exchange->body, exchange->body_len)) {
            close(fd);
            return -1;
        }
        __atomic_sub_fetch(&server->memory_bytes, exchange->body_cap, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&server->spooled_bytes, exchange->body_len, __ATOMIC_SEQ_CST);
        free(exchange->body);
        exchange->body = NULL;
        exchange->body_cap = 0;
        exchange->body_fd = fd;
    }
    size_t spooled = __atomic_load_n(&server->spooled_bytes, __ATOMIC_SEQ_CST);
    if (spooled + len > server->limits.spool_bytes) return 0;
    if (!write_all(exchange->body_fd, data, len)) return -1;
    __atomic_add_fetch(&server->spooled_bytes, len, __ATOMIC_SEQ_CST);
    exchange->body_len += len;
    return 1;
}

// MARK: - A file sent as a form

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/// Whether `type` is the media type `multipart/form-data` (any case), parameters aside.
static int is_form_type(const char *type) {
    size_t length = strlen("multipart/form-data");
    return strncasecmp(type, "multipart/form-data", length) == 0 &&
           (type[length] == 0 || type[length] == ';' || type[length] == ' ' || type[length] == '\t');
}

/// Why libmicrohttpd would misread the form's Content-Type, or NULL: it takes the text
/// after a lowercase `boundary=` to the end of the header as the boundary, so that
/// parameter must be there, written so, and last.
static const char *form_type_problem(const char *type) {
    const char *boundary = NULL;
    for (const char *at = type; (at = strchr(at, ';')); at++) {
        const char *name = at + 1;
        while (*name == ' ' || *name == '\t') name++;
        if (strncasecmp(name, "boundary", 8) != 0) continue;
        const char *equals = name + 8;
        while (*equals == ' ' || *equals == '\t') equals++;
        if (*equals != '=') continue;
        if (strncmp(name, "boundary=", 9) != 0)
            return "write the Content-Type's boundary parameter as boundary=VALUE (lowercase, no spaces)";
        boundary = name + 9;
    }
    if (!boundary) return "a multipart/form-data body needs a boundary parameter";
    if (strchr(boundary, ';')) return "give the Content-Type's boundary parameter last";
    return NULL;
}

/// libmicrohttpd's post processor hands over a form piece by piece: every piece of the part
/// named "file" is appended to the body as a plain upload's would be (spooled past the
/// memory budget, 503 past the spool's); other parts are read and dropped. A second file
/// part, or a file sent in a transfer encoding, stops the processor: the form is refused.
static enum MHD_Result take_form_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
                                      const char *content_type, const char *transfer_encoding, const char *data,
                                      uint64_t off, size_t size) {
    (void)kind;
    chttp_exchange *exchange = cls;
    if (!key || strcmp(key, "file") != 0) {
        exchange->in_file_part = 0;
        return MHD_YES;
    }
    // A part's first piece has offset 0, and an empty first piece may be followed by another
    // at 0: that is the same part only while nothing was kept of it and it has the same
    // filename and type (an empty part then another with other headers is two parts).
    int continues = exchange->in_file_part &&
                    (off > 0 || (exchange->body_len == 0 && same_text(filename, exchange->file_name) &&
                                 same_text(content_type, exchange->file_type)));
    if (!continues) {
        if (++exchange->file_parts > 1) {
            exchange->form_error = "an upload takes one part named file";
            return MHD_NO;
        }
        if (transfer_encoding && strcasecmp(transfer_encoding, "binary") != 0 && strcasecmp(transfer_encoding, "8bit") != 0 &&
            strcasecmp(transfer_encoding, "7bit") != 0) {
            exchange->form_error = "the file part has a Content-Transfer-Encoding; send its bytes as they are";
            return MHD_NO;
        }
        if (content_type && !(exchange->file_type = strdup(content_type))) return MHD_NO;
        if (filename && !(exchange->file_name = strdup(filename))) return MHD_NO;
    }
    exchange->in_file_part = 1;
    if (size == 0) return MHD_YES;
    int appended = append_body(exchange, data, size);
    if (appended > 0) return MHD_YES;
    if (appended < 0) exchange->io_failed = 1; else exchange->busy = 1;
    return MHD_NO;
}

/// The body is all in: the form must have ended with its closing boundary and held one
/// file part with a Content-Type.
static void finish_form(chttp_exchange *exchange) {
    if (exchange->form) {
        int complete = MHD_destroy_post_processor(exchange->form) == MHD_YES;
        exchange->form = NULL;
        if (!complete && !exchange->form_error) exchange->form_error = "the multipart/form-data body ends before its closing boundary";
    }
    if (exchange->form_error) return;
    if (exchange->file_parts == 0) exchange->form_error = "the form has no part named file";
    else if (!exchange->file_type) exchange->form_error = "the form's file part has no Content-Type";
}

static void release_form(chttp_exchange *exchange) {
    if (exchange->form) MHD_destroy_post_processor(exchange->form);
    exchange->form = NULL;
    free(exchange->file_type);
    free(exchange->file_name);
    exchange->file_type = exchange->file_name = NULL;
}

/// The request's headers but its Content-Type, which the file part's replaces.
static enum MHD_Result collect_pair_but_type(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    if (key && strcasecmp(key, "Content-Type") == 0) return MHD_YES;
    return collect_pair(cls, kind, key, value);
}

/// Adds "name\0value\0" pairs; a name or value with a CR or LF is dropped, never split.
static void add_headers(struct MHD_Response *response, const char *pairs, size_t len) {
    size_t offset = 0;
    while (pairs && offset < len) {
        const char *name = pairs + offset;
        size_t name_len = strnlen(name, len - offset);
        if (offset + name_len + 1 >= len) break;
        const char *value = name + name_len + 1;
        size_t value_len = strnlen(value, len - offset - name_len - 1);
        offset += name_len + value_len + 2;
        if (strpbrk(name, "\r\n:") || strpbrk(value, "\r\n")) continue;
        MHD_add_response_header(response, name, value);
    }
}

static double seconds_between(const struct timespec *start, const struct timespec *end) {
    return (double)(end->tv_sec - start->tv_sec) + (double)(end->tv_nsec - start->tv_nsec) / 1e9;
}

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return seconds_between(start, &now);
}

// MARK: - Connections: the per-address limit and the request deadline

static int is_loopback(uint32_t address) { return (ntohl(address) >> 24) == 127; }

/// Where the count of `address` is, or would be inserted (watch_lock held).
static address_count **address_slot(chttp_server *server, uint32_t address) {
    address_count **slot = &server->addresses[(address * 2654435761u) >> 22];
    while (*slot && (*slot)->address != address) slot = &(*slot)->next;
    return slot;
}

/// Puts a connection under the deadline, from now (watch_lock held): the list stays in
/// order of `since`.
static void watch_locked(chttp_server *server, chttp_connection *tracked) {
    if (tracked->watched || tracked->fd < 0) return;
    clock_gettime(CLOCK_MONOTONIC, &tracked->since);
    tracked->watched = 1;
    tracked->next = NULL;
    tracked->previous = server->watched_tail;
    if (server->watched_tail) server->watched_tail->next = tracked;
    else server->watched_head = tracked;
    server->watched_tail = tracked;
}

static void unwatch_locked(chttp_server *server, chttp_connection *tracked) {
    if (!tracked->watched) return;
    if (tracked->previous) tracked->previous->next = tracked->next;
    else server->watched_head = tracked->next;
    if (tracked->next) tracked->next->previous = tracked->previous;
    else server->watched_tail = tracked->previous;
    tracked->next = tracked->previous = NULL;
    tracked->watched = 0;
}

static void watch(chttp_server *server, chttp_connection *tracked, int watched) {
    if (!tracked) return;
    pthread_mutex_lock(&server->watch_lock);
    if (watched) watch_locked(server, tracked); else unwatch_locked(server, tracked);
    pthread_mutex_unlock(&server->watch_lock);
}

/// Refuses every connection once the server is stopping, and one from an address that
/// has as many open as it may (loopback is exempt unless `limit_loopback`).
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    chttp_server *server = cls;
    if (__atomic_load_n(&server->stopping, __ATOMIC_SEQ_CST)) return MHD_NO;
    unsigned limit = server->limits.connections_per_address;
    if (limit == 0 || !addr || addr->sa_family != AF_INET || addrlen < (socklen_t)sizeof(struct sockaddr_in)) return MHD_YES;
    uint32_t address = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;
    if (is_loopback(address) && !server->limits.limit_loopback) return MHD_YES;
    pthread_mutex_lock(&server->watch_lock);
    address_count *entry = *address_slot(server, address);
    int allowed = !entry || entry->count < limit;
    pthread_mutex_unlock(&server->watch_lock);
    return allowed ? MHD_YES : MHD_NO;
}

/// A connection opens (counted for its address, and under the deadline until its first
/// request is in) or closes. The daemon notifies a close before it closes the socket, so
/// the sweeper never shuts down a descriptor that was reused.
static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    chttp_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        chttp_connection *tracked = calloc(1, sizeof(chttp_connection));
        *socket_context = tracked;
        if (!tracked) return;
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *client = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        tracked->fd = fd ? fd->connect_fd : -1;
        if (client && client->client_addr && client->client_addr->sa_family == AF_INET)
            tracked->address = ((const struct sockaddr_in *)client->client_addr)->sin_addr.s_addr;
        pthread_mutex_lock(&server->watch_lock);
        if (server->limits.connections_per_address > 0) {
            address_count **slot = address_slot(server, tracked->address);
            if (!*slot && (*slot = calloc(1, sizeof(address_count)))) (*slot)->address = tracked->address;
            if (*slot) {
                (*slot)->count++;
                tracked->counted = 1;
            }
        }
        watch_locked(server, tracked);
        pthread_mutex_unlock(&server->watch_lock);
        return;
    }
    chttp_connection *tracked = *socket_context;
    if (!tracked) return;
    pthread_mutex_lock(&server->watch_lock);
    unwatch_locked(server, tracked);
    if (tracked->counted) {
        address_count **slot = address_slot(server, tracked->address);
        if (*slot && --(*slot)->count == 0) {
            address_count *gone = *slot;
            *slot = gone->next;
            free(gone);
        }
    }
    pthread_mutex_unlock(&server->watch_lock);
    free(tracked);
    *socket_context = NULL;
}

/// Shuts down every watched connection past its deadline, four times a second; the
/// daemon sees the end of the socket and closes it.
static void *sweep_deadlines(void *cls) {
    chttp_server *server = cls;
    pthread_mutex_lock(&server->watch_lock);
    while (server->sweeping) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (chttp_connection *tracked = server->watched_head; tracked; tracked = tracked->next) {
            if (seconds_between(&tracked->since, &now) < server->limits.request_seconds) break;
            if (!tracked->shut) {
                tracked->shut = 1;
                shutdown(tracked->fd, SHUT_RDWR);
            }
        }
        struct timespec wake = now;
        wake.tv_nsec += 250000000;
        if (wake.tv_nsec >= 1000000000) {
            wake.tv_sec += 1;
            wake.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&server->watch_wake, &server->watch_lock, &wake);
    }
    pthread_mutex_unlock(&server->watch_lock);
    return NULL;
}

static const char stopping_body[] = "{\"error\":{\"code\":\"unavailable\",\"message\":\"the server is shutting down\"}}";
static const char busy_body[] =
    "{\"error\":{\"code\":\"unavailable\",\"message\":\"the server holds as many request bodies as it takes; try again\"}}";

/// The first call for a request: its headers are in. The router decides from them alone
/// (route, authentication, declared length) whether to read a body at all, and how much.
static enum MHD_Result admit(chttp_server *server, chttp_exchange *exchange, struct MHD_Connection *connection,
                             const char *method, const char *url) {
    const char *authorization = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Authorization");
    const char *length_text = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
    long long declared = -1;
    if (length_text) {
        char *end = NULL;
        errno = 0;
        unsigned long long value = strtoull(length_text, &end, 10);
        declared = (errno == 0 && end && *end == 0 && value <= (unsigned long long)INT64_MAX) ? (long long)value : INT64_MAX;
    }
    chttp_admission admission;
    memset(&admission, 0, sizeof admission);
    buffer query = {0};
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect_pair, &query);
    server->admit(server->context, method, url, authorization, declared, query.data, query.len, &admission);
    free(query.data);
    admission.body[sizeof admission.body - 1] = 0;
    if (admission.status != 0) {
        exchange->state = ANSWERED;
        struct MHD_Response *response =
            MHD_create_response_from_buffer(strlen(admission.body), admission.body, MHD_RESPMEM_MUST_COPY);
        MHD_add_response_header(response, "Content-Type", "application/json");
        if (admission.headers_len <= sizeof admission.headers) add_headers(response, admission.headers, admission.headers_len);
        enum MHD_Result result = MHD_queue_response(connection, admission.status, response);
        MHD_destroy_response(response);
        return result;
    }
    exchange->max_body = admission.max_body_bytes;
    exchange->route = admission.route;
    exchange->anonymous = admission.anonymous != 0;
    if (!exchange->anonymous) watch(server, exchange->tracked, 0);  // a token's body may take its time
    if (exchange->anonymous) {
        uint32_t from = exchange->tracked ? exchange->tracked->address : 0;
        int per_address = !is_loopback(from) || server->limits.limit_loopback;
        exchange->share = chttp_body_share_open(server->anonymous, from, per_address,
                                                exchange->tracked ? exchange->tracked->fd : -1, monotonic_seconds());
        if (!exchange->share) return MHD_NO;
    }
    const char *type = admission.file_form ? MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Type") : NULL;
    if (type && is_form_type(type)) {
        exchange->file_form = 1;
        exchange->form_error = form_type_problem(type);
        if (!exchange->form_error) exchange->form = MHD_create_post_processor(connection, 4096, take_form_part, exchange);
        if (!exchange->form && !exchange->form_error) exchange->form_error = "the form's boundary is empty or too long";
    }
    if (declared >= 0 && (unsigned long long)declared > exchange->max_body) exchange->too_large = 1;
    if (declared > 0 && !exchange->too_large) {
        // A declared body the server has no room for is refused before it is read.
        size_t length = (size_t)declared;
        int no_room = exchange->anonymous
            ? !chttp_body_share_grow(exchange->share, length, monotonic_seconds())  // reserved now
            : length > server->limits.spool_after_bytes &&
                  __atomic_load_n(&server->spooled_bytes, __ATOMIC_SEQ_CST) + length > server->limits.spool_bytes;
        if (no_room) {
            exchange->state = ANSWERED;
            return queue_text(connection, 503, busy_body);
        }
    }
    return MHD_YES;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls) {
    (void)version;
    chttp_server *server = cls;
    chttp_exchange *exchange = *con_cls;
    if (exchange == NULL) {
        exchange = calloc(1, sizeof(chttp_exchange));
        if (!exchange) return MHD_NO;
        exchange->server = server;
        exchange->connection = connection;
        exchange->body_fd = -1;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        exchange->tracked = info ? info->socket_context : NULL;
        *con_cls = exchange;
        enum MHD_Result admitted = admit(server, exchange, connection, method, url);
        if (exchange->state == ANSWERED || !exchange->too_large) return admitted;
    }
    if (exchange->state == ANSWERED) {
        *upload_data_size = 0;  // a refused request's body is not read
        return MHD_YES;
    }
    if (exchange->state == RECEIVING) {
        if (exchange->too_large) {
            // Refused on its length (declared or reached): answered at once, nothing more is read.
            char message[200];
            snprintf(message, sizeof message,
                     "{\"error\":{\"code\":\"too_large\",\"message\":\"the request body is larger than %zu bytes, the limit of %s %s\"}}",
                     exchange->max_body, method, url[0] == '/' && strlen(url) < 80 ? url : "this route");
            exchange->state = ANSWERED;
            release_body(exchange);
            *upload_data_size = 0;
            return queue_text(connection, 413, message);
        }
        if (*upload_data_size > 0) {
            size_t len = *upload_data_size;
            *upload_data_size = 0;
            if (exchange->received + len > exchange->max_body) {
                exchange->too_large = 1;
                return MHD_YES;
            }
            exchange->received += len;
            if (exchange->share && chttp_body_share_evicted(exchange->share)) return MHD_NO;  // it gave its share up
            // Read and dropped once refused: answering mid-upload would reset the connection.
            if (exchange->busy || exchange->form_error) return MHD_YES;
            if (exchange->file_form) {
                if (MHD_post_process(exchange->form, upload_data, len) != MHD_YES) {
                    if (exchange->io_failed) return MHD_NO;
                    if (!exchange->busy && !exchange->form_error) exchange->form_error = "the multipart/form-data body is malformed";
                    release_body(exchange);
                }
                return MHD_YES;
            }
            int appended = append_body(exchange, upload_data, len);
            if (appended < 0) return MHD_NO;
            if (appended == 0) {
                release_body(exchange);
                exchange->busy = 1;
            }
            return MHD_YES;
        }
        if (exchange->busy) {
            exchange->state = ANSWERED;
            return queue_text(connection, 503, busy_body);
        }
        if (exchange->file_form) finish_form(exchange);
        if (exchange->form_error) {
            char message[300];
            snprintf(message, sizeof message, "{\"error\":{\"code\":\"invalid_argument\",\"message\":\"%s\"}}",
                     exchange->form_error);
            exchange->state = ANSWERED;
            release_body(exchange);
            return queue_text(connection, 400, message);
        }
        buffer headers = {0}, query = {0};
        MHD_get_connection_values(connection, MHD_HEADER_KIND, exchange->file_form ? collect_pair_but_type : collect_pair,
                                  &headers);
        MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect_pair, &query);
        if (exchange->file_form) {
            // The file part's type stands for the request's, its filename for the `name` parameter.
            buffer_append(&headers, "Content-Type", sizeof "Content-Type");
            buffer_append(&headers, exchange->file_type, strlen(exchange->file_type) + 1);
            if (exchange->file_name && !MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "name")) {
                buffer_append(&query, "name", sizeof "name");
                buffer_append(&query, exchange->file_name, strlen(exchange->file_name) + 1);
            }
        }
        watch(server, exchange->tracked, 0);  // all of it is in
        if (exchange->share && !chttp_body_share_complete(exchange->share)) {
            free(headers.data);
            free(query.data);
            return MHD_NO;  // its share went to another body while the last bytes came
        }
        pthread_mutex_lock(&server->lock);
        // A request that comes on an open connection once the server is stopping is answered
        // at once, never suspended: microhttpd aborts the process when it is stopped with a
        // connection suspended, and chttp_stop's last look at `suspended` is under this lock.
        if (__atomic_load_n(&server->stopping, __ATOMIC_SEQ_CST)) {
            pthread_mutex_unlock(&server->lock);
            free(headers.data);
            free(query.data);
            exchange->state = ANSWERED;
            return queue_text(connection, 503, stopping_body);
        }
        exchange->state = DISPATCHED;
        server->suspended++;
        exchange->counted_suspended = 1;
        exchange->next_waiting = server->waiting;
        if (server->waiting) server->waiting->previous_waiting = exchange;
        server->waiting = exchange;
        pthread_mutex_unlock(&server->lock);
        MHD_suspend_connection(connection);
        char client[INET_ADDRSTRLEN];
        int known = exchange->tracked && inet_ntop(AF_INET, &exchange->tracked->address, client, sizeof client);
        server->handler(server->context, exchange, exchange->route, known ? client : NULL, method, url, headers.data,
                        headers.len, query.data, query.len, exchange->body_fd < 0 ? exchange->body : NULL, exchange->body_fd, exchange->body_len);
        free(headers.data);
        free(query.data);
        return MHD_YES;
    }
    if (exchange->state == DISPATCHED && exchange->response != NULL) {
        exchange->state = ANSWERED;
        uncount_suspended(exchange);
        release_body(exchange);
        enum MHD_Result result = MHD_queue_response(connection, exchange->status, exchange->response);
        MHD_destroy_response(exchange->response);
        exchange->response = NULL;
        return result;
    }
    return MHD_YES;
}

static void request_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                              enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)connection;
    (void)code;
    chttp_exchange *exchange = *con_cls;
    if (!exchange) return;
    watch(exchange->server, exchange->tracked, 1);  // the next request has its own deadline
    uncount_suspended(exchange);  // a resumed connection whose client left is never handled again
    if (exchange->response) MHD_destroy_response(exchange->response);
    release_body(exchange);
    release_form(exchange);
    free(exchange);
    *con_cls = NULL;
}

// MARK: - Streams

static void stream_release(chttp_stream *stream) {
    pthread_mutex_lock(&stream->lock);
    int left = --stream->references;
    pthread_mutex_unlock(&stream->lock);
    if (left > 0) return;
    if (stream->drained) stream->drained(stream->drained_context);  // a watch outliving the daemon's part
    pthread_mutex_destroy(&stream->lock);
    free(stream->data);
    free(stream);
}

/// The drain watch, taken off the stream if it is due: at most its bytes unsent, or the
/// stream ended (stream lock held; the caller calls it once the lock is released).
typedef struct { void (*wake)(void *); void *context; } drain_watch;

static drain_watch take_drain_watch(chttp_stream *stream, int ended) {
    drain_watch watch = {NULL, NULL};
    if (!stream->drained) return watch;
    if (!ended && (stream->drained_at_end_only || stream->len - stream->offset > stream->drained_at)) return watch;
    watch.wake = stream->drained;
    watch.context = stream->drained_context;
    stream->drained = NULL;
    stream->drained_context = NULL;
    return watch;
}

static void call_drain_watch(drain_watch watch) {
    if (watch.wake) watch.wake(watch.context);
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    chttp_stream *stream = cls;
    pthread_mutex_lock(&stream->lock);
    if (stream->parked) {
        stream->parked = 0;
        __atomic_sub_fetch(&stream->server->parked_readers, 1, __ATOMIC_SEQ_CST);
    }
    if (stream->len > stream->offset && !stream->overflowed) {
        size_t count = stream->len - stream->offset;
        if (count > max) count = max;
        memcpy(buf, stream->data + stream->offset, count);
        stream->offset += count;
        __atomic_sub_fetch(&stream->server->streams_pending, count, __ATOMIC_SEQ_CST);
        if (stream->offset == stream->len) stream->offset = stream->len = 0;
        drain_watch watch = take_drain_watch(stream, 0);
        pthread_mutex_unlock(&stream->lock);
        call_drain_watch(watch);
        return (ssize_t)count;
    }
    if (stream->overflowed) {
        pthread_mutex_unlock(&stream->lock);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (stream->closed || __atomic_load_n(&stream->server->stopping, __ATOMIC_SEQ_CST)) {
        pthread_mutex_unlock(&stream->lock);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    // Nothing to send: park the connection until the next write (the pattern microhttpd.h
    // prescribes; returning 0 alone would spin).
    stream->reader_suspended = 1;
    stream->parked = 1;
    __atomic_add_fetch(&stream->server->parked_readers, 1, __ATOMIC_SEQ_CST);
    MHD_suspend_connection(stream->connection);
    pthread_mutex_unlock(&stream->lock);
    return 0;
}

static void stream_free(void *cls) {
    chttp_stream *stream = cls;
    chttp_server *server = stream->server;
    pthread_mutex_lock(&server->lock);
    if (stream->previous) stream->previous->next = stream->next;
    else if (server->streams == stream) server->streams = stream->next;
    if (stream->next) stream->next->previous = stream->previous;
    pthread_mutex_unlock(&server->lock);
    pthread_mutex_lock(&stream->lock);
    stream->gone = 1;
    stream->connection = NULL;
    __atomic_sub_fetch(&server->streams_pending, stream->len - stream->offset, __ATOMIC_SEQ_CST);
    free(stream->data);
    stream->data = NULL;
    stream->len = stream->cap = stream->offset = 0;
    drain_watch watch = take_drain_watch(stream, 1);
    pthread_mutex_unlock(&stream->lock);
    call_drain_watch(watch);
    stream_release(stream);
}

/// Wakes a parked reader (stream lock held).
static void wake_reader(chttp_stream *stream) {
    if (stream->reader_suspended && stream->connection) {
        stream->reader_suspended = 0;
        MHD_resume_connection(stream->connection);
    }
}

int chttp_stream_write(chttp_stream *stream, const char *data, size_t len) {
    pthread_mutex_lock(&stream->lock);
    if (stream->gone || stream->closed) {
        pthread_mutex_unlock(&stream->lock);
        return 0;
    }
    chttp_server *server = stream->server;
    size_t pending = stream->len - stream->offset;
    if (pending + len > server->limits.stream_bytes ||
        __atomic_load_n(&server->streams_pending, __ATOMIC_SEQ_CST) + len > server->limits.streams_bytes) {
        // The client does not read (or all streams together hold their budget): drop the
        // connection instead of holding more; it resumes with Last-Event-ID.
        stream->overflowed = 1;
        stream->closed = 1;
        __atomic_sub_fetch(&server->streams_pending, pending, __ATOMIC_SEQ_CST);
        free(stream->data);
        stream->data = NULL;
        stream->len = stream->cap = stream->offset = 0;
        wake_reader(stream);
        drain_watch watch = take_drain_watch(stream, 1);
        pthread_mutex_unlock(&stream->lock);
        call_drain_watch(watch);
        return 0;
    }
    buffer b = {stream->data, stream->len, stream->cap};
    int ok = buffer_append(&b, data, len);
    if (ok) __atomic_add_fetch(&server->streams_pending, len, __ATOMIC_SEQ_CST);
    stream->data = b.data;
    stream->len = b.len;
    stream->cap = b.cap;
    wake_reader(stream);
    pthread_mutex_unlock(&stream->lock);
    return ok;
}

void chttp_stream_close(chttp_stream *stream) {
    pthread_mutex_lock(&stream->lock);
    stream->closed = 1;
    wake_reader(stream);
    pthread_mutex_unlock(&stream->lock);
}

int chttp_stream_is_open(chttp_stream *stream) {
    pthread_mutex_lock(&stream->lock);
    int open = !stream->gone && !stream->closed;
    pthread_mutex_unlock(&stream->lock);
    return open;
}

static void watch_stream(chttp_stream *stream, size_t at_most, int end_only, void (*wake)(void *), void *context) {
    pthread_mutex_lock(&stream->lock);
    drain_watch replaced = {stream->drained, stream->drained_context};
    stream->drained = wake;
    stream->drained_context = context;
    stream->drained_at = at_most;
    stream->drained_at_end_only = end_only;
    drain_watch due = take_drain_watch(stream, stream->gone || stream->overflowed);
    pthread_mutex_unlock(&stream->lock);
    call_drain_watch(replaced);
    call_drain_watch(due);
}

void chttp_stream_when_drained(chttp_stream *stream, size_t at_most, void (*wake)(void *), void *context) {
    watch_stream(stream, at_most, 0, wake, context);
}

void chttp_stream_when_ended(chttp_stream *stream, void (*wake)(void *), void *context) {
    watch_stream(stream, 0, 1, wake, context);
}

size_t chttp_stream_pending(chttp_stream *stream) {
    pthread_mutex_lock(&stream->lock);
    size_t pending = stream->len - stream->offset;
    pthread_mutex_unlock(&stream->lock);
    return pending;
}

void chttp_stream_release(chttp_stream *stream) { stream_release(stream); }

chttp_stream *chttp_respond_stream(chttp_exchange *exchange, unsigned status, const char *headers, size_t headers_len) {
    chttp_server *server = exchange->server;
    chttp_stream *stream = calloc(1, sizeof(chttp_stream));
    if (!stream) return NULL;
    pthread_mutex_init(&stream->lock, NULL);
    stream->references = 2;
    stream->connection = exchange->connection;
    stream->server = server;
    pthread_mutex_lock(&server->lock);
    if (exchange->response != NULL) {  // already answered (by chttp_stop)
        pthread_mutex_unlock(&server->lock);
        pthread_mutex_destroy(&stream->lock);
        free(stream);
        return NULL;
    }
    struct MHD_Response *response =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_reader, stream, stream_free);
    add_headers(response, headers, headers_len);
    stream->next = server->streams;
    if (server->streams) server->streams->previous = stream;
    server->streams = stream;
    exchange->status = status;
    exchange->response = response;
    unlink_waiting(server, exchange);
    pthread_mutex_unlock(&server->lock);
    MHD_resume_connection(exchange->connection);
    return stream;
}

void chttp_respond(chttp_exchange *exchange, unsigned status, const char *headers, size_t headers_len, const char *body,
                   size_t body_len) {
    chttp_server *server = exchange->server;
    pthread_mutex_lock(&server->lock);
    if (exchange->response != NULL) {  // already answered (by chttp_stop)
        pthread_mutex_unlock(&server->lock);
        return;
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer(body_len, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
    add_headers(response, headers, headers_len);
    exchange->status = status;
    exchange->response = response;
    unlink_waiting(server, exchange);
    pthread_mutex_unlock(&server->lock);
    MHD_resume_connection(exchange->connection);
}

/// Frees a server whose daemon is stopped (or never started).
static void destroy_server(chttp_server *server) {
    for (size_t bucket = 0; bucket < ADDRESS_BUCKETS; bucket++) {
        while (server->addresses[bucket]) {
            address_count *gone = server->addresses[bucket];
            server->addresses[bucket] = gone->next;
            free(gone);
        }
    }
    chttp_body_budget_destroy(server->anonymous);
    pthread_cond_destroy(&server->watch_wake);
    pthread_mutex_destroy(&server->watch_lock);
    pthread_mutex_destroy(&server->lock);
    free(server);
}

/// Stops the thread that enforces the request deadline.
static void stop_sweeping(chttp_server *server) {
    pthread_mutex_lock(&server->watch_lock);
    int running = server->sweeping;
    server->sweeping = 0;
    pthread_cond_signal(&server->watch_wake);
    pthread_mutex_unlock(&server->watch_lock);
    if (running) pthread_join(server->sweeper, NULL);
}

chttp_server *chttp_start(const char *address, uint16_t port, chttp_limits limits, unsigned threads,
                          chttp_admission_handler admit, chttp_request_handler handler, void *context, char *error,
                          size_t error_size) {
    chttp_server *server = calloc(1, sizeof(chttp_server));
    if (!server) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->admit = admit;
    server->context = context;
    server->limits = limits;
    server->anonymous = chttp_body_budget_create(limits.anonymous_bytes, limits.anonymous_bytes_per_address,
                                                 limits.anonymous_slow_seconds);
    if (!server->anonymous) {
        free(server);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&server->lock, NULL);
    pthread_mutex_init(&server->watch_lock, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&server->watch_wake, &monotonic);
    pthread_condattr_destroy(&monotonic);
    struct sockaddr_in socket_address;
    memset(&socket_address, 0, sizeof socket_address);
    socket_address.sin_family = AF_INET;
    socket_address.sin_port = htons(port);
    if (inet_pton(AF_INET, address, &socket_address.sin_addr) != 1) {
        snprintf(error, error_size, "'%s' is not an IPv4 address", address);
        destroy_server(server);
        return NULL;
    }
    // microhttpd's default limit (FD_SETSIZE - 4) is the select() one; with epoll the
    // process's descriptor limit is the real bound (every open event stream is one).
    unsigned connection_limit = 1020;
    struct rlimit descriptors;
    if (getrlimit(RLIMIT_NOFILE, &descriptors) == 0 && descriptors.rlim_cur != RLIM_INFINITY &&
        descriptors.rlim_cur > 1280) {
        connection_limit = (unsigned)(descriptors.rlim_cur - 256 > 65536 ? 65536 : descriptors.rlim_cur - 256);
    }
    if (limits.connections > 0) connection_limit = limits.connections;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    server->daemon = MHD_start_daemon(
        flags, port, accept_policy, server, access_handler, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&socket_address,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, server,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, server,
        MHD_OPTION_THREAD_POOL_SIZE, threads > 0 ? threads : 1,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_END);
    if (!server->daemon) {
        snprintf(error, error_size, "cannot listen on %s:%u (address in use or not permitted)", address, port);
        destroy_server(server);
        return NULL;
    }
    if (limits.request_seconds > 0) {
        server->sweeping = 1;
        if (pthread_create(&server->sweeper, NULL, sweep_deadlines, server) != 0) server->sweeping = 0;
    }
    return server;
}

size_t chttp_anonymous_held(chttp_server *server) { return chttp_body_budget_held(server->anonymous); }

uint16_t chttp_port(const chttp_server *server) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Waits until no connection is suspended, for at most `seconds`.
static int wait_until_resumed(chttp_server *server, double seconds) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        pthread_mutex_lock(&server->lock);
        unsigned suspended = server->suspended;
        pthread_mutex_unlock(&server->lock);
        if (suspended == 0) return 1;
        if (seconds_since(&start) > seconds) return 0;
        usleep(1000);
    }
}

/// Answers every exchange still waiting for Swift with a 503, so its connection resumes.
static void answer_waiting_unavailable(chttp_server *server) {
    static const char body[] = "{\"error\":{\"code\":\"unavailable\",\"message\":\"the server is shutting down\"}}";
    static const char headers[] = "Content-Type\0application/json";
    for (;;) {
        pthread_mutex_lock(&server->lock);
        chttp_exchange *exchange = server->waiting;
        pthread_mutex_unlock(&server->lock);
        if (!exchange) break;
        chttp_respond(exchange, 503, headers, sizeof headers, body, sizeof body - 1);
    }
}

void chttp_stop(chttp_server *server, double grace_seconds) {
    if (!server) return;
    // From here a new connection is closed as soon as it is accepted (accept_policy).
    // The listening socket stays open until MHD_stop_daemon: MHD_quiesce_daemon on an
    // epoll daemon with its own threads races the workers' removal of the same socket
    // from their epoll sets, and libmicrohttpd aborts the process when it loses.
    // Open streams end: their parked readers resume and finish; a reader that has not
    // parked yet sees `stopping` and ends instead of parking after the wait below.
    __atomic_store_n(&server->stopping, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&server->lock);
    for (chttp_stream *stream = server->streams; stream; stream = stream->next) {
        pthread_mutex_lock(&stream->lock);
        stream->closed = 1;
        wake_reader(stream);
        pthread_mutex_unlock(&stream->lock);
    }
    pthread_mutex_unlock(&server->lock);
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    while (__atomic_load_n(&server->parked_readers, __ATOMIC_SEQ_CST) > 0 && seconds_since(&started) < 10) usleep(1000);
    if (!wait_until_resumed(server, grace_seconds)) {
        // Requests still unanswered get a 503 so that their connections resume, those
        // dispatched while this waits too.
        struct timespec answering;
        clock_gettime(CLOCK_MONOTONIC, &answering);
        do {
            answer_waiting_unavailable(server);
        } while (!wait_until_resumed(server, 0.05) && seconds_since(&answering) < 30);
    }
    pthread_mutex_lock(&server->lock);
    unsigned suspended = server->suspended;
    pthread_mutex_unlock(&server->lock);
    if (suspended > 0) {
        // libmicrohttpd aborts the whole process when stopped with a connection still
        // suspended: the daemon is left behind instead (it refuses every new connection).
        fprintf(stderr, "sandbox: %u connection(s) still suspended after 30 s; the HTTP daemon is left running\n", suspended);
        return;
    }
    stop_sweeping(server);
    MHD_stop_daemon(server->daemon);
    destroy_server(server);
}
