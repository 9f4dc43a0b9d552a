"""An engine in another process: a worker speaking JSON lines on stdin/stdout.

The protocol (``typed-autograd/conform-worker@1``, docs/reference-testing.md):

1. The worker starts and writes one line, its hello:
   ``{"protocol": "typed-autograd/conform-worker@1", "engine": NAME,
   "version": TEXT, "ops": [OP, ...], "node_exponents": BOOL, "order": 1 or 2}``.
2. For each line it reads, a request
   ``{"id": N, "order": 1 or 2, "inputs": {NAME: FLOAT, ...}, "tree": [NODE, ...]}``
   (``tree`` is the node list of the JSON program format), it writes one
   line: ``{"id": N, "value": FLOAT, "gradients": {NAME: FLOAT, ...}}``, plus
   ``"hessian": [[FLOAT, ...], ...]`` (rows and columns in the order of
   ``inputs``) when the order is 2; or ``{"id": N, "error": TEXT}`` if its
   engine raised.
3. It exits when its stdin closes.

Floats are JSON numbers, or the strings ``"inf"``, ``"-inf"``, ``"nan"``;
``-0.0`` keeps its sign.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import Final

from autograd.conform._engine import Engine, EngineUnavailable, Known
from autograd.conform._ops import OPS
from autograd.drawing import ALL_OPS
from autograd.expr import Expr
from autograd.programs import JSON, decode_float, encode_float, expr_to_tree

PROTOCOL: Final = "typed-autograd/conform-worker@1"


class WorkerError(Exception):
    """What the worker's engine raised, as the worker reported it."""


class Worker:
    """A running worker process and its hello.

    Raises:
        EngineUnavailable: if it cannot start, or its hello is not the protocol's.
    """

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        # read back when the worker fails; closed by `close`, as the process is
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            self.stderr.close()
            raise EngineUnavailable(f"cannot start the worker {self.command[0]!r}: {e}") from None
        self.next_id = 0
        line = self._read()
        try:
            hello = json.loads(line)
        except json.JSONDecodeError:
            hello = None
        if not isinstance(hello, dict) or hello.get("protocol") != PROTOCOL:
            self.close()
            raise EngineUnavailable(
                f"the worker's first line is not a {PROTOCOL} hello: {line[:200]!r}"
            )
        self.hello: dict[str, JSON] = hello

    def _read(self) -> str:
        assert self.process.stdout is not None, "opened with a pipe"
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            self.stderr.seek(0)
            tail = self.stderr.read()[-1500:].strip()
            self.close()
            raise EngineUnavailable(
                f"the worker {' '.join(self.command)!r} exited (status {self.process.returncode})"
                + (f": {tail}" if tail else "")
            )
        return line

    def ask(self, expr: Expr, inputs: Mapping[str, float], order: int) -> dict[str, JSON]:
        """Send one program; return the worker's answer.

        Raises:
            WorkerError: if the worker's engine raised on it.
            EngineUnavailable: if the worker died or answered out of protocol.
        """
        self.next_id += 1
        request = {
            "id": self.next_id,
            "order": order,
            "inputs": {k: encode_float(v) for k, v in inputs.items()},
            "tree": expr_to_tree(expr),
        }
        assert self.process.stdin is not None, "opened with a pipe"
        try:
            self.process.stdin.write(json.dumps(request, allow_nan=False) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self._read()  # raises with the worker's stderr
        answer = json.loads(self._read())
        if not isinstance(answer, dict) or answer.get("id") != self.next_id:
            raise EngineUnavailable(
                f"the worker answered request {self.next_id} with {answer!r:.200}"
            )
        if "error" in answer:
            raise WorkerError(str(answer["error"]))
        return answer

    def close(self) -> None:
        """Close its stdin (it exits), wait for it, close the pipes (again is harmless)."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(BrokenPipeError):  # it exited with input unread
                    pipe.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


def worker_engine(
    command: Sequence[str], known: Sequence[Known] = (), notes: Sequence[str] = ()
) -> Engine:
    """An `Engine` run by a worker process (``command`` starts it).

    Raises:
        EngineUnavailable: if the worker cannot start or says something else than the protocol.
    """
    worker = Worker(command)
    hello = worker.hello
    ops = hello.get("ops")
    if not isinstance(ops, list) or not all(isinstance(op, str) for op in ops):
        worker.close()
        raise EngineUnavailable("the worker's hello has no list of ops")
    unknown = [str(op) for op in ops if op not in ALL_OPS]  # comparisons: where draws them
    usable = tuple(op for op in OPS if op in ops)

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        answer = worker.ask(expr, inputs, 1)
        return _float(answer.get("value")), _floats(answer.get("gradients"))

    def second(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
        rows = worker.ask(expr, inputs, 2).get("hessian")
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise EngineUnavailable(f"the worker sent no hessian matrix ({rows!r:.100})")
        names = list(inputs)
        return {
            a: {b: decode_float(h) for b, h in zip(names, row, strict=True)}  # type: ignore[arg-type]  # rows are lists
            for a, row in zip(names, rows, strict=True)
        }

    extra = [f"the worker also has {', '.join(unknown)}, not drawn here"] if unknown else []
    return Engine(
        name=str(hello.get("engine", command[-1])),
        version=str(hello.get("version", "unknown")),
        first=first,
        second=second if hello.get("order") == 2 else None,
        ops=usable,
        node_exponents=hello.get("node_exponents") is not False,
        known=tuple(known),
        notes=(*notes, "run by a worker process (JSON lines)", *extra),
        close=worker.close,
    )


def _float(v: object) -> float:
    try:
        return decode_float(v)
    except ValueError as e:
        raise EngineUnavailable(f"the worker sent {v!r:.60} for a number") from e


def _floats(obj: object) -> dict[str, float]:
    if not isinstance(obj, dict):
        raise EngineUnavailable(f"the worker sent {obj!r:.100} for gradients")
    return {str(k): _float(v) for k, v in obj.items()}
