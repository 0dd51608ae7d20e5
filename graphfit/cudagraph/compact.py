"""`CompactVerifyRunner`: SGLang DSPARK's compact verify tiers (`Plan.keyed["target_compact"]`,
graphfit.planner.engines.sglang_dspark_epilogue) captured and replayed over the plan's rows.

Why its own runner: a compact tier is an integer key T whose graph reads T token rows of the
target's inputs and slots(T) request rows of the verify epilogue (`verify_lens` and the accept
outputs), not the (requests, tokens, longest) tuple keys over private token buffers of
`KeyedGraphRunner`. The planner's dispatch says which tier a ragged batch replays
(`KeyedDispatch.lookup`) and how many rows each buffer holds there (`rows_of`); this runner
never re-derives either.

The toy forward stands for the target forward plus the epilogue: each request's tokens
reduced into its own output row by `verify_lens` (a per-token owner from the lengths' running
sum, so shapes stay static: a padded request has length 0 and owns nothing, a padded token
owns no request). A replay stages the batch's tokens and lengths, zeroes the padded tail
(SGLang stages padded rows' verify lengths as 0, dspark_verify.py:696-704) and returns the
first b output rows; the same batch run eagerly on exact-size tensors must match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from graphfit.cudagraph.backends import Backend, Graph, get_backend
from graphfit.cudagraph.capture import CaptureJob, CaptureSession, SoloCapture
from graphfit.planner import CapacityError, ConfigError, CUDAGraphMode, GraphKey, Plan

COMPONENT = "target_compact"  # the planner's keyed component of the compact tiers


def _toy(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Each request's tokens (weighted by their position in the batch) summed into its row."""
    ids, lens, out = views["input_ids"], views["verify_lens"], views["out"]
    slots = lens.shape[0]
    ends = torch.cumsum(lens, 0)
    rows = torch.arange(ids.shape[0], device=ids.device)
    owner = torch.bucketize(rows, ends, right=True)  # == slots past the last real token
    acc = torch.zeros(slots + 1, dtype=out.dtype, device=out.device)
    acc.index_add_(0, owner, ids.to(out.dtype) * (rows + 1))
    out.copy_(acc[:slots])
    return out


class CompactVerifyRunner(SoloCapture):
    """One graph per compact tier of `plan`, over static buffers of the plan's capacities:
    the target's token rows (`target.input_ids`) and the epilogue's request rows
    (`target_compact.verify_lens`, the output in `correct_len`'s rows)."""

    def __init__(self, plan: Plan, *, session: CaptureSession | None = None,
                 backend: str | Backend = "cpu", device: str = "cpu") -> None:
        if not isinstance(plan, Plan):
            raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
        comp = plan.keyed.get(COMPONENT)
        if comp is None:
            raise ConfigError(f"compact: the plan has no {COMPONENT} component (a DSPARK line "
                              "under SGLANG_RAGGED_VERIFY_MODE=compact with decode graphs)")
        self.keyed = comp
        self.backend = session.backend if session is not None else get_backend(backend)
        self.input_ids = torch.zeros(plan.buffer("target.input_ids").capacity,
                                     dtype=torch.int64, device=device)
        self.verify_lens = torch.zeros(comp.buffer("verify_lens").capacity,
                                       dtype=torch.int64, device=device)
        self.out = torch.zeros(comp.buffer("correct_len").capacity, dtype=torch.int64,
                               device=device)
        self.graphs: dict[int, Graph] = {}
        self.last_key: int | None = None
        if session is not None:
            session.add(self)

    @property
    def component(self) -> str:
        return COMPONENT

    def _views(self, tier: int) -> dict[str, torch.Tensor]:
        rows = self.keyed.dispatch.rows(tier)
        slots = self.keyed.dispatch.rows_of(tier, "verify_lens")
        for name, need, have in (("target.input_ids", rows, self.input_ids.shape[0]),
                                 (f"{COMPONENT}.verify_lens", slots,
                                  self.verify_lens.shape[0]),
                                 (f"{COMPONENT}.correct_len", slots, self.out.shape[0])):
            if need > have:
                raise CapacityError(name, need, have)
        return {"input_ids": self.input_ids[:rows], "verify_lens": self.verify_lens[:slots],
                "out": self.out[:slots]}

    def _capture_jobs(self) -> list[CaptureJob]:
        jobs = []
        for tier in sorted(self.keyed.graph_keys, reverse=True):
            views = self._views(tier)  # a short buffer fails before any capture
            jobs.append(CaptureJob(GraphKey(tier, int(views["verify_lens"].shape[0])), (),
                                   (CUDAGraphMode.FULL,), views,
                                   {name: int(v.shape[0]) for name, v in views.items()}))
        return jobs

    def _capture_job(self, job: CaptureJob, *, keep_output: bool) -> None:
        del keep_output
        for view in job.views.values():
            view.zero_()
        self.graphs[job.key.padded] = self.backend.capture(_toy, job.views)

    def step(self, input_ids: torch.Tensor, lens: Sequence[int], *, eager: bool = False
             ) -> torch.Tensor:
        """One ragged verify batch (packed tokens, one verify length per request): the tier
        graph the planner's dispatch picks, else eagerly. Returns one row per request."""
        lengths = [int(n) for n in lens]
        n = sum(lengths)
        if not lengths or min(lengths) < 1 or int(input_ids.shape[0]) != n:
            raise ConfigError("step: lens must be >= 1 each and sum to len(input_ids)")
        b = len(lengths)
        tier = None if eager else self.keyed.dispatch.lookup((b, n, max(lengths)))
        self.last_key = tier
        if tier is None or tier not in self.graphs:
            views = {"input_ids": input_ids.to(torch.int64),
                     "verify_lens": torch.tensor(lengths, dtype=torch.int64,
                                                 device=input_ids.device),
                     "out": torch.zeros(b, dtype=torch.int64, device=input_ids.device)}
            return _toy(views).clone()
        views = self._views(tier)
        views["input_ids"][:n].copy_(input_ids)
        views["input_ids"][n:].zero_()
        views["verify_lens"][:b].copy_(torch.tensor(lengths, dtype=torch.int64))
        views["verify_lens"][b:].zero_()  # padded requests verify nothing (SGLang stages 0)
        out = self.graphs[tier].replay()
        assert isinstance(out, torch.Tensor)
        return out[:b].clone()


__all__ = ["COMPONENT", "CompactVerifyRunner"]
