"""The chat flow of the ccai load scenarios, written for Locust: the peer of ccai-bench's
`peer_ratio` (bench/locust/README.md).

Each Locust user is one end user of the sandbox (identifier lcu-<n>) with its own token,
speaking the wire API (docs/openapi.yaml) directly. It signs in once with a JWT signed
HS384 (or HS256) with the company secret, then loops, with no wait between iterations:

  POST /chats {menu_id: 7}          the Night Desk, answered by the virtual agent Nova
  GET /events                       the end user's Server-Sent Events (Last-Event-ID:
                                    the last event this user saw, so nothing is missed)
  wait for Nova's greeting          (she ignores messages until she has taken the chat)
  3 x POST /chats/{id}/messages     each waits on the stream for Nova's reply:
                                    "message_round_trip", from just before the send
                                    until the reply arrives, as ccai's
                                    message_round_trip_seconds
  POST /chats/{id}/end

Custom entries in Locust's statistics (request type CHAT): "chat_first_response" (from
the start request until the greeting), "message_round_trip" and "chat_iteration" (one
per chat: its successes are the iterations completed, its rate the iterations per
second, and an iteration that failed at any step is one of its failures). The
REST calls are Locust's own FastHttpUser requests, named by route; the stream's opening
is "GET /events" (until its headers). A 429 is waited out (Retry-After) and the request
made again; the refused attempt is counted under its own name, "<route> (429, retried)",
as a success, so that it shows without being a failure.

Run it against `ccai sandbox serve --config bench/locust/sandbox.lua`, whose limits are
lifted for benchmarks. Settings, from the environment:

  CCAI_COMPANY_KEY      default dev-key
  CCAI_COMPANY_SECRET   default dev-secret
  CCAI_JWT_ALG          HS384 (default) or HS256
  CCAI_IDENTIFIER       the prefix of the end users' identifiers (default lcu)
  CCAI_MENU_ID          default 7
  CCAI_REPLY_TIMEOUT    seconds to wait for a reply or the greeting (default 30)
  CCAI_STREAM           chat (default): one event stream per chat, opened after it
                        starts and closed when it ends; user: one stream for the
                        user's life, as an SDK instance holds it
  CCAI_HOLD             seconds (default 0): after the first reply, each user holds its
                        chat and stream open this long ("chat_held" once it does), to
                        measure memory per user with every user mid-chat, as
                        ccai-bench's vu_memory figures do with ccai run
"""

import base64
import hashlib
import hmac
import itertools
import json
import os
import time
import urllib.request
from urllib.parse import urlsplit

import gevent
from gevent import socket
from locust import constant, events, task
from locust.contrib.fasthttp import FastHttpUser

COMPANY_KEY = os.environ.get("CCAI_COMPANY_KEY", "dev-key")
COMPANY_SECRET = os.environ.get("CCAI_COMPANY_SECRET", "dev-secret")
JWT_ALG = os.environ.get("CCAI_JWT_ALG", "HS384").upper()
IDENTIFIER_PREFIX = os.environ.get("CCAI_IDENTIFIER", "lcu")
MENU_ID = int(os.environ.get("CCAI_MENU_ID", "7"))
REPLY_TIMEOUT = float(os.environ.get("CCAI_REPLY_TIMEOUT", "30"))
STREAM_PER_USER = os.environ.get("CCAI_STREAM", "chat") == "user"
HOLD = float(os.environ.get("CCAI_HOLD", "0"))
JWT_TTL = 600  # as `ccai jwt sign` (its default --ttl)
MAX_RETRY_AFTER = 10.0  # as the SDK: a Retry-After is honoured up to 10 s
MAX_429_RETRIES = 5

# Three questions Nova answers by her rules (BuiltInConfiguration.swift), with her answers.
HOURS = "Our day desks are open 9:00-17:00, Monday to Friday (Los Angeles time). I'm here around the clock."
REFUNDS = "Refunds reach your card within 5 business days."
QUESTIONS = [
    ("What are your opening hours?", HOURS),
    ("How long does a refund take?", REFUNDS),
    ("And your hours at the weekend?", HOURS),
]
ANSWERING = ("virtual_agent", "agent")

if JWT_ALG not in ("HS256", "HS384"):
    raise SystemExit(f"CCAI_JWT_ALG: HS256 or HS384, not {JWT_ALG}")

_user_numbers = itertools.count(1)


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign_jwt(claims, secret=COMPANY_SECRET, alg=JWT_ALG, ttl=JWT_TTL, now=None):
    """A compact JWS as `ccai jwt sign` makes it: header {"alg","typ":"JWT"}, the claims
    with iat = now and exp = now + ttl, compact JSON with sorted keys, unpadded base64url."""
    now = int(time.time() if now is None else now)
    header = {"alg": alg, "typ": "JWT"}
    body = dict(claims, iat=now, exp=now + ttl)
    compact = {"separators": (",", ":"), "sort_keys": True}
    signing_input = _b64url(json.dumps(header, **compact).encode()) + "." + _b64url(json.dumps(body, **compact).encode())
    digest = hashlib.sha384 if alg == "HS384" else hashlib.sha256
    signature = hmac.new(secret.encode(), signing_input.encode("ascii"), digest).digest()
    return signing_input + "." + _b64url(signature)


class FlowError(Exception):
    """A step of the chat flow that did not go as the sandbox documents it."""


class StreamEnded(FlowError):
    """The server ended the stream (or the connection dropped): reconnect with Last-Event-ID."""


class StreamRefused(FlowError):
    def __init__(self, status, retry_after, text):
        super().__init__(f"GET /events answered {status}: {text[:200]}")
        self.status = status
        self.retry_after = retry_after


class EventStream:
    """One `GET /events` over a plain (gevent) socket: HTTP/1.1, chunked or not, and the
    text/event-stream format (LF, CRLF or CR lines, multi-line data, comments, id, event).
    `next_event(deadline)` returns (id, name, data) or raises socket.timeout."""

    MAX_LINE = 1 << 20  # the platform's limit for one event of /events

    def __init__(self, host, port, token, last_event_id, connect_timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=connect_timeout)
        lines = [
            "GET /events HTTP/1.1",
            f"Host: {host}:{port}",
            f"Authorization: Bearer {token}",
            "Accept: text/event-stream",
            "Cache-Control: no-cache",
        ]
        if last_event_id is not None:
            lines.append(f"Last-Event-ID: {last_event_id}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        self.raw = b""  # bytes read from the socket and not yet de-chunked
        self.body = b""  # de-chunked bytes not yet split into lines
        self.chunked = False
        self.state = "size"  # of the chunked decoder: size, data, crlf
        self.chunk_left = 0
        self.ended = False
        self.last_event_id = last_event_id
        self.skip_lf = False  # the body's last byte was a CR: a LF next is the same line end
        self.event_name, self.event_id, self.data = None, None, []
        self.ready = []  # events parsed, not yet returned
        self._read_head()

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            self.ended = True
        return data

    def _read_head(self):
        while b"\r\n\r\n" not in self.raw:
            data = self._recv()
            if not data:
                raise FlowError("GET /events: the connection closed before the headers")
            self.raw += data
            if len(self.raw) > 65536:
                raise FlowError("GET /events: headers over 64 KiB")
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if status != 200:
            body = self.raw
            length = int(headers.get("content-length", "0") or 0)
            while len(body) < length and not self.ended:
                body += self._recv()
            retry_after = headers.get("retry-after")
            self.close()
            raise StreamRefused(status, _seconds(retry_after, None), body.decode("utf-8", "replace"))

    def _dechunk(self):
        """Moves what self.raw holds of the body into self.body."""
        if not self.chunked:
            self.body += self.raw
            self.raw = b""
            return
        while self.raw and not self.ended:
            if self.state == "size":
                line_end = self.raw.find(b"\r\n")
                if line_end < 0:
                    if len(self.raw) > 1024:
                        raise FlowError("GET /events: a malformed chunk size")
                    return
                size = int(self.raw[:line_end].split(b";", 1)[0].strip() or b"0", 16)
                self.raw = self.raw[line_end + 2:]
                if size == 0:
                    self.ended = True  # the last chunk: the server ended the stream
                    return
                self.chunk_left, self.state = size, "data"
            elif self.state == "data":
                take = self.raw[: self.chunk_left]
                self.body += take
                self.raw = self.raw[len(take):]
                self.chunk_left -= len(take)
                if self.chunk_left == 0:
                    self.state = "crlf"
            else:
                if len(self.raw) < 2:
                    return
                self.raw, self.state = self.raw[2:], "size"

    def _parse(self):
        """Splits self.body into lines (CR, LF or CRLF) and feeds them to the SSE fields."""
        body = self.body
        if not body:
            return
        if self.skip_lf and body[:1] == b"\n":
            body = body[1:]
        self.skip_lf = False
        start = 0
        while True:
            lf, cr = body.find(b"\n", start), body.find(b"\r", start)
            ends = [i for i in (lf, cr) if i >= 0]
            if not ends:
                break
            end = min(ends)
            self._line(body[start:end].decode("utf-8", "replace"))
            if body[end:end + 1] == b"\r":
                if end + 1 == len(body):
                    self.skip_lf = True
                elif body[end + 1:end + 2] == b"\n":
                    end += 1
            start = end + 1
        self.body = body[start:]
        if len(self.body) > self.MAX_LINE:
            raise FlowError("GET /events: a line over 1 MiB")

    def _line(self, line):
        if line == "":
            if self.data or self.event_name is not None:
                self.ready.append((self.event_id, self.event_name or "message", "\n".join(self.data)))
            if self.event_id is not None:
                self.last_event_id = self.event_id
            self.event_name, self.event_id, self.data = None, None, []
            return
        if line.startswith(":"):
            return  # a comment: the keep-alive
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.event_name = value
        elif field == "id":
            self.event_id = value

    def next_event(self, deadline):
        while not self.ready:
            self._dechunk()
            self._parse()
            if self.ready:
                break
            if self.ended:
                raise StreamEnded("GET /events: the stream ended")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout("no event before the deadline")
            self.sock.settimeout(remaining)
            self.raw += self._recv()
        return self.ready.pop(0)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class ChatCustomer(FastHttpUser):
    """One end user chatting with Nova, chat after chat."""

    wait_time = constant(0)
    # One greenlet per user: one connection is all its REST calls need.
    concurrency = 1
    network_timeout = 60.0
    connection_timeout = 10.0

    def on_start(self):
        number = next(_user_numbers)
        worker = getattr(self.environment.runner, "worker_index", None)
        self.identifier = f"{IDENTIFIER_PREFIX}-{number}" if not worker else f"{IDENTIFIER_PREFIX}-w{worker}-{number}"
        url = urlsplit(self.host)
        self.stream_host = url.hostname
        self.stream_port = url.port or (443 if url.scheme == "https" else 80)
        if url.scheme != "http":
            raise SystemExit("bench/locust: the event stream is read over plain HTTP (the sandbox on 127.0.0.1)")
        self.token = None
        self.last_event_id = None
        self.stream = None
        self.chat_id = None
        self.messages_sent = 0
        self.held = False
        self.sign_in()

    def on_stop(self):
        # The user was stopped, perhaps inside a request, whose connection is then lost to
        # the client's pool: the chat is ended on a connection of its own (3 seconds at
        # most, outside the statistics). A chat still left open is ended by the next run of
        # the same user (409 on start) or by the sandbox's chat timeout.
        self.close_stream()
        if self.chat_id is not None:
            request = urllib.request.Request(f"{self.host.rstrip('/')}/chats/{self.chat_id}/end", method="POST",
                                             headers={"Authorization": f"Bearer {self.token}"})
            try:
                urllib.request.urlopen(request, timeout=3).close()
            except (OSError, ValueError):
                pass
            self.chat_id = None

    # -- the wire API ----------------------------------------------------------------

    def call(self, method, path, name, body=None, expect=(200, 201), authenticated=True):
        """One request, its 429s waited out (Retry-After, at most 10 s, 5 times), a refused
        token renewed once, and an idempotent one (a GET, or a message with its
        client_message_id) sent once more when it got no answer (status 0: its connection
        closed, was reset or timed out). Returns (status, JSON body or None); a status
        outside `expect` is a failure in Locust's statistics and raises FlowError.

        The sandbox closes a keep-alive connection 10 s after its last answer, and a user
        waiting longer than that for a reply may send its next request as it closes.
        libcurl, under ccai, sends a request on a reused connection that died before any
        answer again on a new one, and the SDK tries an idempotent call again after no
        answer; this does the same, once, for what can be sent twice."""
        renewed = False
        resent = False
        idempotent = method == "GET" or (isinstance(body, dict) and "client_message_id" in body)
        for attempt in range(MAX_429_RETRIES + 2):
            headers = {"Authorization": f"Bearer {self.token}"} if authenticated else {}
            with self.client.request(method, path, name=name, json=body, headers=headers, catch_response=True) as response:
                status = response.status_code
                if status == 429 and attempt < MAX_429_RETRIES:
                    retry_after = _seconds(response.headers.get("Retry-After"), 1.0)
                    response.request_meta["name"] = f"{name} (429, retried)"
                    response.success()
                elif status == 401 and authenticated and not renewed:
                    response.request_meta["name"] = f"{name} (401, signed in again)"
                    response.success()
                    retry_after = None
                elif status == 0 and idempotent and not resent:
                    response.request_meta["name"] = f"{name} (no answer, sent again)"
                    response.success()
                    resent = True
                    continue
                elif status in expect:
                    response.success()
                    try:
                        return status, (response.json() if response.content else None)
                    except ValueError as error:
                        response.failure(f"not JSON: {error}")
                        raise FlowError(f"{method} {name}: not JSON") from error
                else:
                    text = (response.text or "")[:300] if status else str(response.error)
                    response.failure(f"{status}: {text}")
                    raise FlowError(f"{method} {name} answered {status}: {text}")
            if status == 429:
                gevent.sleep(min(retry_after, MAX_RETRY_AFTER))
            else:
                renewed = True
                self.sign_in()
        raise FlowError(f"{method} {name}: still 429 after {MAX_429_RETRIES} retries")

    def sign_in(self):
        jwt = sign_jwt({"identifier": self.identifier})
        _, answer = self.call("POST", "/auth/end_user", "/auth/end_user",
                              body={"company_key": COMPANY_KEY, "jwt": jwt}, expect=(200,), authenticated=False)
        self.token = answer["auth_token"]
        # A new end user has no events; one signing in again starts after its old ones.
        if self.last_event_id is None and answer.get("latest_event_id") is not None:
            self.last_event_id = str(answer["latest_event_id"])

    def open_stream(self):
        for attempt in range(MAX_429_RETRIES + 1):
            start = time.perf_counter()
            started_at = time.time()
            try:
                stream = EventStream(self.stream_host, self.stream_port, self.token, self.last_event_id)
            except StreamRefused as refused:
                self.report("GET", "/events" if refused.status != 429 else "/events (429, retried)", start,
                            started_at, None if refused.status == 429 else refused)
                if refused.status == 429 and attempt < MAX_429_RETRIES:
                    gevent.sleep(min(refused.retry_after or 1.0, MAX_RETRY_AFTER))
                    continue
                if refused.status == 401 and attempt == 0:
                    self.sign_in()
                    continue
                raise
            except (OSError, FlowError) as error:
                self.report("GET", "/events", start, started_at, error)
                raise
            self.report("GET", "/events", start, started_at)
            self.stream = stream
            return
        raise FlowError("GET /events: still refused")

    def close_stream(self):
        if self.stream is not None:
            self.last_event_id = self.stream.last_event_id
            self.stream.close()
            self.stream = None

    def report(self, request_type, name, start, started_at, exception=None, length=0):
        events.request.fire(request_type=request_type, name=name, response_time=(time.perf_counter() - start) * 1000,
                            response_length=length, exception=exception, context={}, start_time=started_at, url=None)

    def wait_for_answer(self, after_sequence, what):
        """Reads the stream until an agent's or virtual agent's message in this chat with a
        sequence after `after_sequence` (None: any); returns that message."""
        deadline = time.monotonic() + REPLY_TIMEOUT
        reconnections = 0
        while True:
            try:
                event_id, name, data = self.stream.next_event(deadline)
            except socket.timeout:
                raise FlowError(f"no {what} within {REPLY_TIMEOUT:g} s (chat {self.chat_id})") from None
            except (StreamEnded, OSError) as error:
                # Dropped (a client that did not read for 30 s, a restart): resume after the
                # last event read, as the SDK does; nothing is lost or repeated.
                reconnections += 1
                if reconnections > 3:
                    raise FlowError(f"GET /events: dropped {reconnections} times while waiting for {what}") from error
                self.close_stream()
                self.open_stream()
                continue
            if name == "chat_received":
                chat = json.loads(data)
                if chat.get("id") == self.chat_id and chat.get("status") == "ended":
                    raise FlowError(f"chat {self.chat_id} ended while waiting for {what} (ended_by {chat.get('ended_by')})")
            if name != "messages_received":
                continue
            for message in json.loads(data):
                if (message.get("chat_id") == self.chat_id
                        and (message.get("sender") or {}).get("type") in ANSWERING
                        and (after_sequence is None or message.get("sequence", 0) > after_sequence)):
                    return message

    # -- the flow -----------------------------------------------------------------------

    def start_chat(self):
        status, chat = self.call("POST", "/chats", "/chats", body={"menu_id": MENU_ID}, expect=(201, 409))
        if status == 409:
            # A chat left in progress (an earlier run stopped mid-chat): end it, start again.
            _, current = self.call("GET", "/chats/current", "/chats/current", expect=(200,))
            self.call("POST", f"/chats/{current['id']}/end", "/chats/{id}/end", expect=(200, 409))
            _, chat = self.call("POST", "/chats", "/chats", body={"menu_id": MENU_ID}, expect=(201,))
        return chat

    @task
    def chat(self):
        iteration_start = time.perf_counter()
        iteration_started_at = time.time()
        try:
            chat = self.start_chat()
            self.chat_id = chat["id"]
            if self.stream is None:
                self.open_stream()
            try:
                greeting = self.wait_for_answer(None, "greeting")
            except FlowError as error:
                self.report("CHAT", "chat_first_response", iteration_start, iteration_started_at, error)
                raise
            self.report("CHAT", "chat_first_response", iteration_start, iteration_started_at)
            last_sequence = greeting.get("sequence", 0)
            for text, expected in QUESTIONS:
                start = time.perf_counter()
                started_at = time.time()
                self.messages_sent += 1
                _, sent = self.call("POST", f"/chats/{self.chat_id}/messages", "/chats/{id}/messages",
                                    body={"text": text, "client_message_id": f"{self.identifier}-{self.messages_sent}"},
                                    expect=(200, 201))
                try:
                    reply = self.wait_for_answer(max(sent.get("sequence", 0), last_sequence), "reply")
                except FlowError as error:
                    self.report("CHAT", "message_round_trip", start, started_at, error)
                    raise
                last_sequence = reply.get("sequence", last_sequence)
                if reply.get("text") != expected:
                    error = FlowError(f"Nova answered {reply.get('text')!r} to {text!r}")
                    self.report("CHAT", "message_round_trip", start, started_at, error)
                    raise error
                self.report("CHAT", "message_round_trip", start, started_at)
                if HOLD > 0 and not self.held:
                    self.held = True
                    self.report("CHAT", "chat_held", iteration_start, iteration_started_at)
                    gevent.sleep(HOLD)
            self.call("POST", f"/chats/{self.chat_id}/end", "/chats/{id}/end", expect=(200,))
            self.chat_id = None
            self.report("CHAT", "chat_iteration", iteration_start, iteration_started_at)
        except (FlowError, OSError, KeyError, TypeError, ValueError) as error:
            # The failing step is in the statistics already (a request's failure, or the
            # round trip's); the iteration fails too, and the next one starts afresh: a new
            # stream, and this chat ended if it was left open.
            self.report("CHAT", "chat_iteration", iteration_start, iteration_started_at, error)
            self.close_stream()
            if self.chat_id is not None:
                try:
                    self.call("POST", f"/chats/{self.chat_id}/end", "/chats/{id}/end", expect=(200, 409))
                except (FlowError, OSError):
                    pass
                self.chat_id = None
            gevent.sleep(1)  # a failing flow retries once a second, not in a busy loop
        finally:
            if not STREAM_PER_USER:
                self.close_stream()


def _seconds(value, default):
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return default
