"""``ten play --web``: play against agents in the browser.

The game runs here; a small server on 127.0.0.1 (``--port``, default 8000; only
this machine can reach it) serves the page of :mod:`train.view` with the game
so far and buttons for your legal moves (prices beside the buys). Each move is
sent back, played, and answered by the agents' moves, which the page then shows
in words. What the server sends never holds the deck's seed or order while the
game runs: they come with the record once the game is over. Step back through
the game with the page's buttons or arrow keys at any time. Ctrl-C (or a SIGTERM)
stops the server; with ``--save`` the record is written then (and whenever the
game ends).

The server answers ``GET /`` (the page), ``GET /record`` (the record so far, as
JSON) and ``POST /act`` with ``{"action": NAME, "at": STEPS}`` (the record after your
move and the agents' replies, or status 400 with ``{"error": ...}`` saying why the move
was refused). ``at``, which the page always sends, is the number of steps of the record
the move was chosen from: a move chosen from an older record (a double click, a second
tab) is refused with 409 and the record as it is, not played on a position nobody saw.
A move must come as ``Content-Type: application/json`` of at most 4 KB (415 and 400
otherwise), and every request must name the host ``127.0.0.1:PORT`` or
``localhost:PORT`` (403 otherwise), and a move that names its ``Origin`` must come from
that address: another site's page, even one whose name points here, can neither read
the game nor move in it, nor show it in a frame (``X-Frame-Options: DENY``). A browser
that goes away before its answer is written is no error.
"""

from __future__ import annotations

import errno
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from agents.base import AgentFailed
from ten_env import Rules
from ten_env.record import Recorder, save_record

from .record import agent_move
from .view import page

if TYPE_CHECKING:
    import socket
    from pathlib import Path
    from types import FrameType

DEFAULT_PORT = 8000
MAX_BODY = 4096  # bytes: a move is {"action": NAME}
REFUSED = object()  # what a request that is not a move gives instead of one


class Stale(ValueError):
    """A move chosen from an older record than the game's (a double click); ``record``: the game's now."""

    def __init__(self, message: str, record: dict):
        super().__init__(message)
        self.record = record


class _Server(ThreadingHTTPServer):
    web: "WebGame"  # the game it serves, set by serve()

    @property
    def port(self) -> int:
        return self.server_address[1]  # an AF_INET server's address is (host, port)

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        """A browser that closed or reloaded before its answer was written is not an error to print."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class WebGame:
    """One game between a person in seat ``you`` and agents (``players[seat]``), recorded."""

    def __init__(self, rules: Rules, players: dict, names: list[str], you: int = 0, seed: int | None = None,
                 save: str | Path | None = None):
        self.rec = Recorder(rules, names, seed=seed)
        self.players, self.you, self.save = players, you, save
        self.lock = threading.Lock()  # the server answers requests on threads; one move at a time
        self.failed: str | None = None  # what stopped the game: an agent's error, its seat's turn forever
        self._agents_move()

    def _agents_move(self) -> None:
        game = self.rec.game
        while not game.is_over and game.current_player != self.you:
            agent_move(self.rec, self.players[game.current_player])
        if game.is_over and self.save:
            try:
                save_record(self.rec.to_dict(), self.save)
            except ValueError as exc:  # the move was played: the page shows the end, the terminal says why
                print(f"ten: warning: the game is over but not saved: {exc}; it is tried again when the server "
                      f"stops", file=sys.stderr, flush=True)

    def act(self, action: object, at: object = None) -> dict:
        """Play the person's ``action`` (a name) and the agents' replies; the record. ``ValueError``
        saying why when it is not one of the person's moves now; :class:`Stale` when ``at`` (the
        number of steps of the record the move was chosen from) is not the record's now."""
        with self.lock:
            game = self.rec.game
            if at is not None:
                if isinstance(at, bool) or not isinstance(at, int):
                    raise ValueError(f"'at' must be the number of steps the move was chosen after, got {at!r}")
                if at != len(self.rec.steps):
                    raise Stale(f"this move was chosen after step {at}, and the game has moved on to step "
                                f"{len(self.rec.steps)}: it is not played", self.rec.to_dict(public=True))
            if game.is_over:
                raise ValueError("the game is over")
            if self.failed is not None:  # the turn is an agent's, which cannot move: none is the person's
                raise ValueError(f"the game cannot go on: {self.failed}")
            legal = game.legal_action_names()
            if not isinstance(action, str) or action not in legal:
                raise ValueError(f"{action!r} is not one of your moves now; legal: {', '.join(legal)}")
            self.rec.act(action)
            try:
                self._agents_move()
            except AgentFailed as exc:
                self.failed = str(exc)
                print(f"ten: error: {exc}", file=sys.stderr, flush=True)
                raise
            return self.rec.to_dict(public=True)

    def record(self, public: bool = True) -> dict:
        """The record so far: by default as the page may show it, without the seed or the
        deck order until the game is over (:meth:`Recorder.to_dict`); the whole of it, to save,
        with ``public=False``."""
        with self.lock:
            return self.rec.to_dict(public=public)


def make_server(port: int) -> _Server:
    """A server on 127.0.0.1:``port`` (0: any free port) for the game set as its ``web``
    attribute (a :class:`WebGame`); ``ValueError`` if the port is taken. Made before the
    game, so that a port in use is refused before any agent plays."""

    class Handler(BaseHTTPRequestHandler):
        server: _Server
        timeout = 10  # seconds: a request that stops halfway (a body shorter than it said) is dropped

        def log_message(self, *args: Any) -> None:  # the terminal shows the game's address, not every request
            pass

        def _send(self, status: int, body: bytes, kind: str, allow: str | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Frame-Options", "DENY")  # no other site may show the game in a frame
            self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
            if allow is not None:
                self.send_header("Allow", allow)
            self.end_headers()
            if self.command != "HEAD":  # a HEAD answer is the headers alone
                self.wfile.write(body)

        def _json(self, status: int, data: dict, allow: str | None = None) -> None:
            self._send(status, json.dumps(data).encode(), "application/json", allow)

        def _own_hosts(self) -> list[str]:
            """The names a browser gives this server as its host: 127.0.0.1 or localhost and this port
            (without it on port 80, which browsers leave out)."""
            port = self.server.port
            return [f"127.0.0.1:{port}", f"localhost:{port}"] + (["127.0.0.1", "localhost"] if port == 80 else [])

        def _host_ok(self) -> bool:
            """Whether the request names this server as the browser reached it (:meth:`_own_hosts`).
            Refused otherwise (403), so that a page of another site whose name is made to point
            here (DNS rebinding) can neither read the game nor move."""
            port = self.server.port
            if self.headers.get("Host", "").strip().lower() in self._own_hosts():
                return True
            self._json(403, {"error": f"this game answers only at http://127.0.0.1:{port}/ "
                                      f"(or localhost:{port}); the request named the host "
                                      f"{self.headers.get('Host')!r}"})
            return False

        def do_GET(self) -> None:
            web = self.server.web
            if not self._host_ok():
                return
            path = self.path.partition("?")[0]  # a query string (a bookmark, a cache-buster) asks for the same
            if path in ("/", "/index.html"):
                self._send(200, page(web.record(), live={"you": web.you}).encode(), "text/html; charset=utf-8")
            elif path == "/record":
                self._json(200, web.record())
            elif path == "/act":
                self._not_allowed()
            else:
                self._json(404, {"error": f"nothing at {self.path}: the game is at /"})

        def _not_allowed(self) -> None:
            """405, in JSON like every other refusal (http.server's own answer is a 501 page)."""
            self._json(405, {"error": f"{self.command} {self.path}: read the game with GET / or GET /record, "
                                      f"and POST a move to /act"},
                       allow="POST" if self.path.partition("?")[0] == "/act" else "GET, HEAD")

        do_HEAD = do_GET  # the same answer's headers (_send leaves out the body), as HTTP asks of a server
        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed

        def _move(self) -> Any:
            """The move posted: its ``action``, or ``REFUSED`` after answering why the request is refused."""
            if self.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
                self._json(415, {"error": f"send a move with Content-Type: application/json, got "
                                          f"{self.headers.get('Content-Type')!r}"})
                return REFUSED
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._json(400, {"error": f"a move needs a Content-Length of 0 to {MAX_BODY} bytes, got "
                                          f"{self.headers.get('Content-Length')!r}"})
                return REFUSED
            try:
                body = json.loads(self.rfile.read(length))
            except (ValueError, RecursionError, OSError):  # not JSON (nor UTF-8), too deep, or never sent
                body = None
            if not isinstance(body, dict) or "action" not in body:
                self._json(400, {"error": 'send a move as JSON: {"action": NAME} (and "at": the number of steps '
                                          'it was chosen after)'})
                return REFUSED
            return body["action"], body.get("at")

        def _origin_ok(self) -> bool:
            """Whether a move that names its origin comes from this server's own page (403 otherwise)."""
            origin = self.headers.get("Origin")
            if origin is None or origin.strip().lower() in [f"http://{host}" for host in self._own_hosts()]:
                return True
            self._json(403, {"error": f"moves come only from the game's own page at "
                                      f"http://127.0.0.1:{self.server.port}/; "
                                      f"this one came from {origin!r}"})
            return False

        def do_POST(self) -> None:
            web = self.server.web
            if not self._host_ok():
                return
            if self.path != "/act":
                self._json(404, {"error": f"nothing to post at {self.path}: moves go to /act"})
                return
            if not self._origin_ok():
                return
            move = self._move()
            if move is REFUSED:
                return
            try:
                self._json(200, {"record": web.act(*move)})
            except Stale as exc:
                self._json(409, {"error": str(exc), "record": exc.record})
            except ValueError as exc:
                self._json(400, {"error": str(exc)})
            except AgentFailed as exc:  # the person's move stands; the agent after it could not move
                self._json(500, {"error": f"the game cannot go on: {exc}", "record": web.record()})

    try:
        return _Server(("127.0.0.1", port), Handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} is already in use on 127.0.0.1: choose another with --port") from None
        raise ValueError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from None


def _stop(signum: int, frame: FrameType | None) -> NoReturn:
    raise KeyboardInterrupt


def serve(server: _Server, web: WebGame, out: TextIO | None = None) -> int:
    """Serve ``web`` with ``server`` (:func:`make_server`) until Ctrl-C or a SIGTERM (a ``kill``, a
    closing terminal session, a container stopping), both of which save the record; 0."""
    server.web = web
    on_main_thread = threading.current_thread() is threading.main_thread()  # signals are set there only
    previous = signal.signal(signal.SIGTERM, _stop) if on_main_thread else None  # before anyone knows the address
    try:
        print(f"the game is at http://127.0.0.1:{server.port}/ : open it in a browser "
              f"(Ctrl-C stops the server)", file=out, flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nserver stopped", file=out)
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous)
        server.server_close()
        if web.save:
            save_record(web.record(public=False), web.save)
            print(f"saved {web.save}", file=out)
    return 0
