"""Print docs/jax.md's agreement table: per op, an exported function against ours, in ulps.

For each op of the expression grammar, ``--count`` random programs of that op
alone (`autograd.programs.random_program`, the op at the root of variables and
constants, inputs often special values) are exported with
`autograd.export.to_jax`; their value and JAX's gradient (``jax.value_and_grad``,
float64) are compared with this engine's. A difference that a known
convention explains (`autograd.export._agreement.KNOWN`) is counted under it;
the largest of the rest is the op's ulp distance, and the case is printed
below the table. Needs the ``jax`` extra. Run:

    .venv/bin/python scripts/jax_agreement.py [--count 2000] [--seed 0]
"""

from __future__ import annotations

import argparse

import jax

from autograd.drawing import ALL_OPS
from autograd.export._agreement import KNOWN, measure, table
from autograd.expr import COMPARISONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="programs per op")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ops = [op for op in ALL_OPS if op not in COMPARISONS]  # `where` draws every comparison
    rows = [measure(op, args.count, args.seed) for op in ops]
    print(f"jax {jax.__version__}, float64; {args.count} programs per op, seed {args.seed}\n")
    print(table(rows))
    print("\nThe worst case of each op outside the conventions:\n")
    for r in rows:
        for what, worst in (("value", r.value), ("gradient", r.gradient)):
            if worst.case is not None:
                print(f"- `{r.op}` {what}: {worst.case}")
    print("\nConventions:\n")
    for c in KNOWN:
        print(f"- {c.name}: {c.why}")


if __name__ == "__main__":
    main()
