"""The HTTP calls a flow's scripts make (Maestro's ``http``): where the flow says, bounded, logged.

A flow is its team's own code, and its scripts set up test data through the team's backend, so a
request goes to the URL the script names. :class:`HttpClient` is the
:class:`~amc.flows.js.HttpHandler` a flow run hands its script context:

- every reply arrives whole within the request's timeout (10 s by default, never past the
  evaluation's own time limit) and holds at most the response cap (4 MiB of body, with 64 KiB for
  the status line and headers): the connection's socket is a
  :class:`~amc.drivers.bounded.BoundedSocket`, so a server that trickles its reply or sends too
  much is cut off (the script gets an ``Error`` naming the limit, which it may catch);
- redirects are followed, at most :data:`MAX_REDIRECTS`, as Maestro's OkHttp client does (a 303,
  and a 301/302 after a POST, continue as a GET without the body); a redirect to another origin
  (any change of scheme, host or port, https to http on the same host included) drops every
  credential header (:func:`credential_header`: ``Authorization``, ``Proxy-Authorization``,
  ``Cookie``, ``X-Api-Key``, ``X-Auth-Token`` …) for the rest of the chain; no proxy is read from
  the environment;
- the body is sent as the script gave it, with no ``Content-Type`` unless the script sets one (as
  OkHttp sends a string body); ``multipartForm`` text fields are sent as ``multipart/form-data``,
  its file parts are refused (no file is read because a script asked);
- what a call carries that is secret, and its log line, are the flow run's concern
  (:mod:`amc.flows.scripting` wraps this handler: :func:`request_secrets` says what to hide).

:func:`refusing` is the handler of a run that may not make requests (a flow an agent runs over MCP,
unless the server was started with ``--allow-http``).
"""

from __future__ import annotations

import http.client
import ssl
import time
import uuid
from collections.abc import Callable, Mapping
from urllib.parse import urljoin, urlsplit

from ...core.errors import HarnessError, ReplyTooLarge
from ...drivers.bounded import BoundedSocket
from ...storage.redaction import named_like_credential, url_secrets
from .http import HttpRefused, HttpRequest, HttpResponse

__all__ = [
    "HEADER_ALLOWANCE",
    "MAX_REDIRECTS",
    "HttpClient",
    "credential_header",
    "refusing",
    "request_secrets",
]

MAX_REDIRECTS = 5
HEADER_ALLOWANCE = 64 * 1024  # bytes of status line and headers a reply may hold besides its body
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_USER_AGENT = "agentic-mobile-control (a Maestro flow's http)"


def refusing(reason: str) -> Callable[[HttpRequest], HttpResponse]:
    """A handler that makes no request: every call throws an ``Error`` saying ``reason``."""

    def refuse(request: HttpRequest, /) -> HttpResponse:
        raise HttpRefused(f"http.{request.method.lower()} {request.url}: {reason}")

    return refuse


def credential_header(name: str) -> bool:
    """Whether a request header carries a credential: one named like a credential (``Authorization``,
    ``Proxy-Authorization``, ``X-Api-Key``, ``X-Auth-Token``, any with ``key``, ``token``,
    ``secret``, ``passw``, ``auth``, ``sig`` or ``credential`` in its name) or ``Cookie``. Such a
    header is hidden in every record and dropped on a redirect to another origin."""
    return named_like_credential(name) or name.strip().lower() == "cookie"


def _origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: scheme, host and port (the scheme's own when none is written)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def request_secrets(request: HttpRequest) -> list[str]:
    """The secret values a request carries: its URL's credentials, and the values of its headers
    named like a credential or ``Cookie`` (``Bearer abc``: the whole value and ``abc``)."""
    found = list(url_secrets(request.url))
    for name, value in request.headers:
        if credential_header(name):
            scheme, _, rest = value.strip().partition(" ")
            found += [v for v in (value.strip(), rest.strip() if scheme and rest else "") if len(v) >= 4]
    return found


def _multipart(form: Mapping[str, object]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in form.items():
        if isinstance(value, dict | list):
            raise HttpRefused(
                f"multipartForm {name!r}: file parts are not sent by this harness (a script does not "
                "make it read files); send text fields, or the file's content as a body"
            )
        text = "" if value is None else str(value)
        safe = name.replace('"', "%22").replace("\r", " ").replace("\n", " ")
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{safe}"\r\n\r\n{text}\r\n'.encode()
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class HttpClient:
    """Makes a flow's HTTP calls (see the module docstring). Holds nothing between calls: any
    thread may call it."""

    def __call__(self, request: HttpRequest, /) -> HttpResponse:
        response, _url = self._follow(request, time.monotonic() + request.timeout)
        return response

    def _follow(self, request: HttpRequest, deadline: float) -> tuple[HttpResponse, str]:
        method, url = request.method, request.url
        headers = dict(request.headers)
        body = None if request.body is None else request.body.encode("utf-8", "surrogatepass")
        if request.multipart_form is not None:
            body, kind = _multipart(request.multipart_form)
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = kind
        origin = _origin(url)
        for _ in range(MAX_REDIRECTS + 1):
            status, reply_headers, data = self._once(method, url, headers, body, deadline, request)
            location = next((v for k, v in reply_headers if k.lower() == "location"), None)
            if status not in _REDIRECTS or location is None:
                return HttpResponse(status, _text(data, reply_headers), tuple(reply_headers)), url
            url = urljoin(url, location)
            if not url.lower().startswith(("http://", "https://")):
                raise HttpRefused(f"redirected to {url[:80]!r}, which is not an http:// or https:// URL")
            if status == 303 or (status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
            if _origin(url) != origin:
                headers = {k: v for k, v in headers.items() if not credential_header(k)}
        raise HttpRefused(f"more than {MAX_REDIRECTS} redirects")

    @staticmethod
    def _once(
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes | None,
        deadline: float,
        request: HttpRequest,
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urlsplit(url)
        left = deadline - time.monotonic()
        if left <= 0:
            raise HttpRefused(f"no whole reply within {request.timeout:g} s")
        host = parts.hostname or ""
        try:
            port = parts.port
        except ValueError:
            raise HttpRefused(f"the URL's port is not a number: {url[:80]!r}") from None
        conn: http.client.HTTPConnection
        if parts.scheme.lower() == "https":
            conn = http.client.HTTPSConnection(host, port, timeout=left, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(host, port, timeout=left)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {"User-Agent": _USER_AGENT, **headers}
        try:
            conn.connect()
            if conn.sock is not None:
                conn.sock = BoundedSocket(
                    conn.sock,
                    what=f"the server at {parts.scheme}://{parts.netloc}",
                    max_bytes=request.max_response_bytes + HEADER_ALLOWANCE,
                )
                conn.sock.settimeout(max(deadline - time.monotonic(), 0.001))
            conn.request(method, path, body=body, headers=sent)
            reply = conn.getresponse()
            data = reply.read()
            return reply.status, list(reply.getheaders()), data
        except TimeoutError:
            raise HttpRefused(f"no whole reply within {request.timeout:g} s") from None
        except ReplyTooLarge:
            raise HttpRefused(
                f"the reply is larger than the cap of {request.max_response_bytes:,} bytes of body "
                f"(and {HEADER_ALLOWANCE // 1024} KiB of headers); it was cut off"
            ) from None
        except HarnessError as exc:
            raise HttpRefused(exc.message) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise HttpRefused(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__) from None
        finally:
            conn.close()


def _text(data: bytes, headers: list[tuple[str, str]]) -> str:
    """The body as text, in the charset its Content-Type names (UTF-8 when none or unknown)."""
    kind = next((v for k, v in headers if k.lower() == "content-type"), "")
    charset = "utf-8"
    for piece in kind.split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"').strip()
    try:
        return data.decode(charset, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")
