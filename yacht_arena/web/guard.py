"""Other sites' pages against `yacht serve` (an ASGI middleware, `SiteGuard`).

A page on another site can make a visitor's browser send requests here: it may not change anything. Every
state-changing request (a WebSocket handshake, any HTTP method but GET and HEAD) whose `Origin` header is
not the server's own is refused (403), and so is an HTTP body that is not `application/json` (415: a plain
cross-site form or `fetch` cannot send JSON without a preflight this server never grants). The server's own
origins are the operator's list (`origins:` in the serve config, for a server behind a proxy or on a public
name); without one, the origin of the request's own `Host` (scheme://host:port). A request without `Origin`
comes from a program, not from another site's page (browsers send it on every cross-origin POST and every
WebSocket handshake), and is let through.

On a loopback address the server also refuses a `Host` that is neither a loopback name nor the host of one
of the operator's origins, so a site whose name is made to resolve to 127.0.0.1 (DNS rebinding) does not
reach it as its own origin.
"""
from starlette.responses import JSONResponse

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD"})


def headers_of(scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of repeated ones)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


def host_name(host: str) -> str:
    """The name of a Host header value, without port or IPv6 brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(scope, origins: frozenset[str], loopback: bool) -> tuple[int, str] | None:
    """(status, reason) when the request is refused, else None (see the module's text)."""
    headers = headers_of(scope)
    host = headers.get("host", "")
    if loopback and host_name(host) not in LOOPBACK_NAMES | {host_name(o.partition("://")[2]) for o in origins}:
        return 403, "this server answers only to its own address"
    websocket = scope["type"] == "websocket"
    if not websocket and scope.get("method", "GET") in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None:
        scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
        own = origins or {f"{scheme}://{host.strip().lower()}"}
        if origin.strip().lower() not in own:
            return 403, "requests from other sites' pages are refused"
    if not websocket:
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/json":
            return 415, "send the request as application/json"
    return None


class SiteGuard:
    """ASGI middleware refusing what `refusal` refuses: HTTP with a JSON error, a WebSocket before its handshake."""

    def __init__(self, app, origins=(), loopback: bool = False):
        self.app, self.origins, self.loopback = app, frozenset(origins), loopback

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            refused = refusal(scope, self.origins, self.loopback)
            if refused is not None:
                status, why = refused
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008, "reason": why})
                else:
                    await JSONResponse({"error": why}, status, headers={"Connection": "close"})(scope, receive, send)
                return
        await self.app(scope, receive, send)
