"""An installed humming-kernels package, for SGLang 0.5.23's HummingConfig on CPU (issue 23,
s54d): stand-in modules for the names `_lazy_import_humming` imports (humming.py:54-88), so the
draft's loader builds its config class and runs its GPU and dtype checks as it would with the
package installed. The module-level names that import caches (humming.py:45-51, 82-88) are
restored afterwards, so later tests see the package missing again."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator
from unittest import mock

from tests.oracle import sglang_oracle as so

NAMES = {"humming.dtypes": ("DataType",), "humming.layer": ("HummingMethod",),
         "humming.schema": ("BaseInputSchema", "BaseWeightSchema", "HummingInputSchema",
                            "HummingWeightSchema"),
         "humming.utils.weight": ("quantize_weight",)}
CACHED = ("DataType", "HummingMethod", "BaseInputSchema", "BaseWeightSchema",
          "HummingInputSchema", "HummingWeightSchema", "quantize_weight")


@contextlib.contextmanager
def installed() -> Iterator[None]:
    so.oracle()
    with so.sglang_stubs.imports():
        from sglang.srt.layers.quantization import humming
    modules: dict[str, types.ModuleType] = {}
    for name in ("humming", "humming.utils", *NAMES):
        modules[name] = types.ModuleType(name)
    for name, attrs in NAMES.items():
        for attr in attrs:
            setattr(modules[name], attr, type(attr, (), {}))
    # only these names go in and out of sys.modules (a patch.dict of all of it would drop
    # every module first imported inside, graphfit's own included)
    assert not set(modules) & set(sys.modules), "a humming package is installed"
    sys.modules.update(modules)
    try:
        with contextlib.ExitStack() as stack:
            for attr in CACHED:
                stack.enter_context(mock.patch.object(humming, attr, getattr(humming, attr)))
            yield
    finally:
        for name in modules:
            sys.modules.pop(name, None)
