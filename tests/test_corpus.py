"""``autograd corpus``: random programs with this engine's results, as JSON lines, reproducibly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd.cli import main
from autograd.drawing import ALL_OPS
from autograd.expr import COMPARISONS
from autograd.programs import FORMAT, program_from_json, reference

DRAWN = [op for op in ALL_OPS if op not in COMPARISONS]


def corpus(tmp_path: Path, *args: str, name: str = "c.jsonl") -> bytes:
    out = tmp_path / name
    assert main(["corpus", *args, "--out", str(out)]) == 0
    return out.read_bytes()


def test_the_same_arguments_give_the_same_bytes(tmp_path: Path) -> None:
    a = corpus(tmp_path, "--n", "60", "--seed", "3", name="a.jsonl")
    b = corpus(tmp_path, "--n", "60", "--seed", "3", name="b.jsonl")
    assert a == b
    assert a != corpus(tmp_path, "--n", "60", "--seed", "4", name="c.jsonl")
    assert len(a.splitlines()) == 60


def test_a_shorter_corpus_is_a_prefix_of_a_longer_one(tmp_path: Path) -> None:
    short = corpus(tmp_path, "--n", "10", "--seed", "9", name="s.jsonl")
    long = corpus(tmp_path, "--n", "40", "--seed", "9", name="l.jsonl")
    assert long.startswith(short)


def test_the_bytes_do_not_depend_on_the_process(tmp_path: Path) -> None:
    # a fresh interpreter, with another string-hash seed: nothing may hang on dict or set order
    outputs = []
    for hash_seed in ("0", "1"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        cmd = [sys.executable, "-m", "autograd", "corpus", "--n", "40", "--seed", "11"]
        run = subprocess.run(cmd, capture_output=True, check=True, env=env)
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0] == corpus(tmp_path, "--n", "40", "--seed", "11")


def test_every_op_is_in_a_corpus_of_as_many_programs_as_ops(tmp_path: Path) -> None:
    lines = corpus(tmp_path, "--n", str(len(DRAWN)), "--seed", "0").decode().splitlines()
    seen: set[str] = set()
    for line in lines:
        for node in json.loads(line)["tree"]:
            seen.add(node.get("op") or node.get("call2") or "where")
    assert set(DRAWN) <= seen
    comparisons: set[str] = set()
    for big in corpus(tmp_path, "--n", "400", "--seed", "0", name="big.jsonl").splitlines():
        comparisons |= {n["where"] for n in json.loads(big)["tree"] if "where" in n}
    assert comparisons == set(COMPARISONS)


def test_each_line_is_a_program_with_this_engines_numbers(tmp_path: Path) -> None:
    for line in corpus(tmp_path, "--n", "120", "--seed", "5").decode().splitlines():
        obj = json.loads(line)
        assert obj["format"] == FORMAT
        assert {"expression", "inputs", "value", "gradients", "hessian", "tree"} <= set(obj)
        p = program_from_json(obj)
        again = reference(p.expr, p.inputs, hessian=True)
        assert repr(again.value) == repr(p.value)
        assert [repr(v) for v in again.gradients.values()] == [
            repr(v) for v in p.gradients.values()
        ]
        assert repr(again.hessian) == repr(p.hessian)


def test_ops_can_be_chosen(tmp_path: Path) -> None:
    lines = corpus(tmp_path, "--n", "30", "--ops", "maximum,where,lt,*").decode().splitlines()
    kinds = {
        n.get("op") or n.get("call2") or n.get("where")
        for line in lines
        for n in json.loads(line)["tree"]
    }
    assert kinds <= {"var", "num", "maximum", "lt", "*"}
    assert {"maximum", "lt", "*"} <= kinds


def test_without_out_the_lines_go_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["corpus", "--n", "5", "--seed", "2"]) == 0
    assert capsys.readouterr().out.encode() == corpus(tmp_path, "--n", "5", "--seed", "2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n", "0"], "expected a whole number from 1 to 1000000"),
        (["--ops", "gamma"], "--ops: unknown op 'gamma'"),
        (["--ops", "lt,ge"], "comparisons only choose what where"),
        (["--out", "."], "is a folder"),
        (["--out", "no/such/folder/c.jsonl"], "the folder 'no/such/folder' does not exist"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["corpus", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
