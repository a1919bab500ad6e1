"""The Python package against the CLI: the same scenario gives the same files, bit for bit.

Run by CTest (python/CMakeLists.txt) with PYTHONPATH=<build>/python and SERVESIM_BUILD_DIR,
from the repository root.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import warnings

import pandas as pd
import pytest

import servesim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SERVESIM_BUILD_DIR", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "servesim")
QUICKSTART = os.path.join(ROOT, "scenarios", "quickstart.yaml")

# A small synthetic scenario: 200 requests at 4 req/s on one H100.
SMALL = {
    "name": "py-small",
    "seed": 7,
    "stop": {"requests": 200},
    "workload": [{
        "class": "chat",
        "arrival": {"process": "poisson", "rate": 4},
        "input": {"fixed": 512},
        "output": {"fixed": 64},
    }],
    "cluster": {"pools": [{"name": "main", "replicas": 1, "model": "llama-3-8b", "hardware": "h100-sxm",
                           "engine": {"preset": "vllm"}}]},
}


def cli(*args, cwd=ROOT):
    done = subprocess.run([CLI, *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


def test_run_matches_the_cli_bit_for_bit(tmp_path):
    cli("run", QUICKSTART, "--set", "stop.requests=300", "--set", "outputs.timeseries=true",
        "--out", str(tmp_path / "cli"), "-q")
    r = servesim.run(QUICKSTART, set={"stop.requests": 300}, out=str(tmp_path / "py"))
    for name in ("summary.json", "requests.csv", "timeseries.csv"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    with open(tmp_path / "cli" / "summary.json") as f:
        assert r.summary == json.load(f)
    assert r.summary["completed"] == 300
    assert len(r.requests) == 300
    assert {"ttft_ms", "e2el_ms"} <= set(r.requests.columns)
    assert r.requests["ttft_ms"].mean() == pytest.approx(r.summary["mean_ttft_ms"], rel=1e-9)
    assert len(r.timeseries) > 0
    assert list(r.classes.index) == ["conversation"]
    assert list(r.pools.index) == ["main"]
    assert r.name == "quickstart" and r.seed == 1


def test_run_summary_comes_from_memory_as_the_file_has_it(tmp_path):
    # One output token each: no inter-token gap, so the ITL figures are NaN in the run and
    # null in summary.json; the package hands them as None, with the key order of the file.
    one_token = json.loads(json.dumps(SMALL))
    one_token["workload"][0]["output"] = {"fixed": 1}
    r = servesim.run(one_token, out=str(tmp_path / "py"))
    with open(tmp_path / "py" / "summary.json") as f:
        on_disk = json.load(f)
    assert r.summary == on_disk
    assert list(r.summary) == list(on_disk)
    assert r.summary["mean_itl_ms"] is None
    assert isinstance(r.summary["completed"], int) and r.summary["completed"] == 200


def test_a_dict_a_yaml_text_and_a_file_are_the_same_scenario(tmp_path):
    from_dict = servesim.run(SMALL)
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps(SMALL))
    from_file = servesim.run(str(path))
    text = json.dumps(SMALL, indent=2)  # several lines: read as YAML text, not a path
    from_text = servesim.run(text)
    # The same run; only the deployment block's scenario file name tells them apart.
    names = [r.summary["deployment"].pop("scenario") for r in (from_dict, from_file, from_text)]
    assert names[1] == "small.yaml"
    assert from_dict.summary == from_file.summary == from_text.summary
    assert from_dict.summary["completed"] == 200
    # A temporary folder holds the files while the Result lives.
    assert os.path.exists(os.path.join(from_dict.out_dir, "requests.csv"))


def test_seed_changes_the_run_and_replicates_add_intervals():
    a = servesim.run(SMALL, seed=1)
    b = servesim.run(SMALL, seed=2)
    assert a.summary["mean_ttft_ms"] != b.summary["mean_ttft_ms"]
    r = servesim.run(SMALL, seed=1, replicates=3)
    assert r.summary["replicates"]["n"] == 3
    interval = r.summary["replicates"]["mean_ttft_ms"]
    assert interval["lo"] <= interval["mean"] <= interval["hi"]
    # The files are the first seed's run.
    assert r.summary["mean_ttft_ms"] == a.summary["mean_ttft_ms"]


def test_bad_input_raises_config_error_with_the_cli_message(tmp_path):
    bad = dict(SMALL, cluster={"pools": [dict(SMALL["cluster"]["pools"][0], replicaz=2)]})
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(bad)
    assert isinstance(e.value, ValueError)
    message = str(e.value)
    assert "replicaz" in message and "did you mean 'replicas'" in message
    assert "<scenario>" in message and "servesim-" not in message
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent("""\
        name: bad
        stop: {requests: 10}
        workload:
          - class: chat
            arrival: {process: poisson, rate: 1}
            input: {fixed: 10}
            output: {fixed: 10}
        cluster:
          pools:
            - {name: main, replicas: 1, model: llama-3-8c, hardware: h100-sxm}
        """))
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(str(path))
    assert f"{path}:10:" in str(e.value) and "llama-3-8b" in str(e.value)
    done = subprocess.run([CLI, "validate", str(path)], capture_output=True, text=True)
    assert done.returncode == 2
    assert str(e.value) in done.stderr
    # Replicates are checked by the studies themselves (run_to_files, run_sweep,
    # plan_capacity, run_search), so every entry refuses the same count in the same words.
    for study in (lambda: servesim.run(SMALL, replicates=0),
                  lambda: servesim.capacity(SMALL, slo="ttft_p99=1s", replicates=0),
                  lambda: servesim.sweep(SMALL, {"workload.0.arrival.rate": [2, 4]}, replicates=0),
                  lambda: servesim.search(SMALL, os.path.join(ROOT, "scenarios", "spaces", "quickstart.yaml"),
                                          slo="ttft_p99=1s", replicates=1001)):
        with pytest.raises(servesim.ConfigError, match=r"^replicates: must be a whole number from 1 to 1000, got (0|1001)$"):
            study()
    with pytest.raises(servesim.ConfigError, match="stop.requestz"):
        servesim.run(SMALL, set={"stop.requestz": 5})


def test_run_refuses_and_warns_as_the_cli_does(tmp_path):
    """The checks `servesim run` makes before it runs (docs/scenario.md, "Checks before a run")."""
    pool = SMALL["cluster"]["pools"][0]
    tiny_cache = dict(SMALL, cluster={"pools": [dict(pool, engine={"preset": "vllm", "kv_cache_tokens": 16})]})
    with pytest.raises(servesim.ConfigError, match="kv_cache_tokens: class 'chat' cannot be served"):
        servesim.run(tiny_cache)
    # llama-3-8b's context is 8192 tokens: uniform [1000, 9000] prompts with 192 outputs pass
    # it from a prompt of 8001 on, (9000 - 8000.5) / 8000 = 12.5% of them.
    wide = dict(SMALL, workload=[dict(SMALL["workload"][0], input={"uniform": [1000, 9000]}, output={"fixed": 192})])
    with pytest.warns(UserWarning, match=r"12\.5% of the requests of class 'chat' will be rejected"):
        servesim.run(wide, out=str(tmp_path / "wide"))
    # 10 ms of 5000-token answers: nothing finishes, and run says so as the CLI does.
    short = dict(SMALL, stop={"time": "10ms"}, workload=[dict(SMALL["workload"][0], output={"fixed": 5000})])
    with pytest.warns(UserWarning, match="no request completed"):
        servesim.run(short, out=str(tmp_path / "short"))


def test_sweep_is_the_cli_table(tmp_path):
    cli("sweep", QUICKSTART, "--set", "stop.requests=200", "--axis", "workload.0.trace.speedup=1,4",
        "--out", str(tmp_path / "cli"), "-q")
    table = servesim.sweep(QUICKSTART, axes={"workload.0.trace.speedup": [1, 4]}, set={"stop.requests": 200},
                           jobs=2)
    assert table.attrs["sweep_csv"] == (tmp_path / "cli" / "sweep.csv").read_text()
    pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "cli" / "sweep.csv"))
    assert len(table) == 2
    # A busier replay waits longer for its first token.
    assert table["p99_ttft_ms"].iloc[1] > table["p99_ttft_ms"].iloc[0]


def test_capacity_is_the_cli_answer(tmp_path):
    args = ["--set", "stop.requests=300", "--slo", "ttft_p99=500ms", "--tolerance", "5%"]
    done = cli("capacity", os.path.join(ROOT, "scenarios", "quickstart.yaml"), *args, "--json")
    expected = json.loads(done.stdout)
    got = servesim.capacity(QUICKSTART, slo={"ttft_p99": "500ms"}, tolerance=0.05, set={"stop.requests": 300})
    assert got == expected


def test_capacity_energy_objective_is_the_cli_answer():
    args = ["--set", "stop.requests=300", "--set", "cluster.energy.price_per_kwh=0.12", "--slo", "ttft_p99=500ms",
            "--tolerance", "5%", "--objective", "energy"]
    done = cli("capacity", os.path.join(ROOT, "scenarios", "quickstart.yaml"), *args, "--json")
    expected = json.loads(done.stdout)
    got = servesim.capacity(QUICKSTART, slo={"ttft_p99": "500ms"}, tolerance=0.05, objective="energy",
                            set={"stop.requests": 300, "cluster.energy.price_per_kwh": 0.12})
    assert got == expected
    # USD 0.12 per kWh of the run's mean power, an hour of it.
    assert got["energy"]["energy_cost_per_hour"] == pytest.approx(got["energy"]["mean_power_w"] / 1000 * 0.12)


def test_the_gil_is_released_while_simulating():
    ticks = []
    result = {}

    def simulate():
        result["r"] = servesim.run(QUICKSTART, timeseries=False)

    thread = threading.Thread(target=simulate)
    thread.start()
    while thread.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    thread.join()
    assert result["r"].summary["completed"] == 2000
    # The main thread kept running Python while the other thread simulated.
    assert len(ticks) >= 5


def test_ctrl_c_stops_a_run():
    endless = dict(SMALL, stop={"requests": 50000000})
    program = textwrap.dedent(f"""\
        import servesim, sys
        try:
            servesim.run({endless!r}, timeseries=False)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        """)
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", program], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 3, out
    assert "interrupted" in out


def test_imports_from_any_folder(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import servesim; print(servesim.__version__)"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == servesim.__version__


def test_step_is_the_cli_step():
    done = cli("step", "--model", "llama-3-8b", "--hardware", "h100-sxm", "--prefill", "2048", "--prefill", "512:1024",
               "--decode", "32:4096", "--json")
    expected = json.loads(done.stdout)
    got = servesim.step("llama-3-8b", "h100-sxm", prefill=[2048, (512, 1024)], decode=[(32, 4096)])
    ops = got.pop("ops")
    assert ops.to_dict("records") == expected.pop("ops")
    assert got == expected
    with pytest.raises(servesim.ConfigError, match="llama-3-8b"):
        servesim.step("llama-3-8c", "h100-sxm", decode=[(1, 10)])
    with pytest.raises(servesim.ConfigError, match="engine"):
        servesim.step("llama-3-8b", "h100-sxm", decode=[(1, 10)], engine="tgi")


# The same bad step requests through the CLI and the package: both are refused by
# price_step's one check (sim/study/step_study.h), so the messages are the same words.
BAD_STEPS = [
    ({"kv": "int4"}, ["--kv", "int4"]),
    ({"weights": "fp4"}, ["--weights", "fp4"]),
    ({"activations": "int8"}, ["--activations", "int8"]),
    ({"tp": 0}, ["--tp", "0"]),
    ({"ep": -2}, ["--ep", "-2"]),
    ({"micro_batches": 4}, ["--micro-batches", "4"]),
    ({"micro_batches": -1, "pp": 2}, ["--micro-batches", "-1", "--pp", "2"]),
    ({"engine": "tgi"}, ["--engine", "tgi"]),
    ({"cuda_graphs": -1}, ["--cuda-graphs", "-1"]),
]


@pytest.mark.parametrize("kwargs,args", BAD_STEPS)
def test_a_bad_step_is_refused_by_the_cli_and_the_package_in_the_same_words(kwargs, args):
    done = subprocess.run([CLI, "step", "--model", "llama-3-8b", "--hardware", "h100-sxm", "--decode", "8:1024", *args],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    prefix = "servesim step: error: "
    assert done.stderr.startswith(prefix), done.stderr
    cli_message = done.stderr[len(prefix):].splitlines()[0]
    with pytest.raises(servesim.ConfigError) as refused:
        servesim.step("llama-3-8b", "h100-sxm", decode=[(8, 1024)], **kwargs)
    assert str(refused.value) == cli_message


SPACE = os.path.join(ROOT, "scenarios", "spaces", "quickstart.yaml")

# The studies check their own requests (SweepRequest/CapacityRequest/SearchRequest::validate):
# each bad value, given to the CLI as its option and to the package as its argument, is
# refused in the same words. Shares are fractions in Python and percentages on the CLI.
BAD_STUDIES = [
    ("sweep", {"axes": {"engine.max_num_seqs": [8, 16]}, "jobs": 0},
     ["--axis", "engine.max_num_seqs=8,16", "--jobs", "0"]),
    ("sweep", {"axes": {"engine.max_num_seqs": [8, 16]}, "replicates": 0},
     ["--axis", "engine.max_num_seqs=8,16", "--replicates", "0"]),
    ("capacity", {"tolerance": 0}, ["--tolerance", "0%"]),
    ("capacity", {"max_rejected": 1.5}, ["--max-rejected", "150%"]),
    ("capacity", {"replicates": 1001}, ["--replicates", "1001"]),
    ("capacity", {"objective": "cost"}, ["--objective", "cost"]),
    # quickstart.yaml has no cluster.energy: nothing to report the energy from.
    ("capacity", {"slo": "ttft_p99=2s", "objective": "energy"}, ["--slo", "ttft_p99=2s", "--objective", "energy"]),
    ("search", {"space": SPACE, "rate": 0}, ["--space", SPACE, "--rate", "0"]),
    ("search", {"space": SPACE, "jobs": 0}, ["--space", SPACE, "--jobs", "0"]),
    ("search", {"space": SPACE, "objective": "watts"}, ["--space", SPACE, "--objective", "watts"]),
    # quickstart.yaml has no cluster.energy: the energy objective has nothing to rank by.
    ("search", {"space": SPACE, "objective": "energy"}, ["--space", SPACE, "--objective", "energy"]),
]


@pytest.mark.parametrize("study,kwargs,args", BAD_STUDIES)
def test_a_bad_study_request_is_refused_by_the_cli_and_the_package_in_the_same_words(study, kwargs, args):
    done = subprocess.run([CLI, study, QUICKSTART, *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    prefix = f"servesim {study}: error: "
    assert done.stderr.startswith(prefix), done.stderr
    cli_message = done.stderr[len(prefix):].splitlines()[0]
    with pytest.raises(servesim.ConfigError) as refused:
        getattr(servesim, study)(QUICKSTART, **kwargs)
    assert str(refused.value) == cli_message


def test_step_warns_as_the_cli_step_does():
    # data/kernels/h100_sxm has vllm-0.14.0 and vllm-0.24.0: 0.1 is older than both, so the
    # CLI warns that 0.14.0's tables priced it (tests/cli/step_engine_options_test.cpp).
    done = cli("step", "--model", "llama-3-8b", "--hardware", "h100-sxm", "--decode", "8:1024",
               "--engine-version", "0.1")
    assert "warning: vllm 0.1 has no tables of its own; using 0.14.0, the oldest measured" in done.stderr
    with pytest.warns(UserWarning, match="vllm 0.1 has no tables of its own; using 0.14.0, the oldest measured"):
        servesim.step("llama-3-8b", "h100-sxm", decode=[(8, 1024)], engine_version="0.1")
    # llama-3-8b's context is 8192 tokens (models/llama-3-8b.yaml max_context_tokens): a decode
    # over 9000 tokens of context reaches 9001.
    with pytest.warns(UserWarning, match="a sequence reaches 9001 tokens, beyond llama-3-8b's context of 8192"):
        servesim.step("llama-3-8b", "h100-sxm", decode=[(1, 9000)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        servesim.step("llama-3-8b", "h100-sxm", decode=[(8, 1024)])


def test_to_html_writes_the_cli_report(tmp_path):
    r = servesim.run(QUICKSTART, set={"stop.requests": 200}, out=str(tmp_path / "run"))
    path = r.to_html()
    assert path == str(tmp_path / "run" / "report.html")
    # The page says what was simulated, as the CLI's does when told the scenario.
    cli("report", str(tmp_path / "run"), "-o", str(tmp_path / "cli.html"), "--scenario", QUICKSTART,
        "--set", "stop.requests=200")
    page = (tmp_path / "run" / "report.html").read_bytes()
    assert (tmp_path / "cli.html").read_bytes() == page
    assert b"llama-3-8b" in page and b"quickstart" in page
    # servesim.report on the folder alone has only what summary.json says, as `servesim report DIR`.
    servesim.report(str(tmp_path / "run"), str(tmp_path / "bare.html"))
    cli("report", str(tmp_path / "run"), "-o", str(tmp_path / "cli-bare.html"))
    assert (tmp_path / "bare.html").read_bytes() == (tmp_path / "cli-bare.html").read_bytes()
    assert (tmp_path / "bare.html").read_bytes() != page


def test_explain_is_the_cli_explain(tmp_path):
    done = cli("explain", QUICKSTART, "--set", "stop.requests=200", "--json", "--out", str(tmp_path))
    expected = json.loads(done.stdout)
    got = servesim.explain(QUICKSTART, set={"stop.requests": 200}, jobs=2)
    table = got.pop("table")
    assert got == expected
    assert list(table["lever"]) == [v["lever"] for v in expected["variants"]]
    assert got["metrics"]["median_ttft_ms"]["owner"] in ("prefill", "decode", "capacity", "none")


def test_compare_is_the_cli_compare(tmp_path):
    base = servesim.run(SMALL, out=str(tmp_path / "a"))
    worse = servesim.run(SMALL, set={"workload.0.arrival.rate": 12}, out=str(tmp_path / "b"))
    assert worse.summary["p99_ttft_ms"] > 1.1 * base.summary["p99_ttft_ms"]
    done = subprocess.run([CLI, "compare", str(tmp_path / "a" / "summary.json"), str(tmp_path / "b" / "summary.json"),
                           "--tolerance", "10%", "--json"], capture_output=True, text=True)
    assert done.returncode == 1  # a regression
    got = servesim.compare(tmp_path / "a", tmp_path / "b", tolerance="10%")
    table = got.pop("table")
    assert got == json.loads(done.stdout)
    assert got["regressions"] > 0
    assert "p99_ttft_ms" in set(table[table["verdict"] == "regression"]["field"])
    same = servesim.compare(tmp_path / "a", tmp_path / "a", tolerance=0.05)
    assert same["regressions"] == 0


def test_compare_reads_a_tolerance_as_the_cli_does(tmp_path):
    servesim.run(SMALL, out=str(tmp_path / "a"))
    summary = str(tmp_path / "a" / "summary.json")
    done = subprocess.run([CLI, "compare", summary, summary, "--tolerance", "5"], capture_output=True, text=True)
    assert done.returncode == 2
    cli_message = done.stderr.split("error: ", 1)[1].splitlines()[0]
    with pytest.raises(servesim.ConfigError) as refused:
        servesim.compare(tmp_path / "a", tmp_path / "a", tolerance="5")
    # The same reading and words; only the option's name differs (--tolerance, tolerance).
    assert str(refused.value) == cli_message.replace("--tolerance", "tolerance")
    assert servesim.compare(tmp_path / "a", tmp_path / "a", tolerance=" 12.5 %")["regressions"] == 0


def test_a_seed_that_is_not_a_whole_number_from_0_is_a_config_error(tmp_path):
    for seed in (-3, 2**64, 1.5, True, "3"):
        with pytest.raises(servesim.ConfigError, match=r"seed: must be a whole number from 0 to 2\^64-1"):
            servesim.run(SMALL, seed=seed, out=str(tmp_path / "x"))
    for call in (lambda: servesim.sweep(SMALL, {"stop.requests": [50]}, seed=-3),
                 lambda: servesim.capacity(SMALL, slo="ttft_p99=2s", seed=-3),
                 lambda: servesim.explain(SMALL, seed=-3)):
        with pytest.raises(servesim.ConfigError, match="got -3"):
            call()
    top = servesim.run(SMALL, set={"stop.requests": 20}, seed=2**64 - 1, out=str(tmp_path / "top"))
    assert top.seed == 2**64 - 1


def test_relative_paths_of_a_dict_scenario(tmp_path, monkeypatch):
    """A dict has no folder: its relative paths are bundled names; a set= value is also
    looked up from the working directory, as --set's is."""
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(ROOT, "models", "llama-3-8b.yaml"), encoding="utf-8") as f:
        (tmp_path / "mine.yaml").write_text(f.read().replace("name: llama-3-8b", "name: mine"))
    small = json.loads(json.dumps(SMALL))
    small["stop"] = {"requests": 20}
    small["cluster"]["pools"][0]["model"] = "mine.yaml"
    with pytest.raises(servesim.ConfigError, match="unknown model 'mine.yaml'"):
        servesim.run(small, out=str(tmp_path / "a"))
    by_set = servesim.run(small, set={"cluster.pools.0.model": "mine.yaml"}, out=str(tmp_path / "b"))
    small["cluster"]["pools"][0]["model"] = str(tmp_path / "mine.yaml")
    absolute = servesim.run(small, out=str(tmp_path / "c"))
    assert by_set.summary["p99_ttft_ms"] == absolute.summary["p99_ttft_ms"]
    assert by_set.summary["pools"] == absolute.summary["pools"]


def test_a_run_that_cannot_finish_warns_before_it_starts(tmp_path):
    endless = json.loads(json.dumps(SMALL))
    endless["stop"] = {"time": "60s"}
    endless["workload"][0]["arrival"]["rate"] = 1e12  # 6e13 requests: years of wall time
    with pytest.warns(UserWarning, match=r"this run simulates about 6e\+13 requests"):
        with pytest.raises(servesim.ConfigError, match="cannot create the output folder"):
            servesim.run(endless, out="/dev/null/x")  # the unwritable folder stops it before it runs
