"""`chunks.input_runs`: a lone chunk's returns, each run of consecutive inputs one splice of R."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from autograd.compiler.chunks import _INPUT_RUN, input_runs


def oracle(returns: list[str], inputs: int) -> list[str]:
    """Each return as an input's index or None, runs of indices each one up grouped."""
    runs: list[list[int] | str] = []
    for r in returns:
        name = r[1:-1] if r[:1] == "{" and r[-1:] == "}" and "{" not in r[1:] else ""
        i = int(name[1:]) if name[:1] == "a" and name[1:].isdigit() else -1
        if not 0 <= i < inputs:
            runs.append(r)
        elif runs and isinstance(runs[-1], list) and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    out: list[str] = []
    for run in runs:
        if isinstance(run, str):
            out.append(run)
        elif len(run) >= _INPUT_RUN:
            out.append(f"*R[{run[0]}:{run[-1] + 1}]")
        else:
            out += [f"{{a{i}}}" for i in run]
    return out


TEMPLATES = st.one_of(
    st.integers(0, 12).map(lambda i: f"{{a{i}}}"),  # an input, or past the last (10 on)
    st.sampled_from(["{v3}", "{k0}", "{a1} + {a2}", "*{l0}[0][2:5]", "{a01}", "{a}"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(TEMPLATES, max_size=40), st.booleans())
def test_input_runs_splice_each_run_of_consecutive_inputs(returns: list[str], runs: bool) -> None:
    if runs:  # long runs, stopping short of the last input or at it
        returns = [*returns, *(f"{{a{i}}}" for i in range(3, 10)), *returns[:3]]
    assert input_runs(returns, 10) == oracle(returns, 10)


def test_a_run_up_to_the_last_input_is_one_splice() -> None:
    returns = ["{v9}", *(f"{{a{i}}}" for i in range(100_000)), "{a0}"]
    assert input_runs(returns, 100_000) == ["{v9}", "*R[0:100000]", "{a0}"]
    assert input_runs(["{a1}", "{a2}", "{a3}", "{a4}", "{a5}"], 5) == ["*R[1:5]", "{a5}"]
