"""Sweeps on real distributed engines: GNU parallel, a Dask cluster and a one-node Slurm
cluster each run the shards of a sweep, and the merged table must be the unsharded sweep's,
byte for byte. The recipes run are the README's (examples/sweep-parallel.sh,
examples/sweep-slurm.sh). Each engine's test is skipped, saying why, only where its
packages are not installed (scripts/test installs them: parallel, python3-distributed,
slurm-wlm, munge).
"""
import os
import shutil
import socket
import subprocess
import time

import pytest

import servesim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SERVESIM_BUILD_DIR", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "servesim")
QUICKSTART = os.path.join(ROOT, "scenarios", "quickstart.yaml")
AXES = ["--axis", "workload.0.trace.speedup=1,2,4,8,16", "--axis", "cluster.pools.0.engine.max_num_seqs=64,256"]
SETS = ["--set", "stop.requests=150"]


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory):
    """The sweep.csv of the sweep run in one piece by the CLI."""
    out = tmp_path_factory.mktemp("unsharded")
    subprocess.run([CLI, "sweep", QUICKSTART, *AXES, *SETS, "-q", "--out", str(out)], check=True, cwd=ROOT)
    return (out / "sweep.csv").read_bytes()


def test_gnu_parallel_recipe(tmp_path, unsharded):
    if shutil.which("parallel") is None:
        pytest.skip("GNU parallel is not installed (apt-get install parallel)")
    env = dict(os.environ, SERVESIM=CLI, JOBS="2")
    subprocess.run([os.path.join(ROOT, "examples", "sweep-parallel.sh"), QUICKSTART, str(tmp_path), "4", *AXES, *SETS],
                   check=True, cwd=ROOT, env=env)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all", "shard-0", "shard-1", "shard-2", "shard-3"]
    assert (tmp_path / "all" / "sweep.csv").read_bytes() == unsharded


def test_dask_cluster(unsharded):
    distributed = pytest.importorskip("dask.distributed", reason="apt-get install python3-distributed")
    axes = {"workload.0.trace.speedup": [1, 2, 4, 8, 16], "cluster.pools.0.engine.max_num_seqs": [64, 256]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        table = servesim.sweep(QUICKSTART, axes=axes, set={"stop.requests": 150}, executor=client, shards=3)
        # The work ran in the worker processes, not here.
        assert len(client.scheduler_info()["workers"]) == 2
    assert table.attrs["sweep_csv"].encode() == unsharded
    local = servesim.sweep(QUICKSTART, axes=axes, set={"stop.requests": 150}, jobs=2)
    assert local.attrs["sweep_csv"].encode() == unsharded


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    """slurmctld and slurmd for one node on loopback, with their own munged, all under
    one folder; commands get SLURM_CONF pointing at its slurm.conf."""

    def __init__(self, folder):
        self.folder = folder
        self.procs = []
        for d in ("state", "spool", "munge"):
            (folder / d).mkdir(parents=True)
        key = folder / "munge" / "munge.key"
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True)
        os.chmod(key, 0o600)
        self.munge_socket = folder / "munge" / "munge.socket"
        subprocess.run(["munged", "--force", f"--socket={self.munge_socket}", f"--key-file={key}",
                        f"--pid-file={folder / 'munge' / 'munged.pid'}", f"--log-file={folder / 'munge' / 'munged.log'}",
                        f"--seed-file={folder / 'munge' / 'munged.seed'}"], check=True)
        cpus = os.cpu_count() or 2
        conf = folder / "slurm.conf"
        conf.write_text(f"""\
ClusterName=servesim-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={self.munge_socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder / 'state'}
SlurmdSpoolDir={folder / 'spool'}
SlurmctldPidFile={folder / 'slurmctld.pid'}
SlurmdPidFile={folder / 'slurmd.pid'}
SlurmctldLogFile={folder / 'slurmctld.log'}
SlurmdLogFile={folder / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")
        self.env = dict(os.environ, SLURM_CONF=str(conf))
        self.procs.append(subprocess.Popen(["slurmctld", "-D", "-f", str(conf)], env=self.env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        self.procs.append(subprocess.Popen(["slurmd", "-D", "-N", "localhost", "-f", str(conf)], env=self.env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 60
        while True:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            if state.returncode == 0 and state.stdout.strip() == "idle":
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the Slurm node did not come up: " + self.logs())
            time.sleep(0.5)

    def logs(self):
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            path = self.folder / name
            if path.exists():
                out.append(f"--- {name}\n" + path.read_text()[-3000:])
        return "\n".join(out)

    def stop(self):
        subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True)
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
        pid_file = self.folder / "munge" / "munged.pid"
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text().strip()), 15)
            except (ProcessLookupError, ValueError):
                pass


def test_slurm_job_array_recipe(tmp_path, unsharded):
    missing = [c for c in ("slurmctld", "slurmd", "sbatch", "munged", "mungekey") if shutil.which(c) is None]
    if missing:
        pytest.skip("Slurm is not installed (apt-get install slurm-wlm munge): no " + ", ".join(missing))
    if os.geteuid() != 0:
        pytest.skip("a test Slurm cluster runs its daemons as root; not root here")
    cluster = SlurmCluster(tmp_path / "slurm")
    try:
        out = tmp_path / "out"
        env = dict(cluster.env, SERVESIM=CLI)
        submit = subprocess.run(["sbatch", "--parsable", "--array=0-3", "--cpus-per-task=1", f"--chdir={ROOT}",
                                 f"--output={tmp_path}/task-%a.log", os.path.join(ROOT, "examples", "sweep-slurm.sh"),
                                 QUICKSTART, str(out), *AXES, *SETS], env=env, capture_output=True, text=True)
        assert submit.returncode == 0, submit.stderr + cluster.logs()
        job = submit.stdout.strip().split(";")[0]
        merge = subprocess.run(["sbatch", "--wait", f"--dependency=afterok:{job}", f"--chdir={ROOT}",
                                f"--output={tmp_path}/merge.log",
                                "--wrap", f"{CLI} merge {out}/shard-* -o {out}/all -q"],
                               env=env, capture_output=True, text=True, timeout=600)
        logs = "".join((tmp_path / f"task-{i}.log").read_text() for i in range(4) if (tmp_path / f"task-{i}.log").exists())
        assert merge.returncode == 0, merge.stderr + logs + cluster.logs()
        assert sorted(p.name for p in out.iterdir()) == ["all", "shard-0", "shard-1", "shard-2", "shard-3"]
        assert (out / "all" / "sweep.csv").read_bytes() == unsharded
    finally:
        cluster.stop()
