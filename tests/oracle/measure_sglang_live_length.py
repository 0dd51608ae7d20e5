"""`python -m tests.oracle.measure_sglang_live_length N SEED`: N lines of
tests/oracle/sglang_context_length_oracle's generator (length keys, RoPE dicts, class
defaults, --context-length with and without SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN); SGLang's
ServerArgs of each go to `from_sglang` (tests/oracle/sglang_live_length_oracle.verdict).
Prints how many live context lengths agree with SGLang's ModelConfig.context_len after issue
23 s47l and before it (in the same run: the live reader without the model's derived length
and its check, graphfit.inputs.sglang_live._length), then the first difference left."""

from __future__ import annotations

import collections
import random
import sys
import tempfile
from unittest import mock

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_live  # noqa: E402
from tests.oracle import sglang_context_length_oracle as t  # noqa: E402
from tests.oracle import sglang_live_length_oracle as ll  # noqa: E402


def main(count: int, seed: int) -> None:
    root = tempfile.mkdtemp(prefix="graphfit-live-length-")
    after: collections.Counter[str] = collections.Counter()
    before: collections.Counter[str] = collections.Counter()
    first = ""
    for i in range(count):
        model, argv, env = t.case(random.Random(seed * 100000 + i), root)
        now = ll.verdict(model, argv, env)
        with mock.patch.object(sglang_live, "_length", lambda *_: {}):
            old = ll.verdict(model, argv, env)
        after[now.split(":")[0]] += 1
        before[old.split(":")[0]] += 1
        if now.startswith("differ") and not first:
            first = f"{' '.join(argv)} {env}: {now}"
    print(f"{count} lines; live context length vs SGLang's ModelConfig.context_len: "
          f"before {dict(before)}, after {dict(after)}")
    if first:
        print(f"first difference: {first}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60,
         int(sys.argv[2]) if len(sys.argv) > 2 else 47)
