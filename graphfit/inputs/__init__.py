"""What engines are told: their flags, JSON sub-configs and config files, read into Settings.

`vllm`, `sglang`, `trtllm` read each engine's own keys (their FILE_KEYS map an engine key to
EngineConfig fields); `config_file` reads `--config FILE`; `settings` and `resolve` merge every
source (with precedence and conflicts) into one EngineConfig; `values` and `keys` are the typed
reads that name the key on bad input.

A serving command pasted after `--`: `commandline` (shell words, which engine, notes), read by
`vllm_cli`, `sglang_cli`, `trtllm_cli` with each engine version's own rules and flag table
(`flagtable`, data in `flags/*.json`); `model_config` reads the served model's config.json;
`pasteback` writes a ladder back in each engine's syntax.

Every file and structured value is read through `reading` (bounded, strict, one error line;
the limits live in graphfit.planner.core.limits). Files the planner consumes are parsed here
and handed over as data: `plan_file` (`check --plan`: exactly what graphfit writes, or
refused), `traces`, `profiles`, `cases` (the bug corpus); and text the CLI takes:
`variants` (`compare` sides), `ranges` (`sweep` axes).
"""
