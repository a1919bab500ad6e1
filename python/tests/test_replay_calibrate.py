"""servesim.replay, servesim.calibrate and servesim.calibrate_hardware against `servesim
replay` and `servesim calibrate` (--from-benchmark, --measurements, --from-kernels): the same
inputs give the same figures, the same profile file and, for bad input, the same words.

Run by CTest (python/CMakeLists.txt) with PYTHONPATH=<build>/python and SERVESIM_BUILD_DIR,
from the repository root.
"""
import json
import os
import subprocess

import pytest

import servesim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SERVESIM_BUILD_DIR", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "servesim")

# An 8B deployment whose engine pays known CPU overheads on every step and for every new
# request, with async scheduling off so that they show (tests/cli/replay_calibrate_test.cpp).
KNOWN = """\
name: known-overheads
seed: 3
stop: {requests: 300}
workload:
  - class: chat
    arrival: {process: poisson, rate: 8}
    input: {uniform: [100, 2000]}
    output: {uniform: [20, 400]}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine:
        preset: vllm
        async_scheduling: false
        overheads: {per_step: 2ms, per_request: 5ms}
"""
# The overheads taken out again, for calibration to find.
ZERO = ["cluster.pools.0.engine.overheads.per_step=0ms", "cluster.pools.0.engine.overheads.per_request=0ms"]


def cli(*args, expect=0):
    done = subprocess.run([CLI, *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == expect, done.stderr
    return done


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """The known scenario and its run written as `vllm bench serve --save-detailed` writes one."""
    folder = tmp_path_factory.mktemp("bench")
    scenario = folder / "known.yaml"
    scenario.write_text(KNOWN)
    cli("run", str(scenario), "--bench-format", "vllm", "--out", str(folder / "run"), "-q")
    return str(folder / "run" / "vllm_bench.json"), str(scenario)


def test_replay_gives_the_cli_figures(bench):
    path, scenario = bench
    sets = ["--set", "cluster.pools.0.replicas=2"]
    expected = json.loads(cli("replay", path, "--scenario", scenario, *sets, "--tolerance", "10%", "--json",
                              expect=1).stdout)
    table = servesim.replay(path, scenario, set={"cluster.pools.0.replicas": 2}, tolerance=0.1)
    assert table.attrs["json"] == expected
    assert table.attrs["beyond_tolerance"] == expected["beyond_tolerance"] > 0
    assert table.attrs["tolerance"] == 0.1
    figures = expected["sets"][0]["figures"]
    assert len(table) == len(figures) == 18  # ttft, itl, tpot, e2el x (mean, p50, p90, p99), 2 throughputs
    assert list(table.columns) == ["set", "requests", "figure", "measured", "simulated", "error"]
    assert table["figure"].tolist() == [f["figure"] for f in figures]
    assert table["simulated"].tolist() == [f["simulated"] for f in figures]
    # The error is simulated / measured - 1, each row worked out again here.
    row = table.set_index("figure").loc["ttft_mean_ms"]
    assert row["error"] == pytest.approx(row["simulated"] / row["measured"] - 1, rel=1e-12)
    # Two replicas instead of one: the same requests wait less for their first token.
    assert row["simulated"] < row["measured"]
    text = cli("replay", path, "--scenario", scenario, *sets, "--tolerance", "10%", expect=1).stdout
    assert table.attrs["table"] == text


def test_replay_of_its_own_run_matches_it(bench):
    path, scenario = bench
    table = servesim.replay(path, scenario)
    assert "tolerance" not in table.attrs
    assert table.attrs["benchmark"]["replayed"] == 300 and table.attrs["simulated"]["completed"] == 300
    # The run replayed through its own deployment: every figure but the ITL percentiles (a
    # written file spreads a request's decode time evenly over its gaps) comes back.
    same = table[~table["figure"].str.match(r"itl_p\d")]
    assert (same["error"].abs() <= 0.01).all(), same
    # The scenario as a YAML text: the same replay, named "<scenario>".
    with open(scenario, encoding="utf-8") as f:
        from_text = servesim.replay(path, f.read())
    assert from_text.attrs["scenario"] == "<scenario>"
    assert from_text["simulated"].tolist() == table["simulated"].tolist()


def test_calibrate_writes_the_cli_profile(bench, tmp_path):
    path, scenario = bench
    sets = [a for s in ZERO for a in ("--set", s)]
    cli("calibrate", "--from-benchmark", path, "--scenario", scenario, *sets, "--max-replays", "40",
        "-o", str(tmp_path / "cli.yaml"))
    fit = servesim.calibrate(path, scenario, set=ZERO, max_replays=40, output=str(tmp_path / "py.yaml"))
    assert (tmp_path / "py.yaml").read_text() == (tmp_path / "cli.yaml").read_text()
    assert fit["profile_yaml"] == (tmp_path / "cli.yaml").read_text()
    assert fit["source"] == "requests" and fit["knobs"] == ["per_step", "per_request"]
    assert fit["start_ms"] == {"per_step": 0.0, "per_request": 0.0, "per_token": 0.0}
    # The run paid 2 ms a step and 5 ms a request, taken out of the scenario: the fit puts
    # overheads back and its error falls. (How close 40 replays of 300 requests come is the
    # C++ test's: tests/cli/replay_calibrate_test.cpp, 800 requests.)
    assert fit["fitted_ms"]["per_step"] > 1.0 and fit["fitted_ms"]["per_request"] > 1.0
    assert fit["unidentified"] == []
    assert fit["objective_after"] < fit["objective_before"] / 10
    assert "held out" in fit["report"]
    # The profile as values: the fitted overheads in microseconds, to 0.1 us.
    assert fit["profile"]["preset"] == "vllm"
    for knob in ("per_step", "per_request", "per_token"):
        assert fit["profile"]["overheads"][knob] == f"{fit['fitted_ms'][knob] * 1000:.1f}us"


def test_calibrate_without_output_writes_nothing(bench, tmp_path, monkeypatch):
    path, scenario = bench
    monkeypatch.chdir(tmp_path)
    fit = servesim.calibrate(path, scenario, set=ZERO, fit=["per_request"], max_replays=10)
    assert fit["knobs"] == ["per_request"] and fit["fitted_ms"]["per_step"] == 0.0
    assert os.listdir(tmp_path) == []
    done = cli("calibrate", "--from-benchmark", path, "--scenario", scenario, *[a for s in ZERO for a in ("--set", s)],
               "--fit", "per_request", "--max-replays", "10")
    assert fit["profile_yaml"] == done.stdout  # the profile the CLI prints without -o


def test_calibrate_to_aggregates_writes_the_cli_profile(bench, tmp_path):
    """A vllm bench serve result saved without --save-detailed: the scenario's workload is run
    and fitted to the file's means and percentiles (tests/cli/calibrate_summary_test.cpp)."""
    path, scenario = bench
    with open(path, encoding="utf-8") as f:
        result = json.load(f)
    for key in ("input_lens", "output_lens", "ttfts", "itls", "errors", "latencies", "start_times", "generated_texts"):
        result.pop(key, None)
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps(result))
    sets = [a for s in ZERO for a in ("--set", s)]
    cli("calibrate", "--from-benchmark", str(summary), "--scenario", scenario, *sets, "--max-replays", "10",
        "-o", str(tmp_path / "cli.yaml"))
    fit = servesim.calibrate(str(summary), scenario, set=ZERO, max_replays=10)
    assert fit["profile_yaml"] == (tmp_path / "cli.yaml").read_text()
    assert fit["source"] == "aggregates" and fit["split"]
    assert fit["benchmark"].endswith("(1 stage; the workload is the scenario's)")
    assert fit["objective_after"] < fit["objective_before"]


# The same bad requests through the CLI and the package. Each is refused once, by the path
# both share (sim/report/replay_outcome.h, sim/report/benchmark_calibration_outcome.h): a
# ConfigError the CLI prints after "error: ", or lines it prints as they are (a benchmark of
# another deployment) that the package raises whole.
BAD_REPLAYS = [
    ({"tolerance": "5"}, ["--tolerance", "5"]),
    ({"tolerance": -0.1}, ["--tolerance", "-10%"]),
    ({"format": "nope"}, ["--format", "nope"]),
    ({"set": {"cluster.pools.0.replicaz": 2}}, ["--set", "cluster.pools.0.replicaz=2"]),
    ({"set": {"cluster.pools.0.model": "mistral-7b"}}, ["--set", "cluster.pools.0.model=mistral-7b"]),
]


def refusal(done, command):
    """What the CLI said before its exit 2, as the package raises it."""
    assert done.returncode == 2, done.stderr
    prefix = f"servesim {command}: error: "
    text = done.stderr.rstrip("\n")
    return text[len(prefix):] if text.startswith(prefix) and "\n" not in text else text


@pytest.mark.parametrize("kwargs,args", BAD_REPLAYS)
def test_a_bad_replay_is_refused_by_the_cli_and_the_package_in_the_same_words(bench, kwargs, args):
    path, scenario = bench
    done = subprocess.run([CLI, "replay", path, "--scenario", scenario, *args], cwd=ROOT, capture_output=True,
                          text=True)
    with pytest.raises(servesim.ConfigError) as refused:
        servesim.replay(path, scenario, **kwargs)
    assert str(refused.value) == refusal(done, "replay")


BAD_CALIBRATIONS = [
    ({"max_replays": 0}, ["--max-replays", "0"]),
    ({"fit": "per_foo"}, ["--fit", "per_foo"]),
    ({"fit": []}, ["--fit", ""]),
    ({"fit_stages": [1]}, ["--fit-stages", "1"]),
    ({"format": "guidellm"}, ["--format", "guidellm"]),
    ({"set": {"cluster.pools.0.model": "mistral-7b"}}, ["--set", "cluster.pools.0.model=mistral-7b"]),
]


@pytest.mark.parametrize("kwargs,args", BAD_CALIBRATIONS)
def test_a_bad_calibration_is_refused_by_the_cli_and_the_package_in_the_same_words(bench, kwargs, args):
    path, scenario = bench
    done = subprocess.run([CLI, "calibrate", "--from-benchmark", path, "--scenario", scenario, *args], cwd=ROOT,
                          capture_output=True, text=True)
    with pytest.raises(servesim.ConfigError) as refused:
        servesim.calibrate(path, scenario, **kwargs)
    assert str(refused.value) == refusal(done, "calibrate")


def test_a_forced_replay_warns_as_the_cli_does(bench):
    path, scenario = bench
    done = cli("replay", path, "--scenario", scenario, "--set", "cluster.pools.0.model=mistral-7b", "--force")
    lines = [line.split(": warning: ", 1)[1] for line in done.stderr.splitlines()]
    assert any("mistral-7b" in line for line in lines)
    with pytest.warns(UserWarning) as warned:
        servesim.replay(path, scenario, set={"cluster.pools.0.model": "mistral-7b"}, force=True)
    assert [str(w.message) for w in warned] == lines
    # The scenario as a YAML text: its temporary file is named "<scenario>", as errors name it.
    with open(scenario, encoding="utf-8") as f:
        text = f.read()
    with pytest.warns(UserWarning) as warned:
        servesim.replay(path, text, set={"cluster.pools.0.model": "mistral-7b"}, force=True)
    assert [str(w.message) for w in warned] == [line.replace(scenario, "<scenario>") for line in lines]
    assert any("<scenario>" in str(w.message) for w in warned)


def test_replay_without_pandas_gives_a_list_of_dicts(bench, monkeypatch):
    path, scenario = bench
    table = servesim.replay(path, scenario)

    def no_pandas():
        raise ImportError("No module named 'pandas'")

    monkeypatch.setattr(servesim, "_pandas", no_pandas)
    rows = servesim.replay(path, scenario)
    assert rows == table.to_dict("records")
    assert list(rows[0]) == ["set", "requests", "figure", "measured", "simulated", "error"]
    assert (rows[0]["set"], rows[0]["requests"], rows[0]["figure"]) == ("all", 300, "ttft_mean_ms")


MEASUREMENTS = "data/measurements/h200_llama3_8b_steps.csv"


def test_calibrate_hardware_writes_the_cli_profiles(tmp_path):
    cli("calibrate", "--hardware", "h200", "--model", "llama-3-8b", "--measurements", MEASUREMENTS,
        "--fit-max-prefill", "1000", "-o", str(tmp_path / "cli.yaml"))
    fit = servesim.calibrate_hardware("h200", measurements=MEASUREMENTS, model="llama-3-8b", fit_max_prefill=1000,
                                      output=str(tmp_path / "py.yaml"))
    assert (tmp_path / "py.yaml").read_text() == (tmp_path / "cli.yaml").read_text() == fit["profile_yaml"]
    assert fit["command"] == f"servesim calibrate --hardware h200 --model llama-3-8b --measurements {MEASUREMENTS}" \
                             " --fit-max-prefill 1000"
    assert fit["profile"]["calibrated_from"] == MEASUREMENTS
    cli("calibrate", "--from-kernels", "h100_sxm/vllm-0.14.0", "--hardware", "h100-sxm", "-o", str(tmp_path / "k.yaml"))
    tables = servesim.calibrate_hardware("h100-sxm", kernels="h100_sxm/vllm-0.14.0")
    assert tables["profile_yaml"] == (tmp_path / "k.yaml").read_text()
    assert "layer_overhead_us" in tables["report"]


BAD_HARDWARE_FITS = [
    ({"hardware": "h200", "measurements": MEASUREMENTS, "model": "llama-3-8b", "fit_max_prefill": -1},
     ["--hardware", "h200", "--measurements", MEASUREMENTS, "--model", "llama-3-8b", "--fit-max-prefill", "-1"]),
    ({"hardware": "h200", "measurements": MEASUREMENTS, "model": "llama-3-8b", "fit_max_context": -5},
     ["--hardware", "h200", "--measurements", MEASUREMENTS, "--model", "llama-3-8b", "--fit-max-context", "-5"]),
    ({"hardware": "h2000", "measurements": MEASUREMENTS, "model": "llama-3-8b"},
     ["--hardware", "h2000", "--measurements", MEASUREMENTS, "--model", "llama-3-8b"]),
    ({"hardware": "h200", "measurements": "absent.csv", "model": "llama-3-8b"},
     ["--hardware", "h200", "--measurements", "absent.csv", "--model", "llama-3-8b"]),
    ({"hardware": "h100-sxm", "kernels": "h100_sxm/vllm-0.0.1"},
     ["--hardware", "h100-sxm", "--from-kernels", "h100_sxm/vllm-0.0.1"]),
]


@pytest.mark.parametrize("kwargs,args", BAD_HARDWARE_FITS)
def test_a_bad_hardware_fit_is_refused_by_the_cli_and_the_package_in_the_same_words(kwargs, args):
    done = subprocess.run([CLI, "calibrate", *args], cwd=ROOT, capture_output=True, text=True)
    with pytest.raises(servesim.ConfigError) as refused:
        servesim.calibrate_hardware(**kwargs)
    assert str(refused.value) == refusal(done, "calibrate")
