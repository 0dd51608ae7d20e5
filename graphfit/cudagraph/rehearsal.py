"""A dress rehearsal of a plan's capture: every graph captured over the plan's buffers with
toy forwards, then one batch replayed per captured shape and compared with eager.

What `graphfit rehearse` runs. It proves, for a config, that the runtime allocates every
buffer the plan sizes, takes every static view its graphs need (a short buffer is a
CapacityError before the first capture), captures every graph of every component in one
session (one backend, largest first across components, as an engine does), and that a batch
dispatched to each graph replays equal to the eager run of the same batch.

The toy forward of a component reads every buffer with exactly one row per token (input ids,
positions, slot mappings, hidden states...): each is flattened to [tokens, width], its first
FEATURES columns sent through its own small linear layer, and the layers' outputs are
summed -- one output row per token, the runtime's output contract. The layers multiply and
sum with elementwise operations in a fixed order (`_row_exact_linear`), so a row's output
bits depend on that row alone: a replay over a padded graph (its probe batch, or one token
shorter where host staging copies carry the tail) must equal the eager run bit for bit.

On the CUDA backend (`device="cuda"`) the same toy forwards run on the GPU and real CUDA
graphs are captured in one memory pool; a replay launches the kernels the eager run
launches on the same shapes, so it is compared bit for bit too, and the capture report
carries the device bytes each graph took.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch

from graphfit.cudagraph.backends import Backend
from graphfit.cudagraph.buffers import SharedBuffers, StaticBuffers
from graphfit.cudagraph.capture import CaptureReport, CaptureSession, ProgressFn
from graphfit.cudagraph.compact import COMPONENT as COMPACT
from graphfit.cudagraph.compact import CompactVerifyRunner
from graphfit.cudagraph.fill import fill_tail
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.cudagraph.keyed_buffers import KeyedBufferRunner, graph_reads, real_rows
from graphfit.cudagraph.runner import GraphRunner
from graphfit.planner import Axis, CUDAGraphMode, FillKind, GraphfitError, GraphKey, Plan

VIT = "vit"  # SGLang's vision-encoder graphs' keyed component (its own runner)

WIDTH = 8  # features of the toy forward's output rows
FEATURES = 64  # features of each input row the toy forward reads (hidden states: the first)
_SEED = 0


@dataclass(frozen=True)
class ComponentRehearsal:
    """One component's part: graphs captured, probe batches replayed, mismatches."""

    component: str
    inputs: tuple[str, ...]  # the buffers its toy forward reads
    graphs: int
    replayed: int
    unreached: tuple[GraphKey, ...]  # captured keys no probe batch dispatched to
    mismatches: tuple[GraphKey, ...]  # replay != eager

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.unreached


@dataclass(frozen=True)
class Rehearsal:
    components: tuple[ComponentRehearsal, ...]
    skipped: tuple[str, ...]  # components without graphs (or buffers), Kimi K3's ViT
    capture: CaptureReport

    @property
    def graphs(self) -> int:
        return sum(c.graphs for c in self.components)

    @property
    def replayed(self) -> int:
        return sum(c.replayed for c in self.components)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.components)


def _row_exact_linear(rows: torch.Tensor, layer: torch.nn.Linear) -> torch.Tensor:
    """`layer(rows)` computed with elementwise products and a fixed pairwise sum over the
    input features. A BLAS matmul may pick another kernel (another summation order) for 7
    rows than for 8, so a padded replay's real rows could differ from the eager run's in the
    last bit; elementwise operations round each element alone, whatever the row count."""
    terms = rows.unsqueeze(-1) * layer.weight.t()  # [rows, features, WIDTH]
    while terms.shape[1] > 1:
        half = terms.shape[1] // 2
        paired = terms[:, :half] + terms[:, half:2 * half]
        terms = torch.cat([paired, terms[:, 2 * half:]], dim=1) if terms.shape[1] % 2 \
            else paired
    out: torch.Tensor = terms[:, 0] + layer.bias
    return out


class ToyForward(torch.nn.Module):
    """Sum of one linear layer per per-token buffer: one output row per token."""

    def __init__(self, widths: Mapping[str, int], axis_dims: Mapping[str, int]) -> None:
        super().__init__()
        torch.manual_seed(_SEED)
        self.axis_dims = dict(axis_dims)
        self.layers = torch.nn.ModuleDict(
            {name: torch.nn.Linear(min(width, FEATURES), WIDTH)
             for name, width in widths.items()})

    def forward(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        out: torch.Tensor | None = None
        for name, layer in self.layers.items():
            view = views[name].movedim(self.axis_dims[name], 0)
            rows = view.reshape(view.shape[0], -1)[:, :FEATURES].float()
            assert isinstance(layer, torch.nn.Linear)  # what __init__ puts there
            term = _row_exact_linear(rows, layer)
            out = term if out is None else out + term
        assert out is not None
        return out


class KeyedToyForward(torch.nn.Module):
    """A keyed component's toy forward: one linear layer over (input id, position) per token
    (the longest-request bucket the graph bakes in changes no real row). Given requests'
    boundaries (`cu_seqlens`, with `seq_lens`: fixed slots), each request's real tokens also
    see the sum of its real input ids, added elementwise (exact, so a replay's real rows equal
    the eager run's bit for bit): a wrong boundary or length changes them."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(_SEED)
        self.layer = torch.nn.Linear(2, WIDTH)

    def forward(self, views: Mapping[str, torch.Tensor], *, longest: int) -> torch.Tensor:
        del longest
        rows = torch.stack([views["input_ids"], views["position_ids"]], dim=1).float()
        out = _row_exact_linear(rows, self.layer)
        if "cu_seqlens" in views:
            bounds, lens = views["cu_seqlens"].long(), views["seq_lens"].long()
            index = torch.arange(rows.shape[0], device=rows.device)
            owner = torch.bucketize(index, bounds[1:], right=True).clamp(max=lens.shape[0] - 1)
            real = (index - bounds[owner]) < lens[owner]
            ids = views["input_ids"].float() * real
            sums = torch.zeros(lens.shape[0], device=rows.device).index_add_(0, owner, ids)
            out = out + (sums[owner] * real).unsqueeze(1) * 0.001
        return out


class BufferToyForward(torch.nn.Module):
    """A keyed component's toy forward over its own buffers (per-request features, a tower's
    token-row inputs): per buffer, the first FEATURES columns of each row through an
    elementwise affine map of its own, one output tensor per buffer. Elementwise, so a row's
    output does not depend on how many rows the call holds (a matmul's blocking may): the
    real rows of a padded graph's replay equal the eager run's bit for bit."""

    def __init__(self, widths: Mapping[str, int], axis_dims: Mapping[str, int]) -> None:
        super().__init__()
        torch.manual_seed(_SEED)
        self.axis_dims = dict(axis_dims)
        self.names = tuple(widths)
        self.scales = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(min(widths[n], FEATURES))) for n in self.names])
        self.biases = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(min(widths[n], FEATURES))) for n in self.names])

    def forward(self, views: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
        out = []
        for name, scale, bias in zip(self.names, self.scales, self.biases, strict=True):
            view = views[name].movedim(self.axis_dims[name], 0)
            rows = view.reshape(view.shape[0], -1)[:, :FEATURES].float()
            out.append(rows * scale + bias)
        return tuple(out)


def _buffer_runner(p: Plan, name: str, session: CaptureSession, device: str
                   ) -> KeyedBufferRunner:
    """The runner of a keyed component whose graphs read their own buffers, with its toy
    forward (one layer per buffer the graphs read)."""
    comp = p.keyed[name]
    reads = graph_reads(comp.buffers)
    widths = {}
    for b in comp.buffers:
        if b.name in reads:
            per_row = 1
            for dim in (*b.shape[:b.axis_dim], *b.shape[b.axis_dim + 1:]):
                per_row *= dim
            widths[b.name] = max(per_row, 1)
    dims = {b.name: b.axis_dim for b in comp.buffers if b.name in widths}
    model = BufferToyForward(widths, dims).to(device)
    return KeyedBufferRunner(model, p, name, session=session, device=device)


def _batch_rows(runner: KeyedBufferRunner, counts: tuple[int, ...], gen: torch.Generator
                ) -> dict[str, torch.Tensor]:
    """Random real rows of a batch for each buffer the graphs read."""
    out = {}
    for name in runner.reads:
        spec, full = runner.specs[name], runner.buffers[name]
        shape = list(full.shape)
        shape[spec.axis_dim] = real_rows(spec, counts)
        if full.dtype.is_floating_point:
            rows = torch.randn(shape, generator=gen).to(full.dtype)
        else:
            rows = torch.randint(0, 1000, shape, generator=gen).to(full.dtype)
        out[name] = rows.to(full.device)
    return out


def _buffer_rehearsal(runner: KeyedBufferRunner, gen: torch.Generator) -> ComponentRehearsal:
    """Each captured key replayed with the plan's witness batch (its real rows staged, the
    padding filled, staging copies used in turn), against the same batch run eagerly."""
    comp = runner.keyed
    replayed, unreached, bad = 0, [], []
    for key in comp.graph_keys:
        witness = comp.witness(key)
        counts = comp.counts(witness)
        batch = _batch_rows(runner, counts, gen)
        for buf in runner.buffers.values():  # poison: no stale row may leak
            buf.fill_(-1)
        got = runner.step(witness, batch)
        graph_key = GraphKey(comp.dispatch.rows(key), None)
        if runner.last_key != key:
            unreached.append(graph_key)
            continue
        staged = _staged_rows(runner, key, batch, counts)
        ref = runner.step(witness, batch, eager=True)
        replayed += 1
        if not staged or not all(torch.equal(a, b) for a, b in zip(got, ref, strict=True)):
            bad.append(graph_key)
    inputs = tuple(f"{n} (staged from host)" if n in runner.staging else n
                   for n in runner.reads)
    return ComponentRehearsal(runner.component, inputs, len(runner.graphs), replayed,
                              tuple(unreached), tuple(bad))


def _compact_rehearsal(runner: CompactVerifyRunner, gen: torch.Generator
                       ) -> ComponentRehearsal:
    """SGLang DSPARK's compact tiers (captured in the session, graphfit.cudagraph.compact):
    each replayed with its witness batch (uniform: T / width requests of width tokens) and,
    where one reaches the same tier, a ragged batch of one token less; both against eager
    (one replay counted per tier)."""
    comp = runner.keyed
    replayed, unreached, bad = 0, [], []
    for tier in comp.graph_keys:
        witness = comp.probe(tier)
        probes = [witness]
        if len(witness) < sum(witness) - 1 and max(witness) > 1:
            ragged = list(witness)
            ragged[0] -= 1  # one request verifies a token less: the same tier, ragged
            probes.append(tuple(ragged))
        key = GraphKey(tier, comp.dispatch.rows_of(tier, "verify_lens"))
        reached = equal = True
        for lens in probes:
            ids = torch.randint(0, 1000, (sum(lens),), generator=gen).to(runner.out.device)
            runner.input_ids.fill_(-1)  # poison: a row the batch does not write must not leak
            runner.out.fill_(-1)
            got = runner.step(ids, lens)
            reached = reached and runner.last_key == tier
            equal = equal and torch.equal(got, runner.step(ids, lens, eager=True))
        if not reached:
            unreached.append(key)
            continue
        replayed += 1
        if not equal:
            bad.append(key)
    return ComponentRehearsal(COMPACT, ("target.input_ids", "verify_lens"), len(runner.graphs),
                              replayed, tuple(unreached), tuple(bad))


def _reads_tokens(p: Plan, name: str) -> bool:
    """Whether keyed component `name` has token-row buffers (what KeyedToyForward reads)."""
    return any(b.axis is Axis.TOKENS for b in p.keyed[name].buffers)


def _keyed_rehearsal(p: Plan, runner: KeyedGraphRunner, gen: torch.Generator
                     ) -> ComponentRehearsal:
    """Each captured key replayed with the plan's witness batch (one split of its counts)
    and, where one reaches the same key, the witness with one token less (a padded tail for
    the staged rows to zero), each against the same batch run eagerly (one replay counted per
    key)."""
    comp = p.keyed[runner.component]
    replayed, unreached, bad = 0, [], []
    for key in sorted(runner.graphs):
        witness = tuple(comp.probe(key))
        graph_key = GraphKey(runner.dispatch.rows(key), key[0])
        reached = equal = True
        for lens in (witness, *_one_token_less(witness)):
            ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32
                                ).to(runner.input_ids.device)
            runner.input_ids.fill_(-1)  # poison: a row the batch does not write must not leak
            runner.position_ids.fill_(-1)
            for copies in runner.staging.values():  # the host staging copies too
                copies.fill_(-1)
            if runner.seq_lens_cuda is not None:  # and the graphs' device lengths
                runner.seq_lens_cuda.fill_(-1)
            # (a fixed-slot graph's boundaries are written once, at capture: not poisoned)
            got = runner.step(ids, lens)
            if runner.last_key != key:
                reached = reached and lens != witness  # a shorter batch may take another key
                continue
            ref = runner.step(ids, lens, eager=True)
            equal = equal and torch.equal(got, ref) and _staged_tokens(runner, key, ids, lens)
        if not reached:
            unreached.append(graph_key)
            continue
        replayed += 1
        if not equal:
            bad.append(graph_key)
    # a buffer refilled from its host staging copy is named as such in the report
    inputs = tuple(f"{n} (staged from host)" if n in runner.staging else n
                   for n in ("input_ids", "position_ids"))
    if runner.capture_offsets is not None:  # fixed slots' boundaries, written at capture
        inputs += ("capture_offsets_cuda (fixed per graph)",)
    return ComponentRehearsal(runner.component, inputs, len(runner.graphs), replayed,
                              tuple(unreached), tuple(bad))


def _one_token_less(lens: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The batch with its longest request one token shorter (none when every request has
    one token)."""
    top = max(range(len(lens)), key=lambda i: lens[i])
    if lens[top] < 2:
        return ()
    return (tuple(n - (i == top) for i, n in enumerate(lens)),)


def _staged_tokens(runner: KeyedGraphRunner, key: tuple[int, ...], ids: torch.Tensor,
                   lens: tuple[int, ...]) -> bool:
    """Whether the device token rows the replayed graph read are the batch's ids and
    per-request positions, then zeros up to the key's rows: what the engine's replay stages
    (a stale host row or a short host-to-device copy leaves a poisoned row there, which the
    real rows' output alone may not show); and, where the plan has the graphs' device
    lengths (`seq_lens_cuda`), the key's request rows there: the batch's lengths, then 1 for
    each one-token dummy."""
    rows = runner.dispatch.rows(key)
    pad = torch.zeros(rows - len(ids), dtype=torch.int32)
    positions = torch.cat([torch.arange(n, dtype=torch.int32) for n in lens])
    want = {"input_ids": torch.cat([ids.cpu().to(torch.int32), pad]),
            "position_ids": torch.cat([positions, pad])}
    padded = [*lens, *[1] * (key[0] - len(lens))]
    if runner.capture_offsets is not None:  # fixed slots: each request at its slot's offset
        return _slotted_tokens(runner, key, ids, lens, padded)
    if runner.seq_lens_cuda is not None:  # the batch's lengths, then 1 per one-token dummy
        b = key[0]
        want["seq_lens_cuda"] = torch.tensor(padded, dtype=torch.int32)
        rows_of = {"seq_lens_cuda": b}
    else:
        rows_of = {}
    return all(torch.equal(getattr(runner, name)[:rows_of.get(name, rows)].cpu(), tensor)
               for name, tensor in want.items())


def _slotted_tokens(runner: KeyedGraphRunner, key: tuple[int, ...], ids: torch.Tensor,
                    lens: tuple[int, ...], padded: list[int]) -> bool:
    """Fixed slots: the key's boundaries are its layout's running sums; each request's ids
    and positions sit at the offset of a slot that holds it (distinct slots), zeros
    elsewhere; the device lengths are the slots' (1 for a dummy, 0 for none)."""
    layout = runner.slot_layouts[key]
    bounds = [0]
    for length in layout:
        bounds.append(bounds[-1] + length)
    if runner._boundaries(key).cpu().tolist() != bounds:
        return False
    starts = runner.last_slots
    slot_of = {b: i for i, b in enumerate(bounds[:-1])}
    slots = [slot_of.get(s) for s in starts]
    if None in slots or len(set(slots)) != len(slots) or any(
            n > layout[i] for n, i in zip(lens, slots, strict=True) if i is not None):
        return False
    rows = runner.dispatch.rows(key)
    want_ids = torch.zeros(rows, dtype=torch.int32)
    want_pos = torch.zeros(rows, dtype=torch.int32)
    slot_lens = [0] * key[0]
    source = 0
    for start, n, slot in zip(starts, lens, slots, strict=True):
        want_ids[start:start + n] = ids[source:source + n].cpu()
        want_pos[start:start + n] = torch.arange(n, dtype=torch.int32)
        slot_lens[slot or 0] = n
        source += n
    free = [i for i in range(key[0]) if i not in slots]
    for i, n in zip(free, padded[len(lens):], strict=True):  # the dummies' slots
        slot_lens[i] = n
    device_lens = runner.seq_lens_cuda if runner.seq_lens_cuda is not None else runner.seq_lens
    assert device_lens is not None
    return (torch.equal(runner.input_ids[:rows].cpu(), want_ids)
            and torch.equal(runner.position_ids[:rows].cpu(), want_pos)
            and device_lens[:key[0]].cpu().tolist() == slot_lens)


def _staged_rows(runner: KeyedBufferRunner, key: object, batch: Mapping[str, torch.Tensor],
                 counts: tuple[int, ...]) -> bool:
    """Whether each staged buffer's device rows the replayed graph read are the batch's
    rows, then its padding fill up to the key's rows (refilled from its host copy)."""
    for name in runner.staging:
        spec = runner.specs[name]
        rows, real = runner.dispatch.rows_of(key, name), real_rows(spec, counts)
        got = runner.buffers[name].narrow(spec.axis_dim, 0, rows).cpu()
        want = torch.empty_like(got)
        want.narrow(spec.axis_dim, 0, real).copy_(batch[name].cpu())
        fill_tail(want, spec.axis_dim, real, spec.fill)
        if not torch.equal(got, want):
            return False
    return True


def vit_rehearsable(p: Plan) -> bool:
    """Whether the plan's `vit` component is one graphfit.cudagraph.vit rehearses (not Kimi
    K3's whole-tower graphs: listed as skipped)."""
    from graphfit.cudagraph.vit import rehearsable

    return rehearsable(p)


def _vit_rehearsal(p: Plan, backend: str | Backend, device: str) -> ComponentRehearsal:
    """The `vit` component: every key captured over the plan's static buffers and replayed
    with its witness call against eager (graphfit.cudagraph.vit)."""
    from graphfit.cudagraph.vit import rehearse_plan

    comp = p.keyed[VIT]
    report = rehearse_plan(p, backend=backend, device=device, seed=_SEED)
    assert report is not None
    # a key whose witness call did not replay its graph is a mismatch there too
    bad = tuple(GraphKey(comp.dispatch.rows(k), len(comp.witness(k)))
                for k in report.mismatches)
    return ComponentRehearsal(VIT, tuple(b.name for b in comp.buffers), report.graphs,
                              report.replayed, (), bad)


def _token_inputs(p: Plan, bufs: StaticBuffers) -> dict[str, int]:
    """Buffer name -> features per row, for the buffers with exactly one row per token."""
    component = p.component(bufs.name)
    out = {}
    for name in bufs:
        rule = component.row_rule(name)
        if rule is None or rule.single != ("tokens", 0) or bufs.spec(name).init == "arange" \
                or bufs.spec(name).stages:  # a host staging copy: the graph reads its buffer
            continue
        tensor = bufs[name]
        axis = bufs.spec(name).axis_dim
        out[name] = tensor.numel() // max(tensor.shape[axis], 1)
    return out


def _probe(runner: GraphRunner, key: GraphKey) -> tuple[int, int, bool] | None:
    """(tokens, requests, uniform) of a batch the plan dispatches to `key`: one with exactly
    `key.padded` tokens where the scheduler can build it, else the largest uniform batch
    (q tokens a request) that pads to it; None when none of the candidates does."""
    n, q, top = key.padded, runner.uniform_query_len, runner.max_num_seqs
    candidates: list[tuple[int, int, bool]] = []
    if key.num_reqs is not None:
        candidates += [(n, key.num_reqs, True), (n, key.num_reqs, False)]
    if q and n % q == 0 and n // q <= top:
        candidates.append((n, n // q, True))
    candidates += [(n, r, False) for r in dict.fromkeys((min(n, top), 1))]
    if q:  # a uniform batch that pads to `n` without filling it: the only kind of batch a
        # component with uniform decode graphs alone (a proposer) reaches where q does not
        # divide the key, or the key needs more than max_num_seqs requests
        reqs = min(n // q, top)
        candidates.append((reqs * q, reqs, True))
    for tokens, reqs, uniform in candidates:
        if reqs < 1 or reqs > top or reqs > tokens:
            continue
        try:
            dispatch = runner.dispatch(tokens, num_reqs=reqs, uniform_decode=uniform)
        except GraphfitError:  # a shape the scheduler never builds (BatchError)
            continue
        if dispatch.mode is not CUDAGraphMode.NONE and runner.key(dispatch) == key:
            return tokens, reqs, uniform
    return None


def _batch(p: Plan, runner: GraphRunner, gen: torch.Generator, tokens: int, reqs: int
           ) -> dict[str, torch.Tensor]:
    """Random real rows for the runner's inputs."""
    component = p.component(runner.component)
    out = {}
    for name in runner.graph_inputs:
        rule = component.row_rule(name)
        assert rule is not None
        spec, full = runner.buffers.spec(name), runner.buffers[name]
        written = runner.buffers[runner.staging.get(name, name)]  # where the batch is written
        shape = list(full.shape)
        shape[spec.axis_dim] = rule.rows(tokens, reqs)
        if full.dtype.is_floating_point:  # drawn on the CPU generator: same rows on any device
            rows = torch.randn(shape, generator=gen).to(full.dtype)
        elif full.dtype == torch.bool:
            rows = torch.randint(0, 2, shape, generator=gen).bool()
        else:
            rows = torch.randint(0, 1000, shape, generator=gen).to(full.dtype)
        out[name] = rows.to(written.device)
    return out


def _staged_inputs(runner: GraphRunner, batch: Mapping[str, torch.Tensor],
                   eager: bool = False) -> bool:
    """Whether each staged input's device rows the step read are the batch's rows followed
    (on a replay) by its padding fill up to the graph's rows: what its host staging copy
    held. The buffers are poisoned before each step, so a missed or stale copy shows."""
    dispatch = runner.last_dispatch
    key = None if eager or dispatch is None or dispatch.mode is CUDAGraphMode.NONE \
        else runner.key(dispatch)
    for name in runner.staging:
        if name not in batch:
            continue
        spec = runner.buffers.spec(name)
        real = int(batch[name].shape[spec.axis_dim])
        rows = real if key is None else runner.graphs[key].static_rows[name]
        expected = torch.empty_like(runner.buffers.view(name, rows), device="cpu")
        expected.narrow(spec.axis_dim, 0, real).copy_(batch[name].cpu())
        if spec.fill.kind is not FillKind.KEEP:
            fill_tail(expected, spec.axis_dim, real, spec.fill)
        else:
            rows = real
            expected = expected.narrow(spec.axis_dim, 0, real)
        if not torch.equal(runner.buffers.view(name, rows).cpu(), expected):
            return False
    return True


def _shorter(runner: GraphRunner, key: GraphKey, probe: tuple[int, int, bool]
             ) -> tuple[tuple[int, int, bool], ...]:
    """For a runner with host staging copies: a mixed batch one token shorter than the probe
    that still replays `key`, so the padded tail goes through the copies too (none when
    there is no such batch, or nothing is staged)."""
    tokens, reqs, _ = probe
    if not runner.staging or tokens < 2:
        return ()
    shorter = (tokens - 1, min(reqs, tokens - 1), False)
    try:
        dispatch = runner.dispatch(shorter[0], num_reqs=shorter[1])
    except GraphfitError:
        return ()
    if dispatch.mode is CUDAGraphMode.NONE or runner.key(dispatch) != key:
        return ()
    return (shorter,)


def _replay_equals_eager(runner: GraphRunner, batch: Mapping[str, torch.Tensor], reqs: int,
                         uniform: bool) -> bool:
    """The batch replayed and run eagerly, each after poisoning the inputs and staging
    copies: equal outputs, and every staged input's device rows what its copy held."""
    poisoned = (*runner.graph_inputs, *runner.staging.values())
    runner.buffers.poison(poisoned)
    got = runner.step(batch, num_reqs=reqs, uniform_decode=uniform)
    got = got.clone() if isinstance(got, torch.Tensor) else got
    staged = _staged_inputs(runner, batch)
    runner.buffers.poison(poisoned)
    ref = runner.step(batch, num_reqs=reqs, uniform_decode=uniform, eager=True)
    assert isinstance(got, torch.Tensor) and isinstance(ref, torch.Tensor)
    return staged and torch.equal(got, ref) and _staged_inputs(runner, batch, eager=True)


def rehearse(p: Plan, *, backend: str | Backend | None = None,
             progress: ProgressFn | None = None, device: str = "cpu") -> Rehearsal:
    """Allocate, capture every graph of every component in one session, replay one batch
    per captured graph and compare it with eager.

    `device` places buffers and toy forwards; the backend defaults to the device's own
    (CPU graphs on "cpu", CUDA graphs on a CUDA device)."""
    if backend is None:
        backend = "cuda" if torch.device(device).type == "cuda" else "cpu"
    session = CaptureSession(backend, progress=progress, freeze_gc=False)
    runners: list[tuple[GraphRunner, tuple[str, ...]]] = []
    skipped: list[str] = []
    pool = SharedBuffers.allocate(p, device)  # one tensor per buffer components share
    for name in p.components:
        if not p.graph_keys(name):
            skipped.append(name)
            continue
        bufs = StaticBuffers.allocate(p, device, name, shared=pool)
        widths = _token_inputs(p, bufs)
        if not widths:
            skipped.append(name)
            continue
        model = ToyForward(widths, {n: bufs.spec(n).axis_dim for n in widths}).to(device)
        runner = GraphRunner(model, p, bufs, session=session, graph_inputs=tuple(widths))
        runners.append((runner, tuple(widths)))
    # SGLang's ViT graphs (the keyed `vit` component) run through their own runner
    # (graphfit.cudagraph.vit): keyed on image layouts, not on (requests, tokens, longest)
    # SGLang's DSPARK compact tiers run through theirs (graphfit.cudagraph.compact). The toy
    # keyed forward reads input_ids and position_ids (the components staging them)
    own = (VIT, COMPACT)
    staged = {name for name, comp in p.keyed.items()
              if any(b.name == "input_ids" for b in comp.buffers) and _reads_tokens(p, name)}
    keyed = [KeyedGraphRunner.from_plan(KeyedToyForward().to(device), p, name, session=session,
                                        device=device)
             for name, comp in p.keyed.items()
             if comp.graph_keys and name not in own and name in staged]
    # a keyed component whose graphs read their own buffers (TensorRT-LLM's feature-mode
    # encoder, its multimodal encoders) runs through graphfit.cudagraph.keyed_buffers
    buffered = [_buffer_runner(p, name, session, device) for name, comp in p.keyed.items()
                if comp.graph_keys and comp.buffers and name not in own and name not in staged]
    skipped += [name for name, comp in p.keyed.items()
                if not comp.graph_keys or not comp.buffers
                or (name == VIT and not vit_rehearsable(p))]  # Kimi K3: whole-tower graphs
    compact = (CompactVerifyRunner(p, session=session, device=device)
               if COMPACT in p.keyed and p.keyed[COMPACT].graph_keys else None)
    report = session.capture()
    gen = torch.Generator().manual_seed(_SEED)
    results = []
    with torch.no_grad():
        for runner, inputs in runners:
            replayed, unreached, bad = 0, [], []
            for key in runner.graphs:
                probe = _probe(runner, key)
                if probe is None:
                    unreached.append(key)
                    continue
                for tokens, reqs, uniform in (probe, *_shorter(runner, key, probe)):
                    batch = _batch(p, runner, gen, tokens, reqs)
                    replayed += 1
                    if not _replay_equals_eager(runner, batch, reqs, uniform):
                        bad.append(key)
            shown = tuple(f"{n} (staged from host)" if n in runner.staging else n
                          for n in inputs)
            results.append(ComponentRehearsal(runner.component, shown, len(runner.graphs),
                                              replayed, tuple(unreached), tuple(bad)))
        results += [_keyed_rehearsal(p, k, gen) for k in keyed]
        results += [_buffer_rehearsal(k, gen) for k in buffered]
    if vit_rehearsable(p):
        results.append(_vit_rehearsal(p, backend, device))
    if compact is not None:
        with torch.no_grad():
            results.append(_compact_rehearsal(compact, gen))
    return Rehearsal(tuple(results), tuple(skipped), report)
