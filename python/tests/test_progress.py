"""Progress of sweeps and searches: the study's per-run hook reaches a Python callable (or a
tqdm bar where tqdm is installed), which may stop the study; the table is the same with or
without it.

Run by CTest (python/CMakeLists.txt) with PYTHONPATH=<build>/python, from the repository root.
"""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import types

import pytest

import servesim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SMALL = {
    "name": "py-progress",
    "seed": 7,
    "stop": {"requests": 100},
    "workload": [{
        "class": "chat",
        "arrival": {"process": "poisson", "rate": 4},
        "input": {"fixed": 512},
        "output": {"fixed": 64},
    }],
    "cluster": {"pools": [{"name": "main", "replicas": 1, "model": "llama-3-8b", "hardware": "h100-sxm",
                           "engine": {"preset": "vllm"}}]},
}
RATES = {"workload.0.arrival.rate": [1, 2, 3, 4, 5, 6]}


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_sweep_calls_progress_once_it_knows_its_points_and_after_each(jobs):
    calls = []
    threads = set()

    def progress(done, total):
        calls.append((done, total))
        threads.add(threading.get_ident())

    table = servesim.sweep(SMALL, RATES, jobs=jobs, progress=progress)
    # 6 points: (0, 6) before any run, then one call per point, counted in the order they end.
    assert calls == [(i, 6) for i in range(7)]
    assert table.attrs["sweep_csv"] == servesim.sweep(SMALL, RATES, progress=False).attrs["sweep_csv"]


def test_a_sweep_on_an_executor_counts_its_shards():
    from concurrent.futures import ThreadPoolExecutor

    calls = []
    with ThreadPoolExecutor(2) as pool:
        table = servesim.sweep(SMALL, RATES, executor=pool, shards=3, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert len(table) == 6


def test_an_exception_in_progress_stops_the_sweep():
    calls = []

    def progress(done, total):
        calls.append(done)
        if done == 2:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        servesim.sweep(SMALL, RATES, jobs=1, progress=progress)
    # In one thread the points run in order: none starts after the one that raised.
    assert calls == [0, 1, 2]


def test_a_search_reports_each_candidate_run():
    calls = []
    space = os.path.join(ROOT, "scenarios", "spaces", "quickstart.yaml")
    report = servesim.search(os.path.join(ROOT, "scenarios", "quickstart.yaml"), space, slo="ttft_p99=2s",
                             set={"stop.requests": 200}, jobs=2, progress=lambda d, t: calls.append((d, t)))
    # search.json's "candidates" counts them, "runs" those run, "pruned" those never run.
    total = report["candidates"]
    assert calls[0] == (0, total)
    assert [d for d, _ in calls] == list(range(report["runs"] + 1))
    assert report["runs"] + report["pruned"] == total
    assert {t for _, t in calls} == {total}


def test_progress_true_draws_a_tqdm_bar_where_tqdm_is_installed(monkeypatch):
    bars = []

    class FakeBar:  # what _progress uses of tqdm: total, desc, update, n, close
        def __init__(self, total, desc, unit):
            self.total, self.desc, self.n, self.closed = total, desc, 0, False
            bars.append(self)

        def update(self, k):
            self.n += k

        def close(self):
            self.closed = True

    tqdm = types.ModuleType("tqdm")
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeBar
    tqdm.auto = auto
    monkeypatch.setitem(sys.modules, "tqdm", tqdm)
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    servesim.sweep(SMALL, RATES, jobs=2, progress=True)
    assert len(bars) == 1 and (bars[0].total, bars[0].n, bars[0].desc, bars[0].closed) == (6, 6, "sweep", True)


def test_progress_without_tqdm_is_no_failure(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    table = servesim.sweep(SMALL, {"workload.0.arrival.rate": [2]}, progress=True)
    assert len(table) == 1


def test_ctrl_c_stops_a_sweep_after_the_point_under_way():
    long_points = dict(SMALL, stop={"requests": 400000})
    program = textwrap.dedent(f"""\
        import servesim, sys, time
        started = time.monotonic()
        try:
            servesim.sweep({long_points!r}, {{"workload.0.arrival.rate": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}},
                           progress=lambda done, total: print(done, flush=True))
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        """)
    proc = subprocess.Popen([sys.executable, "-c", program], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "0"  # the points are loaded: the sweep runs
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 3, out
    lines = out.split()
    # Stopped at the end of the point under way, well before the tenth.
    assert lines[-1] == "interrupted" and len(lines) - 1 < 10
