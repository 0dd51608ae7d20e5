"""`PYTHONPATH=. python -m tests.oracle.measure_sglang_rocm_class_default`: EAGLE lines naming
no attention backend (tests/oracle/sglang_rocm_class_default.LINES: topk 1 / 2, multi-layer,
a prefill-only flag) on MI300X, for every model class of the oracle (the multi-layer EAGLE
shapes and override classes, plus plain MHA classes), SGLang resolving the real config.json
and graphfit planning the same line with `--model-path org/model --architecture CLASS`
(nothing local). Printed: the lines whose every runner's seq_lens fill is SGLang's, before
(graphfit's rule without the class: fill 1 and a note) and after, in the same run; and the
after verdicts (agree: restated and equal; noted: not restated, fill 1 with the note)."""

from __future__ import annotations

import tempfile

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_rocm_class_default as rc


def main() -> None:
    so.oracle()
    with tempfile.TemporaryDirectory() as root:
        dirs = rc.model_dirs(root)
        before = after = total = 0
        tally: dict[str, int] = {}
        for line in rc.LINES:
            for model in dirs.values():
                v = rc.verdict(line, model)
                key = v.split(":", 1)[0]
                tally[key] = tally.get(key, 0) + 1
                if key == "refused":
                    continue
                if key == "differ":
                    print(v[:300])
                total += 1
                after += bool(rc.fills_equal(line, model))
                before += bool(rc.fills_equal(line, model, before=True))
    print(f"{total} lines SGLang resolves ({len(dirs)} classes x {len(rc.LINES)} lines, "
          f"{tally.get('refused', 0)} refused by SGLang): every fill SGLang's before "
          f"{before}/{total}, after {after}/{total}")
    print("after: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
