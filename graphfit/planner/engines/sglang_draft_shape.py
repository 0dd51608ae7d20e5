"""Which of an SGLang 0.5.23 EAGLE-family draft's buffers follow the DRAFT model, not the target.

The draft runners are built on the draft's own model runner, whose ModelConfig is the
draft checkpoint's (`ModelConfig.from_server_args(..., is_draft_model=True)`,
configs/model_config.py:923-975), so three facts come from the draft's config.json:

* the logits columns of the draft-extend runners: `hf_config.draft_vocab_size` (llama_eagle,
  and EAGLE3 drafts, whose model sets it to `vocab_size` when the file leaves it null,
  models/llama_eagle3.py:306-308), else `hot_vocab_size`, else the hot-token map's length,
  else the draft's own `vocab_size` (eagle_draft_extend_cuda_graph_runner.py:233-247; the
  multi-layer composite's `_vocab_size`, multi_layer_eagle_draft_extend_cuda_graph_runner.py:
  647-653, without the token map). Through `GraphSharedOutput.get_logits_buffer` a
  vocabulary other than the target's is its own tensor (graph_shared_output.py:62-73);
* the dtype of every draft hidden_states buffer: the draft ModelConfig's dtype
  (`get_draft_recurrent_hidden_state_spec`, eagle_utils.py:279-299; the draft-extend runner,
  eagle_draft_extend_cuda_graph_runner.py:182-196; the composite, :661; the FROZEN_KV_MTP
  loop, frozen_kv_mtp_cuda_graph_runner.py:150-154), which `--dtype auto` takes from the
  draft's own torch_dtype (model_config.py:2284-2345);
* an EAGLE3 draft's aux width: `target_hidden_size` (else the draft's hidden size) times
  `num_aux_hidden_states` (else the aux layer ids' count, else 3), or the draft's
  spec_hidden_size when `eagle_config.use_aux_hidden_state` is false (eagle_utils.py:237-276).

graphfit.inputs.sglang_draft_shape reads them into SglangOptions; None keeps the target's.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings

EAGLE3_AUX_LAYERS = 3  # get_draft_input_from_target_hidden_dim's default (eagle_utils.py:275)


def draft_dtype(config: EngineSettings) -> str:
    """The draft model runner's dtype (module docstring)."""
    return config.draft_dtype or config.dtype


def draft_vocab(config: EngineSettings) -> int:
    """The draft-extend runners' logits columns (module docstring)."""
    return config.draft_vocab_size or config.vocab_size


def draft_extend_hidden(config: EngineSettings) -> int:
    """`get_draft_input_from_target_hidden_dim` (eagle_utils.py:237-276): the width of the
    target hidden states fed to the draft-extend runners."""
    if config.spec_method is SpecMethod.EAGLE3:
        return config.draft_extend_hidden_size or config.hidden_size * EAGLE3_AUX_LAYERS
    return config.draft_hidden_size or config.hidden_size
