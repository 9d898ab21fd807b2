"""A scripted OpenAI-compatible chat-completions server for the collect tests.

Behaviour is chosen per request by the user message: ``script[content]`` is a
list of steps used in order (the last one repeats); content not in the
script gets ``default``. Runs on 127.0.0.1 with a free port, in a thread.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    text: str | None = "Answer: 42"
    finish_reason: str = "stop"
    usage: tuple[int, int] | None = (12, 5)
    delay: float = 0.0  # seconds before the headers: past the client timeout makes a timeout


@dataclass(frozen=True)
class Echo:
    """A reply that says what it answers: the model, the system prompt and the number
    of earlier assistant turns, then the user's last message."""

    delay: float = 0.0
    usage: tuple[int, int] = (12, 5)


@dataclass(frozen=True)
class Fail:
    status: int
    retry_after: str | None = None
    body: str = '{"error": {"message": "try later"}}'


@dataclass(frozen=True)
class Raw:
    """Any body with status 200: malformed JSON, a reply without choices..."""

    body: bytes


@dataclass(frozen=True)
class EchoToken:
    """A reply whose text, model and error-ish fields repeat the bearer token."""


@dataclass(frozen=True)
class Hangup:
    """Close the connection without a reply."""


@dataclass(frozen=True)
class Token:
    """A reply whose text is ``render(token)``: the bearer token in some disguise."""

    render: Callable[[str], str]


@dataclass(frozen=True)
class Flood:
    """A 200 reply of ``size`` bytes, made as it is sent (never held whole), ended by
    closing the connection: the start of a valid reply, its text, then its end."""

    size: int


@dataclass(frozen=True)
class Trickle:
    """A reply sent a byte every ``every`` seconds: its first ``slow`` bytes of the
    status line and headers (``in_headers``), or of a body of ``slow`` bytes."""

    slow: int
    in_headers: bool = False
    every: float = 1.0


@dataclass(frozen=True)
class Judging:
    """A judge's reply: a verdict mark fixed by the prompt (``judged``), or none at all for
    prompts whose hash falls in one of ``unparsed_every``."""

    delay: float = 0.0
    usage: tuple[int, int] = (200, 20)
    unparsed_every: int = 0


Step = Reply | Echo | Fail | Raw | EchoToken | Hangup | Token | Flood | Trickle | Judging


@dataclass
class Seen:
    content: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float = field(default_factory=time.monotonic)


class FakeEndpoint:
    def __init__(
        self, script: dict[str, list[Step]] | None = None, default: Step = Reply()
    ) -> None:
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.default = default
        self.requests: list[Seen] = []
        self.sent = 0  # bytes of Flood and Trickle replies sent
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                outer._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # A short poll keeps shutdown (once per test) from costing half a second.
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def seen(self, content: str) -> int:
        with self.lock:
            return sum(r.content == content for r in self.requests)

    def _next(self, content: str) -> Step:
        with self.lock:
            steps = self.script.get(content)
            if not steps:
                return self.default
            return steps.pop(0) if len(steps) > 1 else steps[0]

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        body = json.loads(handler.rfile.read(length))
        if handler.path != "/v1/chat/completions":
            _send(handler, 404, b'{"error": {"message": "no such path"}}')
            return
        content = body["messages"][-1]["content"]
        with self.lock:
            self.requests.append(Seen(content, dict(handler.headers), body))
        step = self._next(content)
        token = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        try:
            if isinstance(step, Flood | Trickle):
                self._stream(handler, step)
            else:
                _respond(handler, step, body, token)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer

    def _stream(self, handler: BaseHTTPRequestHandler, step: Flood | Trickle) -> None:
        def send(data: bytes) -> None:
            handler.wfile.write(data)
            handler.wfile.flush()
            with self.lock:
                self.sent += len(data)

        handler.close_connection = True
        if isinstance(step, Trickle):
            head = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
            head += b"Content-Length: %d\r\n\r\n" % step.slow
            slow = head[: step.slow] if step.in_headers else b" " * step.slow
            if not step.in_headers:
                send(head)
            for i in range(len(slow)):
                send(slow[i : i + 1])
                time.sleep(step.every)
            if step.in_headers:
                send(head[step.slow :] + b" " * step.slow)
            return
        start = b'{"choices": [{"message": {"role": "assistant", "content": "'
        end = b'"}, "finish_reason": "stop"}]}'
        handler.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n")
        send(start)
        chunk = b"a" * 65536
        left = step.size - len(start) - len(end)
        while left > 0:
            send(chunk[:left])
            left -= len(chunk)
        send(end)


def _respond(handler: BaseHTTPRequestHandler, step: Step, body: dict[str, Any], token: str) -> None:
    if isinstance(step, Hangup):
        handler.close_connection = True
        handler.connection.shutdown(2)
        return
    if isinstance(step, Fail):
        headers = {"Retry-After": step.retry_after} if step.retry_after else {}
        _send(handler, step.status, step.body.replace("TOKEN", token).encode(), headers)
        return
    if isinstance(step, Raw):
        _send(handler, 200, step.body)
        return
    if isinstance(step, Token):
        reply = _completion(body["model"], step.render(token), "stop", (3, 4))
        _send(handler, 200, json.dumps(reply).encode())
        return
    if isinstance(step, EchoToken):
        reply = _completion(body["model"], f"Your key is {token}. Answer: 42", "stop", (3, 4))
        reply["model"] = f"{body['model']}-{token}"
        reply["system_fingerprint"] = {"authorization": token, "note": "ESCAPED"}
        # The same key written with \u escapes: only a parser sees it is the key.
        escaped = "".join(f"\\u{ord(c):04x}" for c in token)
        _send(handler, 200, json.dumps(reply).replace("ESCAPED", escaped).encode())
        return
    if step.delay:
        time.sleep(step.delay)
    if isinstance(step, Judging):
        text = judged(body["messages"][-1]["content"], step.unparsed_every)
        _send(
            handler, 200, json.dumps(_completion(body["model"], text, "stop", step.usage)).encode()
        )
        return
    if isinstance(step, Echo):
        _send(
            handler,
            200,
            json.dumps(_completion(body["model"], echo(body), "stop", step.usage)).encode(),
        )
        return
    _send(
        handler,
        200,
        json.dumps(_completion(body["model"], step.text, step.finish_reason, step.usage)).encode(),
    )


def judged(prompt: str, unparsed_every: int = 0) -> str:
    """What a ``Judging`` step answers to ``prompt``."""
    number = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
    if unparsed_every and number % unparsed_every == 0:
        return "Both answers have merits; I cannot decide."
    mark = ("[[A]]", "[[B]]", "[[C]]")[number % 3]
    return f"Answer A is direct; answer B is longer.\n\nVerdict: {mark}"


def echo(body: dict[str, Any]) -> str:
    """What an ``Echo`` step answers to a request ``body``."""
    messages = body["messages"]
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    earlier = sum(m["role"] == "assistant" for m in messages)
    return f"{body['model']} [{system}] after {earlier}: {messages[-1]['content']}"


def _completion(
    model: str, text: str | None, finish: str, usage: tuple[int, int] | None
) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        reply["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
    return reply


def _send(
    handler: BaseHTTPRequestHandler,
    status: int,
    payload: bytes,
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)


def main() -> None:
    """Serve ``Echo`` (or ``Judging``) replies after ``--delay`` seconds until killed; print
    the URL."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--judging", action="store_true", help="a judge's verdicts (Judging)")
    args = parser.parse_args()
    step: Step = Judging(delay=args.delay) if args.judging else Echo(delay=args.delay)
    with FakeEndpoint(default=step) as server:
        print(server.url, flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()
