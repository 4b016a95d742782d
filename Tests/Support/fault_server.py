#!/usr/bin/env python3
"""Programmable HTTP fault server for the tdl test suite.

Usage: python3 fault_server.py [--port 0] [--host 127.0.0.1]

Binds, prints exactly one line ``PORT <n>`` to stdout, then serves forever
(HTTP/1.1, keep-alive, one thread per connection).  Python 3.11 stdlib only.

Endpoints
---------
GET|HEAD /file/<name>?size=N&seed=S
    N bytes (default 1048576, seed 0) of deterministic content.  Block k
    (65536 bytes) is sha256(f"{seed}:{k}").digest() repeated; the body is the
    concatenation of blocks truncated to N.
GET /sha256/<name>?size=N&seed=S[&gzip=1]
    Hex SHA-256 of that content (with gzip=1: of its gzip form) (text/plain).
GET /redirect/<n>/<rest>?q   302 -> /redirect/<n-1>/<rest>?q ... -> /<rest>?q
GET /loop                    302 -> /loop forever
GET /abs-redirect?to=URL     302 -> URL
GET /auth/basic/<user>/<pass>/<rest>?...
    Requires HTTP Basic auth (401 + WWW-Authenticate otherwise), then serves
    <rest>: file/<name>?... like /file, or abs-redirect?to=URL.
GET /auth/digest/<user>/<pass>/<rest>?...
    The same behind RFC 7616 Digest auth (MD5, qop=auth).
GET /stats                   JSON counters (requests to /stats, /reset and
                             the throttle switches are not counted); per path: requests, body_bytes,
                             authorization (requests that carried one) and
                             headers (lowercase name -> requests that carried
                             it), cookies (the cookie names sent); proxied: requests relayed as a proxy;
                             max_connections / max_in_flight: the most TCP
                             connections open / /file answers being sent at once
GET http://host:port/path    (absolute URI: a forward-proxy request) relayed
                             to that server and back, counted as proxied
POST|GET /reset              zero counters and fail_first counts, and throttle again
GET /unthrottle              ignore rate= from now on, answers being sent included,
                             until /throttle or /reset
GET /throttle                obey rate= again

Knobs on /file (query parameters, combinable)
---------------------------------------------
size, seed          content selection
etag=V              ETag "V" (default "<seed>-<size>"); etag=W/x -> W/"x";
                    etag=none -> no ETag
lastmod=none|DATE   drop / override Last-Modified (default fixed date)
ctype=T             Content-Type (default application/octet-stream)
cd=V                Content-Disposition: V, written verbatim as latin-1 bytes
no_range=1          ignore Range, always 200 with the full body
no_accept_ranges=1  no Accept-Ranges header (with no_range=1: python3 -m http.server)
chunked=1           Transfer-Encoding: chunked, no Content-Length, Range ignored
gzip=1              the body is the content gzip-compressed, sent with
                    Content-Encoding: gzip whatever the request asked (as
                    Apache's AddEncoding x-gzip .gz does); size, ranges and
                    ETag are those of the compressed bytes
drop_after=N        after N body bytes, shutdown+close the socket
stall_after=N       after N body bytes sleep `stall` seconds (default 30)
stall=SECS
rate=BPS            throttle the body to BPS bytes/second
fail_first=K        first K requests for this exact path?query answer
fail_code=C         C (default 500) with a small body
retry_after=S       adds Retry-After: S to fail_first / status answers
status=C            always answer C with a small text body
need_cookie=N=V     403 unless the Cookie header holds the pair N=V
need_referer=R      403 unless Referer is exactly R
need_agent=A        403 unless User-Agent contains A
set_cookie=N=V      adds Set-Cookie: N=V; Path=/
swap_after=K        after the first K requests for this exact path?query the
                    file is another version: seed "<seed>.v2", ETag
                    "<seed>.v2-<size>", a later Last-Modified (same size)
ignore_if_range=1   Range is honoured whatever If-Range says (a server that
                    answers a changed file's range with 206)
total=T[,T2,...]    every answer is a 206 (the whole file without Range) whose
                    Content-Range total is written as T verbatim (-1, -100,
                    abc, 50); the k-th request for this exact
                    path?query takes the k-th item, the last one repeating
halve=1             each answer sends half of what it was asked for, then
                    stalls `stall` seconds (a trickle that never completes)

Range: single ``bytes=a-b`` / ``bytes=a-`` / ``bytes=-n`` -> 206 with
Content-Range; unsatisfiable -> 416 with ``Content-Range: bytes */N``.
Multi-range or malformed Range headers are ignored (200).  If-Range is
honoured: an entity tag must strongly match the current (strong) ETag, a date
must equal the Last-Modified string exactly; otherwise Range is ignored.
"""

import argparse
import base64
import collections
import gzip
import hashlib
import http.client
import http.server
import json
import re
import secrets
import select
import signal
import socket
import sys
import threading
import time
import urllib.parse

BLOCK = 65536
DEFAULT_SIZE = 1048576
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
DISCONNECT_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


# --------------------------------------------------------------------------
# Content generation
# --------------------------------------------------------------------------

class BlockCache:
    """LRU cache of generated 64 KiB blocks keyed by (seed, k)."""

    def __init__(self, capacity=1024):
        self.capacity = capacity
        self.lock = threading.Lock()
        self.data = collections.OrderedDict()

    def get(self, seed, k):
        key = (seed, k)
        with self.lock:
            block = self.data.get(key)
            if block is not None:
                self.data.move_to_end(key)
                return block
        digest = hashlib.sha256(f"{seed}:{k}".encode()).digest()
        block = digest * (BLOCK // len(digest))
        with self.lock:
            self.data[key] = block
            self.data.move_to_end(key)
            while len(self.data) > self.capacity:
                self.data.popitem(last=False)
        return block


BLOCKS = BlockCache()
_sha_cache = {}
_sha_lock = threading.Lock()


def iter_content(seed, start, end):
    """Yield memoryview slices covering content bytes [start, end)."""
    pos = start
    while pos < end:
        k, off = divmod(pos, BLOCK)
        block = BLOCKS.get(seed, k)
        n = min(BLOCK - off, end - pos)
        yield memoryview(block)[off:off + n]
        pos += n


_gzip_cache = {}


def gzipped(seed, size):
    """The content's gzip form (fixed mtime, so it is the same on every request)."""
    key = (seed, size)
    with _sha_lock:
        if key not in _gzip_cache:
            _gzip_cache[key] = gzip.compress(b"".join(iter_content(seed, 0, size)), mtime=0)
        return _gzip_cache[key]


def iter_blob(blob, start, end):
    """Yield slices of ``blob`` covering [start, end), a block at a time."""
    for pos in range(start, end, BLOCK):
        yield memoryview(blob)[pos:min(end, pos + BLOCK)]


def content_sha256(seed, size):
    key = (seed, size)
    with _sha_lock:
        if key in _sha_cache:
            return _sha_cache[key]
    h = hashlib.sha256()
    for piece in iter_content(seed, 0, size):
        h.update(piece)
    digest = h.hexdigest()
    with _sha_lock:
        _sha_cache[key] = digest
    return digest


# --------------------------------------------------------------------------
# Counters
# --------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.requests = 0
            self.body_bytes = 0
            self.proxied = 0
            self.per_path = {}
            self.fail_counts = {}
            self.request_numbers = {}
            self.connections = getattr(self, "connections", 0)
            self.max_connections = self.connections
            self.in_flight = getattr(self, "in_flight", 0)
            self.max_in_flight = self.in_flight

    def connection_opened(self, delta):
        with self.lock:
            self.connections += delta
            self.max_connections = max(self.max_connections, self.connections)

    def answer_sending(self, delta):
        with self.lock:
            self.in_flight += delta
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _entry(self, path):
        e = self.per_path.get(path)
        if e is None:
            e = self.per_path[path] = {"requests": 0, "body_bytes": 0, "authorization": 0, "headers": {}, "cookies": []}
        return e

    def count_request(self, path, authorized, header_names=(), cookie_names=()):
        with self.lock:
            self.requests += 1
            entry = self._entry(path)
            entry["requests"] += 1
            if authorized:
                entry["authorization"] += 1
            for name in set(header_names):
                entry["headers"][name] = entry["headers"].get(name, 0) + 1
            for name in cookie_names:
                if name not in entry["cookies"]:
                    entry["cookies"].append(name)

    def count_proxied(self):
        with self.lock:
            self.proxied += 1

    def count_body(self, path, n):
        with self.lock:
            self.body_bytes += n
            self._entry(path)["body_bytes"] += n

    def take_failure(self, key, limit):
        """Return True if this request (for key) is among the first `limit`."""
        with self.lock:
            seen = self.fail_counts.get(key, 0)
            self.fail_counts[key] = seen + 1
            return seen < limit

    def request_number(self, key):
        """1 for the first request for key (path?query), 2 for the next, ..."""
        with self.lock:
            n = self.request_numbers.get(key, 0) + 1
            self.request_numbers[key] = n
            return n

    def snapshot(self):
        with self.lock:
            return {
                "requests": self.requests,
                "body_bytes": self.body_bytes,
                "proxied": self.proxied,
                "max_connections": self.max_connections,
                "max_in_flight": self.max_in_flight,
                "per_path": {p: dict(v, headers=dict(v["headers"]), cookies=list(v["cookies"])) for p, v in self.per_path.items()},
            }


STATS = Stats()
# Set by /unthrottle: rate= is ignored (a test's last run need not wait for the throttle).
UNTHROTTLED = threading.Event()


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

class BadRequest(Exception):
    pass


class Dropped(Exception):
    """Raised after the connection was deliberately torn down."""


def parse_query(query):
    # latin-1 so every percent-encoded byte maps to exactly one char and
    # round-trips verbatim when written back into a header.
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, encoding="latin-1")
    return {k: v for k, v in pairs}  # last value wins


def int_param(q, name, default=None):
    v = q.get(name)
    if v is None or v == "":
        return default
    try:
        return int(v)
    except ValueError:
        raise BadRequest(f"bad integer for {name}: {v!r}")


def float_param(q, name, default=None):
    v = q.get(name)
    if v is None or v == "":
        return default
    try:
        return float(v)
    except ValueError:
        raise BadRequest(f"bad number for {name}: {v!r}")


def parse_range(value, size):
    """Return (start, end_inclusive), 'unsatisfiable', or None (ignore)."""
    value = value.strip()
    if not value.lower().startswith("bytes="):
        return None
    spec = value[6:].strip()
    if "," in spec or "-" not in spec:
        return None
    first, last = (s.strip() for s in spec.split("-", 1))
    try:
        if first == "":
            if not last.isdigit():
                return None
            n = int(last)
            if n == 0 or size == 0:
                return "unsatisfiable"
            return (max(0, size - n), size - 1)
        if not first.isdigit() or (last and not last.isdigit()):
            return None
        a = int(first)
        b = int(last) if last else size - 1
    except ValueError:
        return None
    if last and b < a:
        return None  # syntactically invalid -> ignore
    if a >= size:
        return "unsatisfiable"
    return (a, min(b, size - 1))


HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization",
              "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"}

DIGEST_REALM = "tdl"
DIGEST_OPAQUE = secrets.token_hex(8)
_nonces = set()
_nonce_lock = threading.Lock()


def new_nonce():
    nonce = secrets.token_hex(16)
    with _nonce_lock:
        _nonces.add(nonce)
    return nonce


def basic_matches(header, user, password):
    if not header.lower().startswith("basic "):
        return False
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8", "replace")
    except ValueError:  # binascii.Error is a ValueError
        return False
    return decoded == f"{user}:{password}"


def md5_hex(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def digest_matches(header, method, request_uri, user, password):
    """RFC 7616 with MD5 and qop=auth: the response must be computed from a nonce we issued."""
    if not header.lower().startswith("digest "):
        return False
    fields = {k.lower(): quoted or bare
              for k, quoted, bare in re.findall(r'(\w+)=(?:"([^"]*)"|([^\s,]*))', header[7:])}
    with _nonce_lock:
        known = fields.get("nonce") in _nonces
    if (not known or fields.get("username") != user or fields.get("realm") != DIGEST_REALM
            or fields.get("uri") != request_uri or fields.get("qop") != "auth"
            or fields.get("algorithm", "MD5").upper() != "MD5"):
        return False
    ha1 = md5_hex(f"{user}:{DIGEST_REALM}:{password}")
    ha2 = md5_hex(f"{method}:{request_uri}")
    expected = md5_hex(f"{ha1}:{fields['nonce']}:{fields.get('nc', '')}:{fields.get('cnonce', '')}:auth:{ha2}")
    return secrets.compare_digest(expected, fields.get("response", ""))


# --------------------------------------------------------------------------
# Handler
# --------------------------------------------------------------------------

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tdl-fault-server/1.0"
    sys_version = ""

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):  # quiet
        pass

    def handle(self):
        STATS.connection_opened(1)
        try:
            super().handle()
        except DISCONNECT_ERRORS:
            pass
        except Dropped:
            pass
        except OSError:
            # e.g. EBADF after a deliberate drop, or other socket teardown.
            pass
        finally:
            STATS.connection_opened(-1)

    # -- plumbing ---------------------------------------------------------

    def _discard_request_body(self):
        length = self.headers.get("Content-Length")
        if length:
            try:
                remaining = int(length)
            except ValueError:
                return
            while remaining > 0:
                chunk = self.rfile.read(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)

    def _simple(self, code, text="", headers=(), ctype="text/plain; charset=utf-8"):
        body = text.encode("utf-8")
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _redirect(self, location):
        self._simple(302, f"redirect to {location}\n", headers=[("Location", location)])

    def do_HEAD(self):
        self._dispatch()

    def do_GET(self):
        self._dispatch()

    def do_POST(self):
        self._dispatch()

    # -- routing ----------------------------------------------------------

    def _dispatch(self):
        self._discard_request_body()
        if self.path.lower().startswith("http://"):
            return self._proxy()
        parts = urllib.parse.urlsplit(self.path)
        path, query = parts.path, parts.query
        try:
            q = parse_query(query)
            if path == "/stats":
                body = json.dumps(STATS.snapshot())
                return self._simple(200, body, ctype="application/json")
            if path == "/reset":
                STATS.reset()
                UNTHROTTLED.clear()
                return self._simple(200, "ok\n")
            if path == "/unthrottle":
                UNTHROTTLED.set()
                return self._simple(200, "ok\n")
            if path == "/throttle":
                UNTHROTTLED.clear()
                return self._simple(200, "ok\n")

            cookies = [c.split("=", 1)[0].strip() for c in self.headers.get("Cookie", "").split(";") if c.strip()]
            STATS.count_request(path, "Authorization" in self.headers, [k.lower() for k in self.headers.keys()], cookies)
            key = path + ("?" + query if query else "")

            if self.command == "POST":
                return self._simple(405, "method not allowed\n", headers=[("Allow", "GET, HEAD")])

            if path.startswith("/file/") and len(path) > len("/file/"):
                STATS.answer_sending(1)
                try:
                    return self._serve_file(path, key, q)
                finally:
                    STATS.answer_sending(-1)
            if path.startswith("/sha256/") and len(path) > len("/sha256/"):
                size = int_param(q, "size", DEFAULT_SIZE)
                seed = q.get("seed", "0") or "0"
                if size < 0:
                    raise BadRequest("negative size")
                if q.get("gzip") == "1":
                    return self._simple(200, hashlib.sha256(gzipped(seed, size)).hexdigest() + "\n")
                return self._simple(200, content_sha256(seed, size) + "\n")
            if path.startswith("/redirect/"):
                return self._serve_redirect(path, query)
            if path == "/loop":
                return self._redirect("/loop")
            if path == "/abs-redirect":
                to = q.get("to")
                if not to:
                    raise BadRequest("missing to=")
                return self._redirect(to)
            if path.startswith("/auth/basic/") or path.startswith("/auth/digest/"):
                return self._serve_auth(path, key, q)
            return self._simple(404, "not found\n")
        except BadRequest as e:
            return self._simple(400, f"bad request: {e}\n")

    # -- forward proxy ----------------------------------------------------

    def _proxy(self):
        """Relays an absolute-URI request (plain http only) to its server and back."""
        STATS.count_proxied()
        target = urllib.parse.urlsplit(self.path)
        upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        try:
            upstream.request(self.command, (target.path or "/") + ("?" + target.query if target.query else ""),
                             headers=headers)
            answer = upstream.getresponse()
        except OSError as e:
            upstream.close()
            return self._simple(502, f"proxy: {e}\n")
        try:
            self.send_response(answer.status, answer.reason)
            for k, v in answer.getheaders():
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            if answer.getheader("Content-Length") is None:
                # Chunked upstream: the end of this answer is marked by closing.
                self.close_connection = True
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command == "HEAD":
                return
            while True:
                chunk = answer.read(65536)
                if not chunk:
                    break
                self.wfile.write(chunk)
        finally:
            upstream.close()

    def _serve_redirect(self, path, query):
        rest = path[len("/redirect/"):]
        n_str, sep, tail = rest.partition("/")
        if not n_str.isdigit():
            return self._simple(404, "not found\n")
        n = int(n_str)
        suffix = "?" + query if query else ""
        if n <= 0:
            return self._redirect("/" + tail + suffix)
        return self._redirect(f"/redirect/{n - 1}/{tail}{suffix}")

    def _serve_auth(self, path, key, q):
        segs = path.split("/", 5)  # ['', 'auth', scheme, user, pass, rest]
        if len(segs) < 6:
            return self._simple(404, "not found\n")
        scheme, rest = segs[2], segs[5]
        user = urllib.parse.unquote(segs[3])
        password = urllib.parse.unquote(segs[4])
        got = self.headers.get("Authorization", "")
        if scheme == "basic":
            ok = basic_matches(got, user, password)
            challenge = 'Basic realm="tdl"'
        else:
            ok = digest_matches(got, self.command, self.path, user, password)
            challenge = (f'Digest realm="{DIGEST_REALM}", qop="auth", algorithm=MD5, '
                         f'nonce="{new_nonce()}", opaque="{DIGEST_OPAQUE}"')
        if not ok:
            return self._simple(401, "unauthorized\n", headers=[("WWW-Authenticate", challenge)])
        if rest.startswith("file/") and len(rest) > len("file/"):
            return self._serve_file(path, key, q)
        if rest == "abs-redirect" and q.get("to"):
            return self._redirect(q["to"])
        return self._simple(404, "not found\n")

    # -- /file ------------------------------------------------------------

    def _refusal(self, q):
        """Why a request lacks what need_cookie / need_referer / need_agent ask; None if not."""
        cookie = q.get("need_cookie")
        if cookie is not None:
            pairs = [p.strip() for p in self.headers.get("Cookie", "").split(";")]
            if cookie not in pairs:
                return "cookie"
        referer = q.get("need_referer")
        if referer is not None and self.headers.get("Referer") != referer:
            return "referer"
        agent = q.get("need_agent")
        if agent is not None and agent not in self.headers.get("User-Agent", ""):
            return "user agent"
        return None

    def _serve_file(self, path, key, q):
        refused = self._refusal(q)
        if refused:
            return self._simple(403, f"forbidden: no {refused}\n")
        retry_after = q.get("retry_after")
        extra = [("Retry-After", retry_after)] if retry_after else []

        status = int_param(q, "status")
        if status is not None:
            return self._simple(status, f"forced status {status}\n", headers=extra)

        fail_first = int_param(q, "fail_first", 0)
        if fail_first > 0 and STATS.take_failure(key, fail_first):
            code = int_param(q, "fail_code", 500)
            return self._simple(code, f"injected failure {code}\n", headers=extra)

        size = int_param(q, "size", DEFAULT_SIZE)
        if size < 0:
            raise BadRequest("negative size")
        seed = q.get("seed", "0") or "0"
        number = STATS.request_number(key)
        swap_after = int_param(q, "swap_after")
        swapped = swap_after is not None and number > swap_after
        if swapped:
            seed = seed + ".v2"
        blob = gzipped(seed, size) if q.get("gzip") == "1" else None
        if blob is not None:
            size = len(blob)

        etag_param = q.get("etag")
        if etag_param is None:
            etag = f'"{seed}-{size}"'
        elif etag_param == "none":
            etag = None
        elif etag_param.startswith("W/"):
            etag = f'W/"{etag_param[2:]}"'
        else:
            etag = f'"{etag_param}"'

        lm_param = q.get("lastmod")
        if lm_param is None:
            last_modified = "Thu, 22 Oct 2015 07:28:00 GMT" if swapped else LAST_MODIFIED
        elif lm_param == "none":
            last_modified = None
        else:
            last_modified = lm_param

        chunked = q.get("chunked") == "1"
        no_range = q.get("no_range") == "1"

        start, end = 0, size  # [start, end)
        code = 200
        range_header = self.headers.get("Range")
        if range_header is not None and not chunked and not no_range:
            if_range = self.headers.get("If-Range")
            use_range = True
            if if_range is not None and q.get("ignore_if_range") != "1":
                ir = if_range.strip()
                if ir.startswith('"') or ir.startswith("W/"):
                    # Strong comparison: weak tags never match.
                    use_range = (etag is not None and not etag.startswith("W/")
                                 and not ir.startswith("W/") and ir == etag)
                else:
                    use_range = last_modified is not None and ir == last_modified
            if use_range:
                r = parse_range(range_header, size)
                if r == "unsatisfiable":
                    hdrs = [("Content-Range", f"bytes */{size}"), ("Accept-Ranges", "bytes")]
                    if etag:
                        hdrs.append(("ETag", etag))
                    return self._simple(416, "range not satisfiable\n", headers=hdrs)
                if r is not None:
                    start, end = r[0], r[1] + 1
                    code = 206
        if q.get("total") and not chunked:
            code = 206  # even to a request without Range, as broken servers do

        self.send_response(code)
        self.send_header("Content-Type", q.get("ctype") or "application/octet-stream")
        if q.get("no_accept_ranges") != "1":
            self.send_header("Accept-Ranges", "bytes")
        if etag:
            self.send_header("ETag", etag)
        if last_modified:
            self.send_header("Last-Modified", last_modified)
        if q.get("set_cookie"):
            self.send_header("Set-Cookie", q["set_cookie"] + "; Path=/")
        cd = q.get("cd")
        if cd is not None:
            # send_header encodes with latin-1: bytes reach the client verbatim.
            self.send_header("Content-Disposition", cd)
        if code == 206:
            totals = q.get("total")
            total = str(size)
            if totals:
                items = totals.split(",")
                total = items[min(number, len(items)) - 1]
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{total}")
        if blob is not None:
            self.send_header("Content-Encoding", "gzip")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(end - start))
        self.end_headers()

        if self.command == "HEAD":
            return

        if blob is not None:
            source = lambda a, b: iter_blob(blob, a, b)
        else:
            source = lambda a, b: iter_content(seed, a, b)
        self._send_body(path, q, source, start, end, chunked)

    def _drop(self):
        self.close_connection = True
        conn = self.connection
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            conn.close()
        except OSError:
            pass
        raise Dropped()

    def _pause(self, seconds):
        """Sleeps, but notices at once a client that closed meanwhile (so the counts of
        connections and answers at once follow the client, not the next write)."""
        ready, _, _ = select.select([self.connection], [], [], seconds)
        if ready:
            try:
                closed = self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                closed = True
            if closed:
                self._drop()
            time.sleep(max(0.0, seconds))  # a pipelined request waits its turn

    def _send_body(self, path, q, source, start, end, chunked):
        drop_after = int_param(q, "drop_after")
        stall_after = int_param(q, "stall_after")
        if q.get("halve") == "1":
            stall_after = (end - start) // 2
        stall = float_param(q, "stall", 30.0)
        rate = float_param(q, "rate")
        if rate is not None and rate <= 0:
            rate = None
        total = end - start
        write = self.wfile.write

        # Largest piece written in one go while throttling (~50 slices/sec).
        rate_piece = max(1, min(BLOCK, int(rate // 50))) if rate else None

        sent = 0
        stalled = False
        t0 = time.monotonic()

        def checkpoints():
            nonlocal stalled
            if stall_after is not None and not stalled and sent >= stall_after:
                stalled = True
                time.sleep(stall)
            if drop_after is not None and sent >= drop_after:
                if sent < total or (chunked and sent == total):
                    self._drop()

        checkpoints()
        pos = start
        while pos < end:
            limit = end - pos
            if drop_after is not None and sent < drop_after:
                limit = min(limit, drop_after - sent)
            if stall_after is not None and not stalled and sent < stall_after:
                limit = min(limit, stall_after - sent)
            if rate_piece is not None:
                limit = min(limit, rate_piece)
            for piece in source(pos, pos + limit):
                if rate is not None and not UNTHROTTLED.is_set():
                    due = t0 + (sent + len(piece)) / rate
                    delay = due - time.monotonic()
                    if delay > 0:
                        self._pause(delay)
                if chunked:
                    write(b"%x\r\n" % len(piece))
                    write(piece)
                    write(b"\r\n")
                else:
                    write(piece)
                n = len(piece)
                sent += n
                pos += n
                STATS.count_body(path, n)
            checkpoints()
        if chunked:
            write(b"0\r\n\r\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, Dropped)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description="tdl programmable HTTP fault server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args()

    server = Server((args.host, args.port), Handler)

    def on_term(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)

    sys.stdout.write(f"PORT {server.server_address[1]}\n")
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
