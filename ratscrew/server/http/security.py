"""What every HTTP answer carries: a strict Content-Security-Policy and friends
(`SecurityHeaders`)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratscrew.server.http.offline import WORKER_SCRIPT, content_security_policy

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)


SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds the Content-Security-Policy and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = SECURITY_HEADERS
                if scope["path"] == WORKER_SCRIPT:  # issue 51: the offline worker runs WebAssembly
                    policy = content_security_policy(scope["path"], CONTENT_SECURITY_POLICY)
                    headers = [(b"content-security-policy", policy.encode()), *SECURITY_HEADERS[1:]]
                message["headers"] = list(message.get("headers", [])) + headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
