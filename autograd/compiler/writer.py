"""A program being written: its state, and what every stage of `codegen.Program` writes with.

`Writer` declares what a compiled graph's statements are written from and
into: the nodes' names and how the eager call holds each (a plain float or
not), a batch's varying names, the statements and constants, the runs written
as loops. The stages (`forward.ForwardPass`, `sweep.Sweep`, `link.Linker`)
are its subclasses and `codegen.Program` is all of them; their shared steps are
here: append a statement within the budget (`emit`), name a constant, and the
stand-ins an equation's code is written on once per key (`_slot_syms`,
`to_form`), so equations with equal keys (`equations.walk`) share their code up
to names. Also here: what a batched program is told (`Dialect`), and the errors
writing a program raises.
"""

from __future__ import annotations

import contextlib
import struct
from collections import Counter
from collections.abc import Callable, Sequence
from typing import cast

import attrs

from autograd.compiler.chunks import Chunk
from autograd.compiler.equations import ExternalNodeError as ExternalNodeError
from autograd.compiler.equations import NotBatchable as NotBatchable
from autograd.compiler.equations import Walk, as_eager
from autograd.compiler.options import Options
from autograd.compiler.periods import Period
from autograd.compiler.stmts import Fields, Stmt, ref
from autograd.core.nodes import Const, Node, Op
from autograd.core.sym import Sym, arrays, sym


@attrs.frozen
class Dialect:
    """How a batched program differs: which inputs vary, and the code for them."""

    varying: frozenset[int]
    """Positions of the inputs that hold a batch (an array)."""
    helpers: Callable[[], dict[str, object]]
    """The globals the rewritten expressions call (``batch_sum(x, size)`` too)."""
    batch_of: dict[Node, int] = attrs.field(factory=dict)
    """Variables standing for a column of a `vmap` call inside the trace: that call (1, 2, ...)."""
    sizes: tuple[int, ...] = ()
    """The number of examples of each such call."""
    arrays: frozenset[int] = frozenset()
    """The calls with a NumPy array among their mapped leaves: their results are arrays."""
    index: Callable[[list[int]], object] | None = None
    """An index array of rows, if parallel statements are packed into 2-d operations
    (`compiler.pack`: where a NumPy call costs more than its arithmetic)."""
    pack_rows: int = 0
    """The most statements one pack holds (its rows times the batch: a cache's worth)."""


class GraphTooBigError(Exception):
    """The graph needs more statements than the budget allows."""


class GuardFailed(Exception):
    """A choice the trace made on plain numbers of the eager call goes the other way now."""


Ordered = tuple[Node, tuple[Node, ...]]
"""A node of a `toposort` order, with its inputs."""

Form = tuple[str, tuple[int, ...]]
"""A statement's code up to names: a `str.format` string of name numbers whose result,
given the names, is the statement's template (`stmts`), and the numbers its uses are."""

Elementwise = tuple[bool | None, frozenset[str]]
"""What batched code says of itself (`Sym.array`, `Sym.fixed`): whether it surely gives
an array (None: it is not an operation per element), and the names that must be one
value for every row of a pack (`compiler.pack`)."""

FormElementwise = tuple[bool | None, tuple[int, ...]]
"""`Elementwise` up to names: its fixed names as numbers of a form's names."""

RuleCode = tuple[Form, FormElementwise | None, int | None]
"""A rule's contribution to one input's cotangent: its `Form`, in a batch what it says of
itself, and the slot it is if it is one slot's name alone (`alias_slot`: ``Add``'s ``g``)."""


class Writer:
    """The statements of one compiled graph as they are written, and the constants they read.

    The state is declared here, grouped by what it describes; each stage's
    module holds only its steps.
    """

    # what the program is asked for
    options: Options
    budget: int
    batch: Dialect | None
    limit: int
    """Statements written before `reroll` rolls runs into loops (a batch's are not rolled)."""
    rolls: bool
    """Whether long runs of repeated nodes are written as loops: a scalar program's are."""

    # the nodes
    input_nodes: list[Node]
    input_names: list[str]
    names: dict[Node, str]
    """Each node written: the name holding its value (``a0`` an input, ``k0`` a constant)."""
    floats: set[Node]
    """The nodes that are plain floats in the eager call (membership only: never iterated)."""
    plain_inputs: frozenset[Node]

    # a batch (`jit` of `vmap`)
    batch_of: dict[Node, int]
    """A node's batch (the vmap call whose examples it varies over); absent: one number."""
    sizes: tuple[int, ...]
    array_batches: frozenset[int]
    varying: set[str]
    """In a batch, the names holding arrays: its varying inputs, and what reads them."""
    reductions: set[str]
    """Statements summing a batch: one number again."""
    vcot: dict[tuple[Node, int], str]
    """Cotangents still one per example."""
    surely: set[str]
    """In a batch, the names that surely hold arrays: its varying inputs, and `packable`'s."""
    packable: dict[str, frozenset[str]]
    """The batched statements that surely give an array, each an operation per element
    (`Sym.array`): per target, its fixed names (`Sym.fixed`). What `pack` packs."""

    # statements and constants
    stmts: list[Stmt]
    written: list[object]
    """Per statement: the shared form it came from (`to_form`), or None."""
    consts: dict[bytes, str]
    const_values: list[float]
    seed: str | None
    """The seed cotangent 1.0's name: a product with it is the other factor (`Sym.unit`)."""
    walk: Walk
    """The traced graph's equations (`forward`), which the sweep reads too."""
    first_output: Node | None
    """The output the walk started at: the sweep's root, if any."""
    spans: list[tuple[int, int]]
    """The statements `forward` wrote (`orders.sink` may move them)."""
    reads_r: bool
    """Whether a statement passes R whole (a loop reads inputs' slices)."""
    _forward_forms: dict[object, tuple[Form, int | None, FormElementwise | None]]
    """Forward code per key (`equations.walk`'s number, and in a batch which slots hold
    arrays), and in a batch what it says of itself."""
    _rule_forms: dict[tuple[object, ...], list[RuleCode | None]]
    """A rule's contributions per key (`Sweep._rule`), and in a batch what each says of itself."""

    # runs written as loops (`periods`)
    rolled: list[Period]
    """The runs `forward` rolled."""
    loops: dict[str, Callable[[], str]]
    """Their loops' sources, written at `link`."""
    elements: dict[str, tuple[str, int]]
    """Outputs that are items of a loop's list (`_looped_variables`): the list's name, where."""
    pending: dict[Node, tuple[str, int]]
    """Cotangents that are items of a backward loop's list (`BackwardLoops._given`, or a
    variable an earlier node reads too: `_variables_of_loop`): the list's name, where;
    named by a statement when the sweep reads one (`_unpend`), or streamed by the loop of
    the run they belong to (`_outside`, `_prior`)."""
    readers_of: InputReaders | None
    """Who reads the inputs in the last order asked about (`_input_readers`)."""
    stacks: list[tuple[dict[Node, int], list[Period], list[Ordered]]]
    """Per order whose runs were rolled with their values kept (`forward`'s ``stacked``):
    where its nodes are, and its rolled runs (`_looped`)."""
    sweep_loops: bool
    """Whether the sweep sweeps the runs `forward` rolled by loops (`backward_loops`): not
    where no sweep follows (``stacked``) or the forward is in depth order (`_by_depth`)."""
    reroll_left: bool
    """Whether `link` rolls the statements left (`reroll`): not a loss over data points'
    whose runs loops computed and swept (`ForwardPass._sunk`), whose heads and tails would
    roll into loops of a few iterations, slower than straight code."""
    _stacked: dict[tuple[int, int], str]
    """(run's id, slot) -> its values' list."""

    # linked
    sources: list[str]
    """The generated chunks and loops, once linked (for tests and debugging)."""
    calls: tuple[int, int]
    """A batch, once linked: the NumPy calls a run makes (a loop's, once an iteration) and
    the statements of the per-example code (`vmapped`'s break-even)."""
    lone: Chunk | None
    """The program, once linked, if one chunk."""
    _unpacked: set[str]
    """The items `link` gave a statement of their own."""

    def __init__(
        self,
        inputs: Sequence[Node],
        options: Options,
        floats: Sequence[Node] = (),
        batch: Dialect | None = None,
    ) -> None:
        """Statements over ``inputs``; ``floats`` are those that are plain numbers when eager.

        A scalar program's long runs of repeated nodes are written as loops
        from the start (`compiler.periods`).

        Compiled code reproduces the eager call: what is a float there (a
        non-differentiated argument, anything computed from floats alone) is
        computed as Python computes floats, with IEEE results where Python
        would raise; what is a node there is computed by the node's rules.
        The difference is visible in `Pow`: ``x ** c`` for a node ``x`` and a
        number ``c`` takes PyTorch's scalar-exponent path, ``c ** d`` is C ``pow``.
        """
        self.options = options
        self.budget = budget = options.budget
        self.batch = batch
        # statements written before `reroll` rolls runs into loops (a batch's too, at `link`)
        self.limit = max(budget, options.trace_limit)
        self.rolls = batch is None
        self._start_nodes(inputs, floats)
        self._start_batch(batch)
        self._start_statements()
        self._start_runs()

    def _start_nodes(self, inputs: Sequence[Node], floats: Sequence[Node]) -> None:
        """The inputs named ``a0``, ``a1``, ..., and how the eager call holds each."""
        self.floats = set(floats)
        self.plain_inputs = frozenset(floats)
        self.names = {x: f"a{i}" for i, x in enumerate(inputs)}
        self.input_nodes = list(inputs)
        self.input_names = [f"a{i}" for i in range(len(inputs))]

    def _start_batch(self, batch: Dialect | None) -> None:
        """What varies over a batch: none of it in a scalar program."""
        self.batch_of = dict(batch.batch_of) if batch is not None else {}
        self.sizes = batch.sizes if batch is not None else ()
        self.array_batches = batch.arrays if batch is not None else frozenset()
        self.varying = {self.input_names[i] for i in batch.varying} if batch is not None else set()
        self.reductions = set()
        self.vcot = {}
        self.surely = set(self.varying)
        self.packable = {}

    def _start_statements(self) -> None:
        """No statement, constant, memo of code or linked chunk yet."""
        self.stmts = []
        self.written = []
        self.consts = {}
        self.const_values = []
        self.seed = None
        self.walk = Walk()
        self.first_output = None
        self.spans = []
        self.reads_r = False
        self._forward_forms = {}
        self._rule_forms = {}
        self.sources = []
        self.calls = (0, 0)
        self.lone = None
        self._unpacked = set()

    def _start_runs(self) -> None:
        """No run written as a loop yet."""
        self.rolled = []
        self.loops = {}
        self.elements = {}
        self.pending = {}
        self.readers_of = None
        self.stacks = []
        self.sweep_loops = True
        self.reroll_left = True
        self._stacked = {}

    def _input_readers(self, order: list[Ordered]) -> Counter[Node]:
        """How many nodes of ``order`` read each input (`InputReaders`, once an order)."""
        return self._readers(order).counts

    def _readers(self, order: list[Ordered]) -> InputReaders:
        """Who reads the inputs in ``order`` (`InputReaders`, made once an order)."""
        if self.readers_of is None or self.readers_of.order is not order:
            self.readers_of = InputReaders(order, self.input_nodes)
        return self.readers_of

    def _read_elsewhere(self, order: list[Ordered], xs: Sequence[Node]) -> bool:
        """Whether a node of ``order`` besides its one reader reads one of the inputs ``xs``.

        Most programs read each input once: then this answers at once.
        """
        readers = self._readers(order)
        return readers.twice and max(map(readers.counts.__getitem__, xs), default=0) > 1

    def _read_before(self, order: list[Ordered], x: Node, p: int) -> bool:
        """Whether a node of ``order`` before position ``p`` reads input ``x``."""
        readers = self._readers(order)
        return readers.counts[x] > 1 and readers.first()[x] < p

    def const(self, value: float) -> str:
        """A name for a constant, shared by every constant with the same bits."""
        key = struct.pack("<d", value)
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = f"k{len(self.const_values)}"
            self.const_values.append(value)
        return name

    def _check(self, more: int, cap: int | None = None) -> None:
        """Raise `GraphTooBigError` if ``more`` statements would pass ``cap`` (the trace limit)."""
        cap = self.limit if cap is None else cap
        if len(self.stmts) + more > cap:
            raise GraphTooBigError(
                f"{len(self.stmts) + more:,} statements, over the {cap:,} allowed"
            )

    def emit(
        self,
        target: str,
        expr: str,
        uses: tuple[str, ...],
        form: object = None,
        elementwise: Elementwise | None = None,
    ) -> None:
        """Append a statement; ``form``: the shared `Form` it was written from, if any.

        In a batch, a statement that reads an array holds one (`varying`), but a
        reduction (a sum over the batch), which is one number again. Batched
        code written on `Sym` says whether it is ``elementwise`` (None: not
        known, so not packable: a sum, a guard, an item of a list).
        """
        self.stmts.append((target, expr, uses))
        self.written.append(form)
        varying = self.varying
        if varying and target not in self.reductions and not varying.isdisjoint(uses):
            varying.add(target)
            if elementwise is not None and elementwise[0]:
                self.packable[target] = elementwise[1]
                self.surely.add(target)

    def _batched(self, names: Sequence[str]) -> bool:
        """Whether code reading ``names`` runs over a batch: written in its NumPy dialect."""
        return bool(self.varying) and not self.varying.isdisjoint(names)

    def _sym(self, node: Node) -> Sym:
        """``node``'s value in code a rule writes: a template's field (`stmts`).

        In a batch it says whether it surely holds an array (`Sym.array`).
        """
        name = self.names[node]
        if type(node) is not Const:
            if self.surely:
                return Sym(ref(name), (name,), array=name in self.surely)
            return Sym(ref(name), (name,))
        # a scalar program's 1.0 (an inner transform's seed, a variable's mark) multiplies nothing
        return Sym(ref(name), (name,), node.value, node.value == 1.0 and self.batch is None)

    def _slot_syms(
        self, node: Node, ins: tuple[Node, ...], names: list[str], own: bool
    ) -> tuple[Op, dict[Node, Sym]]:
        """``node`` as the eager call built it, and stand-ins for its input slots.

        Slot i's input is ``{_i}`` (a slot holding the node of an earlier slot
        stands for that one), the node's own value ``{_n}`` after them if
        ``own``: code written on these is its key's, filled in with each node's
        ``names`` (`to_form`). A constant keeps its value (a rule may fold it);
        in a batch, a name says whether it surely holds an array (`Sym.array`).
        An input that is a plain number in the eager call was lifted to a
        `Const` there (``x ** c`` takes PyTorch's scalar path); traced, it is a
        variable, so the rule runs on a copy with a stand-in `Const`.
        """
        syms: dict[Node, Sym] = {}
        surely, scalar = self.surely, self.batch is None
        for i, x in enumerate(ins):
            if x in syms:
                continue
            f = f"_{i}"
            if type(x) is Const:
                # a scalar program's 1.0 (an inner transform's seed, a variable's mark)
                # multiplies nothing
                syms[x] = Sym(ref(f), (f,), x.value, x.value == 1.0 and scalar)
            else:
                syms[x] = Sym(ref(f), (f,), array=names[i] in surely)
        if own:
            f = f"_{len(ins)}"
            syms[node] = Sym(ref(f), (f,), array=names[len(ins)] in surely)
        op = cast(Op, node)  # only nodes with inputs get here
        c = op.const_variant
        if c is None or ins[c] not in self.floats:
            return op, syms
        return as_eager(op, c, syms), syms

    def _rule_code(
        self,
        node: Node,
        ins: tuple[Node, ...],
        eqn_key: int,
        names: list[str],
        own: bool,
        unit: bool,
    ) -> list[RuleCode | None]:
        """The node's ``vjp`` rule run on `Sym`: each input's contribution (None: none).

        ``names``: what the code reads, per input slot, the node's own value
        if ``own``, and the cotangent last, ``unit`` if it is the seed ``1.0``.
        The rule runs once per key (its equation's, `equations.walk`, and what
        else the code depends on), on stand-ins for its slots (`_slot_syms`) and
        the cotangent after them; nodes with the same key reuse its code with
        their own names. In a batch, each contribution also says what it is
        (`Elementwise`), which depends on which names are arrays.
        """
        batched = self._batched(names)
        key = (eqn_key, own, unit, self._arrays_among(names) if batched else False)
        forms = self._rule_forms.get(key)
        if forms is None:
            eager, syms = self._slot_syms(node, ins, names, own)
            f = f"_{len(names) - 1}"
            gs = Sym(ref(f), (f,), unit=unit, array=names[-1] in self.surely)
            with arrays() if batched else contextlib.nullcontext():
                rule = eager.vjp(gs, syms.__getitem__)
            outs = [None if o is None else sym(o) for o in rule]
            forms = self._rule_forms[key] = [None if o is None else _code(o, batched) for o in outs]
        return forms

    def _arrays_among(self, names: list[str]) -> tuple[bool, ...]:
        """Which of ``names`` surely hold arrays: what batched code's `Elementwise` depends on."""
        surely = self.surely
        return tuple([name in surely for name in names])

    def _iteration(self, order: list[Ordered], per: Period, q: int) -> list[Node]:
        """The nodes of a run's iteration ``q``."""
        return [x for x, _ in order[per.first(q) : per.first(q + 1)]]

    def _fixed(self, order: list[Ordered], per: Period) -> list[Node]:
        """The nodes every iteration of a run reads (their cotangents add up over it)."""
        return [order[f][0] if f >= 0 else self.input_nodes[-1 - f] for f in per.fixed]


def to_form(src: str, uses: tuple[str, ...]) -> Form:
    """A template ``src`` over slot stand-ins ``_0``, ``_1``, ... (`Writer._slot_syms`) as a `Form`.

    The form's format string, given a statement's names (one per slot), gives
    its template: ``"tanh({_0})"`` is ``"tanh({{{0}}})"``.
    """
    numbered = Fields(lambda name: "{{{" + name[1:] + "}}}")  # the slot's field, in braces
    return src.format_map(numbered), tuple([int(u[1:]) for u in uses])


def _code(s: Sym, batched: bool) -> RuleCode:
    """A contribution's `RuleCode`, from the rule's `Sym`."""
    form = to_form(s.src, s.uses)
    return form, form_elementwise(s) if batched else None, alias_slot(form[0])


def alias_slot(fmt: str) -> int | None:
    """The slot a form's code is, if it is one slot's name alone (``{{{1}}}``).

    A product with ``1.0`` (`Sym.unit`), or ``Add``'s cotangent passed on.
    """
    if fmt[:3] == "{{{" and fmt[-3:] == "}}}" and fmt[3:-3].isdigit():
        return int(fmt[3:-3])
    return None


def form_elementwise(s: Sym) -> FormElementwise:
    """What batched code ``s`` says of itself (`Elementwise`), its names as slots."""
    return s.array, tuple(sorted(int(x[1:]) for x in s.fixed))


def named_elementwise(e: FormElementwise, names: list[str]) -> Elementwise:
    """A form's `FormElementwise` for a statement over ``names``."""
    return e[0], frozenset([names[i] for i in e[1]]) if e[1] else _NONE


_NONE: frozenset[str] = frozenset()


class InputReaders:
    """How many nodes of an order read each input, and where the first one is.

    Counted once an order: a wide program's runs each ask, and its order is
    200,000 nodes. Where the first reader is is found only if asked, and only
    for inputs read more than once.
    """

    __slots__ = ("_first", "counts", "order", "twice")

    def __init__(self, order: list[Ordered], inputs: Sequence[Node]) -> None:
        self.order = order
        known = set(inputs)
        self.counts = Counter(x for _, ins in order for x in dict.fromkeys(ins) if x in known)
        self.twice = max(self.counts.values(), default=0) > 1
        self._first: dict[Node, int] | None = None

    def first(self) -> dict[Node, int]:
        """Each input read more than once: the position of its first reader."""
        if self._first is None:
            counts, first = self.counts, dict[Node, int]()
            for q, (_, ins) in enumerate(self.order):
                for y in ins:
                    if counts[y] > 1:
                        first.setdefault(y, q)
            self._first = first
        return self._first
