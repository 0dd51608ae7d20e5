"""EngineConfig validation: bad values raise ConfigError naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given

from graphfit import ConfigError, EngineConfig
from tests.strategies import vllm_configs


@pytest.mark.parametrize("kwargs, field", [
    ({"max_num_seqs": 0}, "max_num_seqs"),
    ({"max_num_seqs": -3}, "max_num_seqs"),
    ({"max_num_seqs": 4, "max_num_batched_tokens": 0}, "max_num_batched_tokens"),
    ({"max_num_seqs": 64, "max_num_batched_tokens": 32}, "max_num_batched_tokens"),
    ({"max_num_seqs": 4, "num_speculative_tokens": -1}, "num_speculative_tokens"),
    ({"max_num_seqs": 4, "num_speculative_tokens": 3}, "num_speculative_tokens"),
    ({"max_num_seqs": 4, "spec_method": "eagle"}, "num_speculative_tokens"),
    ({"max_num_seqs": 4, "num_speculative_tokens": 1, "spec_method": "medusa2"},
     "spec_method"),
    ({"max_num_seqs": 4, "cudagraph_mode": "SOMETIMES"}, "cudagraph_mode"),
    ({"max_num_seqs": 4, "engine": "sglang", "cudagraph_capture_sizes": (4, 2)},
     "cudagraph_capture_sizes"),
    ({"max_num_seqs": 4, "engine": "sglang", "cudagraph_capture_sizes": (2, 2)},
     "cudagraph_capture_sizes"),
    ({"max_num_seqs": 4, "cudagraph_capture_sizes": (0, 2)}, "cudagraph_capture_sizes"),
    ({"max_num_seqs": 4, "cudagraph_capture_sizes": ()}, "cudagraph_capture_sizes"),
    ({"max_num_seqs": 4, "max_cudagraph_capture_size": 0}, "max_cudagraph_capture_size"),
    ({"max_num_seqs": 4, "dtype": "float7"}, "dtype"),
    ({"max_num_seqs": 4, "runner": "v3"}, "runner"),
    ({"max_num_seqs": 4, "ladder": "explicit"}, "cudagraph_capture_sizes"),
    ({"max_num_seqs": True}, "max_num_seqs"),
    ({"max_num_seqs": 4, "attention_backend": "FLASH_ATTN4"}, "attention_backend"),
    ({"max_num_seqs": 4, "attention_cudagraph_support": "SOMETIMES"},
     "attention_cudagraph_support"),
    ({"max_num_seqs": 4, "attention_backend": "FLASHINFER",
      "attention_cudagraph_support": "ALWAYS"}, "attention_cudagraph_support"),
    ({"max_num_seqs": 4, "cudagraph_mode": "FULL", "attention_cudagraph_support": "NEVER"},
     "cudagraph_mode"),
    ({"max_num_seqs": 1, "max_num_batched_tokens": 3, "num_speculative_tokens": 3,
      "spec_method": "eagle"}, "max_num_batched_tokens"),
    ({"max_num_seqs": 1, "max_num_batched_tokens": 4, "num_speculative_tokens": 3,
      "spec_method": "dflash"}, "max_num_batched_tokens"),
    ({"max_num_seqs": 4, "num_speculative_tokens": 3, "spec_method": "dspark", "runner": "v1",
      "engine_version": "0.33.0"},
     "spec_method"),
    ({"max_num_seqs": 4, "num_speculative_tokens": 3, "spec_method": "suffix",
      "runner": "v2", "engine_version": "0.33.0"}, "spec_method"),  # 0.34 runs it on V2
    ({"max_num_seqs": 4, "num_speculative_tokens": 2, "spec_method": "extract_hidden_states"},
     "num_speculative_tokens"),
    ({"max_num_seqs": 4, "num_speculative_tokens": 3, "spec_method": "eagle",
      "dspark_sample_from_anchor": False}, "dspark_sample_from_anchor"),
    ({"max_num_seqs": 4, "engine": "sglang", "attention_backend": "FLASH_ATTN"},
     "attention_backend"),
    ({"max_num_seqs": 2.5}, "max_num_seqs"),
])
def test_invalid_values_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        EngineConfig(**kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(field) and "\n" not in message


def test_strings_are_coerced_to_enums() -> None:
    c = EngineConfig(max_num_seqs=4, num_speculative_tokens=1, spec_method="EAGLE3",
                     cudagraph_mode="piecewise")
    assert c.spec_method.value == "eagle3" and c.cudagraph_mode.value == "PIECEWISE"


def test_config_is_frozen() -> None:
    c = EngineConfig(max_num_seqs=4)
    with pytest.raises(AttributeError):
        c.max_num_seqs = 5  # type: ignore[misc]


@given(vllm_configs())
def test_dict_round_trip(config: EngineConfig) -> None:
    assert EngineConfig.from_dict(config.to_dict()) == config


def test_from_dict_reports_unknown_keys() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        EngineConfig.from_dict({"max_num_seqs": 4, "max_num_sequences": 5})
