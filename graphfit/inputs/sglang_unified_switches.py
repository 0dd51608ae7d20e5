"""The cache and parallelism switches of a pasted SGLang 0.5.23 line that
`--enable-unified-memory`'s start-up checks read (graphfit.planner.engines.
sglang_unified_switches), and SGLang's own cross-flag checks on the same flags that run before
them (`handle_cache_compatibility`, arg_groups/kv_cache_hook.py:351-412, pipeline.py:334):

* `--enable-page-major-kv-layout` only with `--enable-unified-memory` (:781-789, the hook
  before the unified one, pipeline.py:336);
* `--disaggregation-decode-retraction-backup host_pool` only on a PD decode server (:352-360),
  not with `--dcp-size` > 1 (:361-365), nor with priority scheduling that may preempt
  (:366-374, issue 23 s42u); a `--disaggregation-decode-host-receive-threshold` below 1 sets
  host_pool first, on any line, after its own refusals (pd_disaggregation_hook.py:64-80,
  pipeline.py:147; s42u: `retraction`);
* `--enable-hierarchical-cache` not with the radix cache off (:393-397): `--disable-radix-cache`
  or a PD decode server, which turns it off (pd_disaggregation_hook.py:98-127);
* `--disaggregation-decode-enable-offload-kvcache` only on the decode side (:399-403), with a
  `--hicache-storage-backend` (:404-407), and not with host-pool retraction (:408-413).

Why here: graphfit does not otherwise read these flags, so without this a line SGLang refuses
at start-up would be planned. `--dcp-size` > 1 and `--dcp-comm-backend` become settings
(`dcp_settings`, issue 23 s42d): the planner plans the line or refuses it as not modelled
(graphfit.planner.engines.sglang_dcp), after SGLang's own unified-memory refusals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.inputs.values import as_bool, as_int, normalize_key
from graphfit.planner.core.errors import ConfigError

WHERE = "kv_cache_hook.py"
PD = "pd_disaggregation_hook.py"
# SGLang's store-true flags -> graphfit's switch names (sglang_unified_switches.SWITCHES)
FLAG_SWITCHES = {"enable_hisparse": "enable_hisparse",
                 "disaggregation_decode_enable_offload_kvcache": "decode_offload_kvcache",
                 "enable_lmcache": "enable_lmcache",
                 "enable_unified_cache_external_linker": "external_linker",
                 "enable_hierarchical_cache": "hierarchical_cache"}


def _dcp(values: Mapping[str, Any]) -> int:
    value = values.get("dcp_size")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def retraction(values: Mapping[str, Any]) -> Any:
    """The decode retraction backup once `handle_pd_disaggregation` ran (pipeline.py:147, before
    the cache checks): a `--disaggregation-decode-host-receive-threshold` below 1 makes it
    host_pool, on any line (pd_disaggregation_hook.py:64-80; issue 23 s42u)."""
    given = values.get("disaggregation_decode_retraction_backup")
    raw = values.get("disaggregation_decode_host_receive_threshold")
    if raw is None:
        return given
    flag = "--disaggregation-decode-host-receive-threshold"
    try:
        threshold = float(raw) if not isinstance(raw, bool) else float("nan")
    except (TypeError, ValueError):
        raise ConfigError(f"{flag}: expected a number, got {str(raw)[:40]!r}") from None
    if not 0 <= threshold <= 1:
        raise ConfigError(f"{flag} must be between 0 and 1, got {str(raw)[:40]} (SGLang "
                          f"refuses, {PD}:64-67)")
    if threshold == 1:
        return given
    if values.get("enable_hisparse") is True or values.get("enable_pd_role_switch") is True:
        raise ConfigError(f"{flag} below 1: decode host receive does not yet support HiSparse "
                          f"or role switching (SGLang refuses, {PD}:68-72)")
    if given == "cpu_tensor":
        raise ConfigError(f"{flag} below 1: decode host KV buffering requires host_pool "
                          f"retraction, not cpu_tensor (SGLang refuses, {PD}:74-75)")
    return "host_pool"  # declared by SGLang (:76-80)


def cache_checks(values: Mapping[str, Any]) -> None:
    """`handle_cache_compatibility`'s refusals on these flags (module docstring)."""
    backup = retraction(values)
    mode = values.get("disaggregation_mode") or "null"
    if backup == "host_pool":
        host = ("--disaggregation-decode-retraction-backup host_pool" if values.get(
            "disaggregation_decode_retraction_backup") == "host_pool" else
            "host_pool retraction (set by --disaggregation-decode-host-receive-threshold "
            "below 1)")
        if mode != "decode":
            raise ConfigError(f"{host} is only supported on a PD decode server (SGLang "
                              f"refuses, {WHERE}:352-360)")
        if _dcp(values) > 1:
            raise ConfigError(f"{host} does not support --dcp-size > 1 (SGLang refuses, "
                              f"{WHERE}:361-365)")
        if values.get("enable_priority_scheduling") is True and not values.get(
                "disable_priority_preemption"):
            raise ConfigError(f"{host} requires --disable-priority-preemption when priority "
                              f"scheduling is enabled (SGLang refuses, {WHERE}:366-374)")
    # a decode server's radix cache is off unless re-enabled (pd_disaggregation_hook.py:98-127)
    radix_off = values.get("disable_radix_cache") is True or (
        mode == "decode" and not values.get("disaggregation_decode_enable_radix_cache"))
    if values.get("enable_hierarchical_cache") is True and radix_off:
        off = "a PD decode server" if mode == "decode" else "--disable-radix-cache"
        raise ConfigError(f"--enable-hierarchical-cache needs the radix cache, which {off} "
                          f"turns off (SGLang refuses, {WHERE}:393-397, "
                          f"pd_disaggregation_hook.py:98-127)")
    if not values.get("disaggregation_decode_enable_offload_kvcache"):
        return
    flag = "--disaggregation-decode-enable-offload-kvcache"
    if mode != "decode":
        raise ConfigError(f"{flag} is only supported for the decode side (SGLang refuses, "
                          f"{WHERE}:399-403)")
    if values.get("hicache_storage_backend") is None:
        raise ConfigError(f"{flag} needs --hicache-storage-backend (SGLang refuses, "
                          f"{WHERE}:404-407)")
    if backup == "host_pool":
        raise ConfigError(f"{flag} and --disaggregation-decode-retraction-backup host_pool "
                          f"both build a decode host pool (SGLang refuses, {WHERE}:408-413)")


def line(values: Mapping[str, Any]) -> list[Setting]:
    """SGLang's cross-flag checks, then the unified-memory line's switches as one setting
    (none off unified memory, where `--dcp-size` > 1 is refused as not modelled here)."""
    from graphfit.inputs import sglang_unified_linear

    sglang_unified_linear.line(values)  # attention_hook.py:318-323, before (pipeline.py:253)
    if values.get("enable_page_major_kv_layout") is True and not values.get(
            "enable_unified_memory"):
        raise ConfigError("--enable-page-major-kv-layout without --enable-unified-memory is "
                          "temporarily unsupported; add --enable-unified-memory or drop it "
                          "(SGLang refuses, kv_cache_hook.py:781-789)")
    dcp = _dcp(values)
    if dcp < 1:
        raise ConfigError(f"--dcp-size: must be >= 1, got {dcp} (SGLang refuses, "
                          f"parallel_hook.py:243-248)")
    cache_checks(values)
    if not values.get("enable_unified_memory"):
        return dcp_settings(values)
    names = _switch_names(values)
    dcp_read = dcp_settings(values)
    if not names:
        return dcp_read
    shown = ", ".join(sorted(names))
    return [Setting("unified_switches", tuple(sorted(names)),
                    f"the line's {shown} (kv_cache_hook.py:554-587, 658-688)", COMMAND_LINE),
            *dcp_read]


def _switch_names(values: Mapping[str, Any]) -> set[str]:
    """The unified-memory switches a line's values set (SWITCHES' names)."""
    names = {switch for flag, switch in FLAG_SWITCHES.items() if values.get(flag) is True}
    if values.get("hicache_storage_backend") == "file":
        names.add("hicache_storage_file")
    if retraction(values) == "host_pool":
        names.add("retraction_host_pool")
    if _dcp(values) > 1:
        names.add("dcp")
    return names


def dcp_settings(values: Mapping[str, Any], whose: str = "the line's --",
                 layer: int = COMMAND_LINE) -> list[Setting]:
    """`--dcp-size` > 1 and `--dcp-comm-backend` as settings (issue 23 s42d): the planner
    plans the line or refuses it as not modelled (graphfit.planner.engines.sglang_dcp).
    `whose` / `layer`: a config file's origin prefix and layer (`file`)."""
    dcp = _dcp(values)
    size, comm = ("dcp-size", "dcp-comm-backend") if whose.endswith("--") else (
        "dcp_size", "dcp_comm_backend")
    backend = values.get("dcp_comm_backend")
    if dcp <= 1:
        if backend in ("a2a", "fi_a2a"):  # issue 23 s47d
            flag = f"--{size}" if whose.endswith("--") else size
            raise ConfigError(f"{whose}{comm} {backend} only affects the decode context-"
                              f"parallel attention reduction and needs {flag} > 1 "
                              f"(SGLang refuses, parallel_hook.py:251-257)")
        return []
    out = [Setting("dcp_size", dcp, f"{whose}{size} (parallel_hook.py:243-248)", layer)]
    if isinstance(backend, str):
        out.append(Setting("dcp_comm_backend", backend, f"{whose}{comm} "
                           "(overrides.py:1373-1396)", layer))
    nodes = values.get("nnodes")
    if isinstance(nodes, int) and not isinstance(nodes, bool) and nodes != 1:
        # the TP ranks per node SGLang's fi_a2a choice reads (sglang_dcp, issue 23 s47d)
        out.append(Setting("nnodes", nodes, f"{whose}nnodes (utils/common.py:1056-1064)",
                           layer))
    return out


def file(data: Mapping[Any, Any], name: str) -> list[Setting]:
    """A config file's `dcp_size` / `dcp_comm_backend` (graphfit's `--config` file; an SGLang
    `--config` YAML on a pasted line becomes flags and goes through `line`), read as a
    pasted line reads them (issue 23 s43l): SGLang's `--dcp-size` >= 1 check
    (parallel_hook.py:243-248), the same settings (`dcp_settings`), and under
    `enable_unified_memory` the switches with "dcp" that SGLang's unified DCP checks read
    (`_validate_unified_memory_dcp`, kv_cache_hook.py:687-688, 719-761). Only the DCP path:
    a file's other unified switches are not read here (as before this change)."""
    values = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    if "dcp_size" not in values and "dcp_comm_backend" not in values:
        return []
    # any integer, as SGLang's argparse reads it; below 1 is SGLang's refusal
    dcp = as_int(f"{name}: dcp_size", values.get("dcp_size", 1), minimum=-(2**31))
    if dcp < 1:
        raise ConfigError(f"{name}: dcp_size: must be >= 1, got {dcp} (SGLang refuses, "
                          f"parallel_hook.py:243-248)")
    backend = values.get("dcp_comm_backend")
    if backend is not None and not isinstance(backend, str):
        raise ConfigError(f"{name}: dcp_comm_backend: expected a name, got "
                          f"{str(backend)[:40]!r}")
    read = {"dcp_size": dcp, "dcp_comm_backend": backend}
    found = dcp_settings(read, f"{name}: ", FILE)
    unified = values.get("enable_unified_memory")
    if dcp > 1 and unified is not None and as_bool(f"{name}: enable_unified_memory", unified):
        found.append(Setting("unified_switches", ("dcp",), f"{name}: dcp_size under "
                             "enable_unified_memory (kv_cache_hook.py:687-688)", FILE))
    return found
