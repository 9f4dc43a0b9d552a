"""The verdict of ``conform``: a table per op, minimal programs, known conventions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import attrs

from autograd.conform._engine import Known, Order
from autograd.conform._ops import Op
from autograd.conform._protocol import Conventions
from autograd.programs import JSON, encode_float

REPORT_FORMAT: Final = "typed-autograd/conform@1"
"""The ``format`` field of ``conform --json``."""


@attrs.frozen
class Example:
    """A minimal program with both engines' numbers.

    Attributes:
        source: the expression as text.
        inputs: its input values.
        rows: (quantity, ours, theirs) for the value and each derivative
            (theirs ``None`` where the engine raised).
        differs: the quantities that differ.
        error: what the engine raised, if it did.
    """

    source: str
    inputs: Mapping[str, float]
    rows: tuple[tuple[str, float, object], ...]
    differs: tuple[str, ...]
    error: str | None

    def lines(self) -> list[str]:
        """The program and the numbers, as the text report shows them."""
        given = ", ".join(f"{k} = {v!r}" for k, v in self.inputs.items())
        out = [f"    {self.source}" + (f"  at {given}" if given else "")]
        if self.error is not None:
            ours = ", ".join(f"{q} {o!r}" for q, o, _ in self.rows)
            return [*out, f"      it raised {self.error[:300]}", f"      reference: {ours}"]
        out.append(f"      {'':12}{'reference':>24}  {'engine':>24}")
        for q, ours_, theirs in self.rows:
            mark = "  <- differs" if q in self.differs else ""
            out.append(f"      {q:12}{ours_!r:>24}  {theirs!r:>24}{mark}")
        return out

    def to_json(self) -> JSON:
        """The example as JSON (floats encoded as in the program format)."""
        return {
            "expression": self.source,
            "inputs": {k: encode_float(v) for k, v in self.inputs.items()},
            "rows": [
                {"quantity": q, "reference": encode_float(o), "engine": _json_number(t)}
                for q, o, t in self.rows
            ],
            "differs": list(self.differs),
            "error": self.error,
        }


def _json_number(v: object) -> JSON:
    if type(v) is int:
        v = float(v)
    if isinstance(v, float):
        return encode_float(v)
    return None if v is None else repr(v)


@attrs.frozen
class OpResult:
    """One row of the table.

    Attributes:
        op: the op the programs focus on (it is at their root).
        drawn: how many programs.
        agree: how many agree (within the conventions).
        known: how many differ by a known convention of the engine.
        differ: how many differ otherwise.
        raised: how many made the engine raise.
        worst_ulps: the largest distance in ulps between two different finite numbers.
        worst_kinds: other kinds of difference seen (``nan``, ``inf``, ``sign of zero``, ...).
        known_counts: programs per known convention.
        example: the minimal program of the first that differed or raised.
    """

    op: Op
    drawn: int
    agree: int
    known: int
    differ: int
    raised: int
    worst_ulps: int | None
    worst_kinds: tuple[str, ...]
    known_counts: Mapping[str, int]
    example: Example | None

    @property
    def worst(self) -> str:
        """The worst difference in words: ``12 ulps``, ``nan``, ``sign of zero``."""
        parts = [] if self.worst_ulps is None else [f"{self.worst_ulps:,} ulps"]
        return ", ".join([*parts, *self.worst_kinds])


@attrs.frozen
class Report:
    """Everything ``conform`` found about one engine."""

    engine: str
    version: str
    n: int
    seed: int
    order: Order
    conventions: Conventions
    results: tuple[OpResult, ...]
    known: tuple[Known, ...]
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """No program differed or raised, other than by a known convention."""
        return all(r.differ == 0 and r.raised == 0 for r in self.results)

    def text(self) -> str:
        """The report as the command prints it."""
        c = self.conventions
        zeros = "signed zeros" if c.signed_zeros else "either zero"
        lines = [
            f"conform {self.engine} {self.version}: {self.n:,} programs, seed {self.seed}, "
            f"order {self.order}, within {c.ulps} ulps"
            + (f" or {c.abs_tol!r}" if c.abs_tol else "")
            + f", {zeros}",
            *(f"  note: {note}" for note in self.notes),
            "",
            f"{'op':10}{'drawn':>7}{'agree':>7}{'known':>7}{'differ':>8}{'raise':>7}  worst",
        ]
        for r in self.results:
            counts = f"{r.drawn:>7}{r.agree:>7}{r.known:>7}{r.differ:>8}{r.raised:>7}"
            lines.append(f"{r.op:10}{counts}  {r.worst}".rstrip())
        bad = [r for r in self.results if r.example is not None]
        if bad:
            lines += ["", "Disagreements (a minimal program for each op):"]
            for r in bad:
                assert r.example is not None, "filtered above"
                lines += [f"  {r.op}:", *r.example.lines()]
        seen = {name: n for r in self.results for name, n in r.known_counts.items()}
        if self.known:
            lines += ["", "Known conventions (not counted as disagreements):"]
            for k in self.known:
                count = sum(r.known_counts.get(k.name, 0) for r in self.results)
                lines.append(f"  {k.name} ({count} programs): {k.text}")
                lines.append(f"      source: {k.source}")
        assert all(name in {k.name for k in self.known} for name in seen), "names are the engine's"
        verdict = [r.op for r in self.results if r.differ or r.raised]
        lines += [
            "",
            "verdict: "
            + (
                "agrees with the reference (known conventions apart)"
                if self.ok
                else f"disagrees on {', '.join(verdict)}"
            ),
        ]
        return "\n".join(lines) + "\n"

    def to_json(self) -> JSON:
        """The report as one JSON object (``format`` is `REPORT_FORMAT`)."""
        c = self.conventions
        return {
            "format": REPORT_FORMAT,
            "engine": self.engine,
            "version": self.version,
            "n": self.n,
            "seed": self.seed,
            "order": self.order,
            "conventions": {"ulps": c.ulps, "abs_tol": c.abs_tol, "signed_zeros": c.signed_zeros},
            "notes": list(self.notes),
            "ok": self.ok,
            "ops": [
                {
                    "op": r.op,
                    "drawn": r.drawn,
                    "agree": r.agree,
                    "known": r.known,
                    "differ": r.differ,
                    "raise": r.raised,
                    "worst_ulps": r.worst_ulps,
                    "worst_kinds": list(r.worst_kinds),
                    "known_counts": dict(r.known_counts),
                    "example": None if r.example is None else r.example.to_json(),
                }
                for r in self.results
            ],
            "known": [{"name": k.name, "text": k.text, "source": k.source} for k in self.known],
        }
