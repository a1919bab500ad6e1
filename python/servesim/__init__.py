"""servesim from Python: simulate an LLM serving cluster and get its results as pandas.

    import servesim
    r = servesim.run("scenarios/quickstart.yaml", set={"stop.requests": 500})
    r.summary["p99_ttft_ms"]                 # the figures of summary.json, bit for bit
    r.requests                               # requests.csv as a DataFrame
    r.timeseries                             # timeseries.csv as a DataFrame
    table = servesim.sweep("scenarios/quickstart.yaml",
                           axes={"workload.0.trace.speedup": [1, 2, 4]})

A scenario is a path to a YAML file, a YAML text or a dict (the YAML's structure). `set`
takes the CLI's --set overrides as a dict ({"cluster.pools.0.replicas": 4}) or a list of
"key=value" strings. Relative paths in a scenario file resolve from its folder, then
bundled; a YAML text or a dict has no folder, so its relative paths name bundled files only
(give your own by absolute path, or in `set`, which also looks in the working directory).
`seed` is a whole number from 0 to 2^64-1. Bad input raises servesim.ConfigError (a
ValueError) with the CLI's message: file, line, key and a did-you-mean. The simulation runs
in C++ without the GIL; Ctrl-C stops a run and raises KeyboardInterrupt.
"""
from __future__ import annotations

import contextlib
import decimal
import io
import json
import numbers
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Optional, Sequence, Union

from . import _servesim
from ._progress import progress_callback

__all__ = ["ConfigError", "Result", "run", "sweep", "capacity", "search", "step", "explain", "compare", "report",
           "replay", "calibrate", "calibrate_hardware", "__version__"]

ConfigError = _servesim.ConfigError
__version__ = _servesim.__version__

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Sets = Union[None, Mapping[str, Any], Sequence[str]]


def _pandas():
    import pandas  # imported when a table is asked for: `import servesim` stays light

    return pandas


def _rows(rows: list):
    """Rows (dicts) as a DataFrame, or the list itself where pandas is not installed."""
    try:
        pandas = _pandas()
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def _set_value(value: Any) -> str:
    """A --set value as the YAML text the loader reads."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value)  # lists and mappings: JSON is YAML flow style


def _sets(sets: Sets) -> list[str]:
    if sets is None:
        return []
    if isinstance(sets, Mapping):
        return [f"{key}={_set_value(value)}" for key, value in sets.items()]
    if isinstance(sets, str):
        raise TypeError("set= takes a dict or a list of 'key=value' strings, not one string")
    return [str(s) for s in sets]


def _seed(seed: Any) -> Optional[int]:
    """`seed` as the C++ side takes it, an unsigned 64-bit number. Anything else is a
    ConfigError, as `--seed -1` is a usage error on the CLI: never a wrapped-around number,
    nor pybind11's TypeError."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) < 2**64:
        raise ConfigError(f"seed: must be a whole number from 0 to 2^64-1, got {seed!r}")
    return int(seed)


@contextlib.contextmanager
def _scenario_file(scenario: Scenario) -> Iterator[str]:
    """A path to the scenario: the file itself, or a temporary file holding a YAML text or
    a dict. Errors name "<scenario>" instead of the temporary file."""
    if isinstance(scenario, Mapping):
        text = json.dumps(scenario)  # JSON is YAML: line numbers stay meaningful per key
    elif isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario):
        yield os.fspath(scenario)
        return
    elif isinstance(scenario, str):
        text = scenario
    else:
        raise TypeError(f"a scenario is a path, a YAML text or a dict, not {type(scenario).__name__}")
    with tempfile.TemporaryDirectory(prefix="servesim-") as folder:
        path = os.path.join(folder, "scenario.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            yield path
        except ConfigError as e:
            raise ConfigError(str(e).replace(path, "<scenario>")) from None


@dataclass
class Result:
    """One run: `summary` is summary.json as a dict; `requests` and `timeseries` are its CSV
    files as DataFrames (read when first asked for); `out_dir` holds the files."""

    summary: dict
    out_dir: str
    name: str
    seed: int
    files: list = field(default_factory=list)
    wall_s: float = 0.0
    _context: Optional[str] = field(default=None, repr=False)  # what was simulated, for to_html
    _tables: dict = field(default_factory=dict, repr=False)
    _keep: Any = field(default=None, repr=False)  # a TemporaryDirectory that holds the files

    def _table(self, file_name: str):
        if file_name not in self._tables:
            path = os.path.join(self.out_dir, file_name)
            if not os.path.exists(path):
                raise FileNotFoundError(f"{path}: this run did not write {file_name}")
            self._tables[file_name] = _pandas().read_csv(path)
        return self._tables[file_name]

    @property
    def requests(self):
        """requests.csv: one row per request (docs/metrics.md)."""
        return self._table("requests.csv")

    @property
    def timeseries(self):
        """timeseries.csv: one row per pool and interval (docs/metrics.md)."""
        return self._table("timeseries.csv")

    def to_html(self, path: Optional[str] = None) -> str:
        """The run's self-contained HTML report, written to `path` (default: report.html in
        out_dir); returns the path. Its header says what was simulated, as `servesim report
        OUT_DIR --scenario FILE` does."""
        return _write_report(self.out_dir, path, self._context)

    @property
    def classes(self):
        """summary.json's "classes": one row per workload class."""
        return _pandas().DataFrame.from_dict(self.summary.get("classes", {}), orient="index")

    @property
    def pools(self):
        """summary.json's "pools": one row per pool."""
        return _pandas().DataFrame.from_dict(self.summary.get("pools", {}), orient="index")


def run(
    scenario: Scenario,
    set: Sets = None,  # noqa: A002 - the CLI's name
    seed: Optional[int] = None,
    replicates: Optional[int] = None,
    out: Optional[str] = None,
    timeseries: bool = True,
) -> Result:
    """Simulates `scenario` once (`servesim run`). The files go to `out`, or to a temporary
    folder kept as long as the Result lives. requests.csv is always written, and timeseries.csv
    unless timeseries=False, whatever the scenario's outputs say; an `outputs.*` key in `set`
    overrides both. `replicates` K >= 2 runs
    the K seeds from `seed` and adds each figure's mean and 95% interval to the summary's
    "replicates"."""
    seed = _seed(seed)
    overrides = ["outputs.requests_csv=true"] + (["outputs.timeseries=true"] if timeseries else []) + _sets(set)
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="servesim-run-")
        out = keep.name
    with _scenario_file(scenario) as path:
        info = _servesim.run(path, overrides, seed, 1 if replicates is None else replicates, out)
    for text in info["warnings"]:  # what `servesim run` warns of: a share of requests it will reject
        warnings.warn(text, stacklevel=2)
    if info["nothing_served"]:  # `servesim run` exits 1 with this instead of a table
        warnings.warn(info["nothing_served"].rstrip(), stacklevel=2)
    return Result(summary=info["summary"], out_dir=out, name=info["name"], seed=info["seed"], files=info["written"],
                  wall_s=info["wall_s"], _context=info["context"], _keep=keep)


def _axis(key: str, values: Any) -> str:
    if isinstance(values, str):
        return f"{key}={values}"
    return f"{key}=" + ",".join(_set_value(v) for v in values)


def _table(csv_text: str):
    """sweep.csv's text as a DataFrame; the text itself in .attrs["sweep_csv"]."""
    table = _pandas().read_csv(io.StringIO(csv_text))
    table.attrs["sweep_csv"] = csv_text
    return table


def _sweep_shard(scenario: Scenario, axis_texts: list, zip_: bool, sets: list, seed: Optional[int],
                 replicates: int, shard_index: int, shard_count: int) -> str:
    """One shard of a sweep as sweep.json text: what an executor's worker runs."""
    with _scenario_file(scenario) as path:
        return _servesim.sweep(path, axis_texts, zip_, 1, sets, seed, replicates, shard_index, shard_count, "json")


def sweep(
    scenario: Scenario,
    axes: Union[Mapping[str, Any], Sequence[str]],
    zip: bool = False,  # noqa: A002 - the CLI's name
    jobs: int = 1,
    set: Sets = None,  # noqa: A002
    seed: Optional[int] = None,
    replicates: Optional[int] = None,
    executor: Any = None,
    shards: Optional[int] = None,
    progress: Any = None,
):
    """Runs one simulation per point of `axes` ({"key": [values]} or the CLI's "key=a,b,c"
    strings), their cartesian product or, with zip=True, zipped (`servesim sweep`). Returns
    the sweep table as a DataFrame: one row a point, sweep.csv's columns (and sweep.csv's
    text in .attrs["sweep_csv"]).

    Points run on `jobs` threads here, or, given an `executor` (a dask.distributed Client, a
    concurrent.futures executor: anything with submit(fn, *args) returning a future with
    result()), as `shards` tasks there (default 8), each `servesim sweep --shard I/N`; the
    shards' tables are joined as `servesim merge` joins them, so the table is the local
    sweep's, byte for byte. The workers must import servesim and read the scenario's files
    at the same paths.

    `progress`: a tqdm bar of the points run (None: where tqdm is installed and the session
    is interactive; True: where tqdm is installed; False: none), or a callable called as
    progress(done, total) as each point ends (with an executor, each shard). An exception
    it raises, and Ctrl-C, stop the sweep after the points under way."""
    seed = _seed(seed)
    if isinstance(axes, Mapping):
        axis_texts = [_axis(k, v) for k, v in axes.items()]
    else:
        axis_texts = [str(a) for a in axes]
    sets_list, reps = _sets(set), 1 if replicates is None else replicates
    if executor is None:
        with _scenario_file(scenario) as path, progress_callback(progress, "sweep") as on_progress:
            text = _servesim.sweep(path, axis_texts, zip, jobs, sets_list, seed, reps, on_progress=on_progress)
        return _table(text)
    count = shards or 8
    portable = scenario
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario):
        portable = os.path.abspath(os.fspath(scenario))
    futures = [executor.submit(_sweep_shard, portable, axis_texts, zip, sets_list, seed, reps, i, count)
               for i in range(count)]
    with tempfile.TemporaryDirectory(prefix="servesim-shards-") as folder, \
            progress_callback(progress, "sweep shards") as on_progress:
        if on_progress:
            on_progress(0, count)
        paths = []
        for i, future in enumerate(futures):
            path = os.path.join(folder, f"shard-{i}.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(future.result())
            paths.append(path)
            if on_progress:
                on_progress(i + 1, count)
        text = _servesim.merge(paths)
    return _table(text)


def _slo_text(slo: Union[None, str, Mapping[str, Any]]) -> str:
    if slo is None:
        return ""
    if isinstance(slo, str):
        return slo
    return ",".join(f"{k}={v}" for k, v in slo.items())


def capacity(
    scenario: Scenario,
    slo: Union[None, str, Mapping[str, Any]] = None,
    class_name: str = "",
    tolerance: float = 0.01,
    max_rejected: float = 0.0,
    set: Sets = None,  # noqa: A002
    seed: Optional[int] = None,
    replicates: Optional[int] = None,
    objective: str = "load",
) -> dict:
    """The highest sustained load that meets the SLO (`servesim capacity --json`), as a dict.
    `slo` is the CLI's text ("ttft_p99=2s,tpot_p99=100ms") or a dict of it; without it each
    class's own slo: block. `objective` as `--objective`: "load", or "energy" (the same
    answer with its energy under "energy" and each trial's; needs cluster.energy)."""
    seed = _seed(seed)
    with _scenario_file(scenario) as path:
        return _servesim.capacity(path, _sets(set), class_name, _slo_text(slo), tolerance, max_rejected, seed,
                                  1 if replicates is None else replicates, objective)


def search(
    scenario: Scenario,
    space: str,
    slo: Union[None, str, Mapping[str, Any]] = None,
    class_name: str = "",
    rate: Optional[float] = None,
    prices: Union[None, str, Mapping[str, float]] = None,
    jobs: int = 1,
    set: Sets = None,  # noqa: A002
    seed: Optional[int] = None,
    replicates: Optional[int] = None,
    progress: Any = None,
    objective: str = "cost",
) -> dict:
    """The cheapest deployment in the search space file `space` that meets the SLO
    (`servesim search --json`), as a dict whose "candidates" is also given as a DataFrame
    under "table". `progress` as sweep's, over the candidates run (those pruned never run,
    so a bar may end short of its total). `objective` as `--objective`: "cost", "energy"
    (J per output token; needs cluster.energy) or "total-cost" (GPUs plus electricity per
    hour; needs cluster.energy.price_per_kwh)."""
    seed = _seed(seed)
    price_text = prices if isinstance(prices, str) or prices is None else ",".join(
        f"{k}={v}" for k, v in prices.items())
    with _scenario_file(scenario) as path, progress_callback(progress, "search") as on_progress:
        report = _servesim.search(path, os.fspath(space), _sets(set), class_name, rate, _slo_text(slo),
                                  price_text or "", jobs, seed, 1 if replicates is None else replicates,
                                  objective=objective, on_progress=on_progress)
    if isinstance(report.get("candidates"), list):
        report["table"] = _pandas().json_normalize(report["candidates"])
    return report


def report(folder: str, path: Optional[str] = None) -> str:
    """Writes the self-contained interactive HTML page of a run or sweep folder (`servesim
    report`) to `path` (default FOLDER/report.html) and returns the path."""
    return _write_report(folder, path, None)


def _write_report(folder: str, path: Optional[str], context: Optional[str]) -> str:
    page = _servesim.html_report(os.fspath(folder), context)
    path = path or os.path.join(folder, "report.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path


def step(
    model: str,
    hardware: str,
    prefill: Sequence[Union[int, tuple]] = (),
    decode: Sequence[tuple] = (),
    tp: int = 1,
    pp: int = 1,
    ep: int = 1,
    micro_batches: int = 0,
    weights: str = "bf16",
    kv: str = "bf16",
    activations: str = "bf16",
    cost_model: str = "",
    engine: str = "vllm",
    engine_version: str = "",
    cuda_graphs: int = 0,
) -> dict:
    """The predicted duration of one engine step (`servesim step --json`) as a dict, with
    "ops" (one row per operator: FLOPs, bytes, ms, bound, source) as a DataFrame. `prefill`
    lists chunks as new tokens or (new tokens, cached tokens); `decode` lists (sequences,
    context tokens each). What `servesim step` warns of comes as a UserWarning: a sequence
    beyond the model's context, and, when engine, engine_version or cuda_graphs differs from
    its default, the table release that stood in for the one asked for (or the roofline
    that priced the step after all)."""
    prefills = [(p, 0) if isinstance(p, int) else (int(p[0]), int(p[1])) for p in prefill]
    decodes = [(int(b), int(c)) for b, c in decode]
    result, notes = _servesim.step(model, hardware, tp, pp, ep, micro_batches, weights, kv, activations,
                                   prefills, decodes, cost_model, engine, engine_version, cuda_graphs)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    result["ops"] = _pandas().DataFrame(result["ops"])
    return result


def explain(scenario: Scenario, set: Sets = None, seed: Optional[int] = None, jobs: int = 1) -> dict:  # noqa: A002
    """The scenario and its one-lever variants ranked by how far each moves TTFT, TPOT, ITL
    and throughput, and which phase owns each figure (`servesim explain --json`), as a dict;
    "table" holds the variants' changes as a DataFrame, one row per lever."""
    with _scenario_file(scenario) as path:
        result = _servesim.explain(path, _sets(set), _seed(seed), jobs)
    rows = []
    for v in result["variants"]:
        row = {"lever": v["lever"], "phase": v["phase"], "overloaded": v["overloaded"]}
        row.update({f"change_{k}": c for k, c in v["change"].items()})
        rows.append(row)
    result["table"] = _pandas().DataFrame(rows)
    return result


def _percent_text(value: Union[None, str, float]) -> str:
    """A tolerance as the CLI's text: "10%" as given, 0.1 as "10.0%", None as ""."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    # In decimal, so that 0.1 reads "10%", not "10.000000000000002%".
    return f"{(decimal.Decimal(repr(float(value))) * 100).normalize():f}%"


def _is_text_or_dict(scenario: Scenario) -> bool:
    """Whether _scenario_file wrote the scenario to a temporary file: no file of the user's to name."""
    return isinstance(scenario, Mapping) or (isinstance(scenario, str) and "\n" in scenario)


def _warn_cli_lines(lines: Sequence[str], command: str, scenario: Scenario, path: str) -> None:
    """The lines `servesim COMMAND` prints as warnings, as UserWarnings of the caller's caller."""
    for line in lines:
        text = line.replace(f"servesim {command}: warning: ", "", 1)
        warnings.warn(text.replace(path, "<scenario>") if _is_text_or_dict(scenario) else text, stacklevel=3)


def replay(bench: str, scenario: Scenario, format: str = "auto", set: Sets = None,  # noqa: A002 - the CLI's names
           tolerance: Union[None, str, float] = None, force: bool = False):
    """Replays the succeeded requests of a real benchmark run (vllm bench serve,
    inference-perf, GuideLLM) through the scenario's deployment (`servesim replay`). Returns
    measured against simulated as a DataFrame, one row per set of requests ("all", then each
    load stage) and figure: set, requests, figure, measured, simulated, error (signed,
    simulated / measured - 1), the figures of `servesim replay --json`. Its .attrs hold the
    rest of that document ("benchmark", "scenario", "simulated", with a tolerance
    "tolerance" and "beyond_tolerance"), "json" the document whole and "table" the CLI's
    console table. Without pandas, the rows come as a list of dicts.

    `tolerance` is "10%" or 0.1. A benchmark whose model, tokenizer, engine or parallelism
    differ from the scenario's raises ConfigError with the CLI's words unless force=True;
    what the CLI warns of comes as a UserWarning."""
    with _scenario_file(scenario) as path:
        got = _servesim.replay(os.fspath(bench), path, format, _sets(set), _percent_text(tolerance), force)
    _warn_cli_lines(got["warnings"], "replay", scenario, path)
    document = got["report"]
    if _is_text_or_dict(scenario):
        document["scenario"] = "<scenario>"
    rows = [{"set": s["name"], "requests": s["requests"], **figure} for s in document["sets"] for figure in s["figures"]]
    table = _rows(rows)
    if not isinstance(table, list):
        table.attrs.update({k: v for k, v in document.items() if k != "sets"})
        table.attrs.update(json=document, table=got["table"])
    return table


def _knob_list(fit: Union[None, str, Sequence[str]]) -> Optional[str]:
    """--fit's text: "per_step,per_request" as given, a list joined; None: the default."""
    if fit is None or isinstance(fit, str):
        return fit
    return ",".join(str(k) for k in fit)


def calibrate(bench: str, scenario: Scenario, format: str = "auto", set: Sets = None,  # noqa: A002 - the CLI's names
              fit: Union[None, str, Sequence[str]] = None, fit_stages: Union[None, str, Sequence[int]] = None,
              max_replays: int = 240, force: bool = False, output: Optional[str] = None) -> dict:
    """Fits the engine's CPU overheads (per step, per request, per sampled token) to a real
    benchmark run (`servesim calibrate --from-benchmark`): its requests replayed through the
    scenario's deployment, or, for a file of aggregates only, the scenario's workload run
    and matched to the file's figures. Returns a dict: "fitted_ms" and "start_ms" (each
    knob's overhead in ms), "knobs", "unidentified" (each {knob, why, setting}: a knob the
    benchmark cannot pin down, left out of the profile), "split", "evaluations", the
    objectives, "source" ("requests" or "aggregates"), "profile" (the engine profile as a
    dict; None when no knob could be identified), "profile_yaml" (the file's text, "" then),
    "benchmark" and "report" (the fit's tables, as the CLI prints them).

    `fit` names the knobs ("per_step,per_request" or a list; the CLI's default without it),
    `fit_stages` the stages of a file of aggregates to fit on ("0,2" or [0, 2]),
    `max_replays` caps the simulations (--max-replays). With `output`, the profile is written
    there, as `-o` writes it; use it as a pool's `engine: {preset: FILE}`. A benchmark of
    another deployment raises ConfigError with the CLI's words unless force=True; the CLI's
    warnings come as UserWarning, and so does "nothing written" when no knob is identified."""
    stages = fit_stages if fit_stages is None or isinstance(fit_stages, str) else ",".join(str(i) for i in fit_stages)
    with _scenario_file(scenario) as path:
        got = _servesim.calibrate(os.fspath(bench), path, format, _sets(set), _knob_list(fit), stages or "",
                                  max_replays, force, os.fspath(output) if output else "")
    _warn_cli_lines(got["warnings"], "calibrate", scenario, path)
    result = dict(got["fit"])
    result.update(profile_yaml=got["profile"], benchmark=got["benchmark"], report=got["report"])
    result["profile"] = _yaml_values(got["profile"]) if got["profile"] else None
    if not got["profile"]:
        warnings.warn("no knob of fit could be identified from this benchmark; nothing written", stacklevel=2)
    return result


def calibrate_hardware(hardware: str, measurements: Optional[str] = None, model: Optional[str] = None,
                       kernels: Optional[str] = None, fit_max_prefill: int = 0, fit_max_context: int = 0,
                       output: Optional[str] = None) -> dict:
    """Fits the roofline of the hardware profile `hardware` (a name or a YAML path) to measured
    times (`servesim calibrate`): either step and kernel times of `model` in the CSV file
    `measurements` (steps with more prefill tokens than `fit_max_prefill`, or more decode
    context per sequence than `fit_max_context`, held out; 0 holds none out), or the
    kernel-table set `kernels` ("h100_sxm/vllm-0.14.0" under data/kernels, or a folder;
    `servesim calibrate --from-kernels`). Returns a dict: "profile" (the calibrated profile as
    values, None without PyYAML), "profile_yaml" (the file's text), "report" (the fit's figures
    as the CLI prints them) and "command" (the CLI line the profile records). With `output`,
    the profile is written there as `-o` writes it."""
    output_path = os.fspath(output) if output else ""
    if (measurements is None) == (kernels is None):
        raise TypeError("calibrate_hardware takes measurements= (with model=) or kernels=, one of them")
    if kernels is not None:
        got = _servesim.calibrate_to_kernels(os.fspath(kernels), os.fspath(hardware), output_path)
    else:
        if model is None:
            raise TypeError("calibrate_hardware: measurements= needs the model= they were measured on")
        got = _servesim.calibrate_to_measurements(os.fspath(hardware), os.fspath(model), os.fspath(measurements),
                                                  fit_max_prefill, fit_max_context, output_path)
    return {"profile": _yaml_values(got["profile"]), "profile_yaml": got["profile"], "report": got["report"],
            "command": got["command"]}


def _yaml_values(text: str):
    """The profile's YAML as Python values (PyYAML), or None where PyYAML is not installed."""
    try:
        import yaml
    except ImportError:
        return None
    return yaml.safe_load(text)


def _fraction(value: Union[str, float]) -> float:
    """5% or 0.05 as 0.05."""
    if isinstance(value, str):
        return _servesim.parse_percent(value, "tolerance")  # the CLI's reading of --tolerance
    return float(value)


def compare(baseline: str, candidate: str, tolerance: Union[str, float] = "5%",
            tolerance_for: Optional[Mapping[str, Union[str, float]]] = None) -> dict:
    """Two summary.json files (or sweep tables, or the folders holding them) figure by figure
    (`servesim compare --json`), as a dict with "regressions" and "changes" (also as a
    DataFrame under "table"). `tolerance` is "5%" or 0.05; `tolerance_for` per figure
    ({"p99_ttft_ms": "10%"} or "classes.chat.p99_ttft_ms"). Where the files differ in form,
    "skipped" lists the figures only one has (not compared) and "notes" what else differs.
    For two summary.json files, "deployment" says whether both record what ran ("checked")
    and lists what differs (model, hardware, tp, ...) under "differences"."""
    per_field = {k: _fraction(v) for k, v in (tolerance_for or {}).items()}
    # A run or sweep folder stands for its summary.json or sweep.json, as on the command line.
    result = _servesim.compare(os.fspath(baseline), os.fspath(candidate), _fraction(tolerance), per_field)
    result["table"] = _pandas().DataFrame(result["changes"])
    return result
