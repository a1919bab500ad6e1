"""`pip install --no-build-isolation .` into a new virtual environment, then the installed
package against the CLI: the same summary.json for a run, the same step, and bundled files
found in the package's own copy, not in this checkout.

Run by CTest (python/CMakeLists.txt, test python_pip_install) as
    python3 python/packaging_test.py ROOT CLI
ROOT is the checkout to install from; CLI the servesim binary of the same source.

The environment is `python3 -m venv --system-site-packages`: a plain venv has pip and
setuptools (ensurepip) but not `wheel`, which setuptools' wheel build needs, and this
machine installs packages from Debian only (python3-wheel), with no package index to
fetch wheel from; the same goes for python3-pandas, which step()'s table of operators needs. The installed package must still be the one imported: the test checks
that servesim and its extension come from the venv's site-packages, and imports with
PYTHONPATH cleared and from a folder outside the checkout.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
CLI = sys.argv[2]
QUICKSTART = str(ROOT / "scenarios" / "quickstart.yaml")

# Run inside the venv: imports servesim, says where it came from, runs, steps, and reads an
# error naming where bundled files were looked up.
PROBE = r"""
import json, sys
import servesim
out = {"file": servesim.__file__, "extension": servesim._servesim.__file__, "version": servesim.__version__}
r = servesim.run(sys.argv[1], set={"stop.requests": 200}, out=sys.argv[2])
out["summary"] = r.summary
step = servesim.step("llama-3-8b", "h100-sxm", prefill=[2048], decode=[(32, 4096)])
step["ops"] = step["ops"].to_dict("records")
out["step"] = step
try:
    servesim.run({"workload": [{"class": "c", "trace": {"format": "azure", "path": "no-such-trace.csv"}}],
                  "cluster": {"pools": [{"name": "p", "model": "llama-3-8b", "hardware": "h100-sxm"}]}})
except servesim.ConfigError as e:
    out["error"] = str(e)
print(json.dumps(out, default=lambda v: v.item()))  # numpy scalars from pandas
"""


def run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}): {' '.join(map(str, cmd))}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return done


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")


def main():
    with tempfile.TemporaryDirectory(prefix="servesim-pip-") as tmp:
        tmp = Path(tmp)
        venv = tmp / "venv"
        run(["/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable, "-m", "venv",
             "--system-site-packages", str(venv)])
        python = str(venv / "bin" / "python")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SERVESIM_HOME", "VIRTUAL_ENV")}
        # --no-index: nothing may come from a package index; pip builds in the checkout
        # (setup.py: build-python/, reused by the next install).
        run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", str(ROOT)], env=env, cwd=tmp)

        run([CLI, "run", QUICKSTART, "--set", "stop.requests=200", "--out", str(tmp / "cli"), "-q"], cwd=tmp)
        cli_step = json.loads(run([CLI, "step", "--model", "llama-3-8b", "--hardware", "h100-sxm", "--prefill", "2048",
                                   "--decode", "32:4096", "--json"], cwd=tmp).stdout)
        probe = tmp / "probe.py"
        probe.write_text(PROBE)
        got = json.loads(run([python, str(probe), QUICKSTART, str(tmp / "py")], env=env, cwd=tmp).stdout)

        site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"], env=env).stdout.strip())
        package = site / "servesim"
        check(Path(got["file"]).resolve() == (package / "__init__.py").resolve(),
              f"servesim was imported from {got['file']}, not from the venv's {package}")
        check(Path(got["extension"]).resolve().parent == package.resolve(),
              f"the extension was imported from {got['extension']}, not from {package}")
        cli_version = run([CLI, "--version"]).stdout.strip()
        check(got["version"] in cli_version, f"version {got['version']} is not the CLI's ({cli_version})")
        # The files, byte for byte, and the summary as parsed.
        for name in ("summary.json", "requests.csv"):
            check((tmp / "cli" / name).read_bytes() == (tmp / "py" / name).read_bytes(), f"{name} differs from the CLI's")
        with open(tmp / "cli" / "summary.json") as f:
            check(got["summary"] == json.load(f), "the returned summary differs from the CLI's summary.json")
        check(got["summary"]["completed"] == 200, f"completed {got['summary']['completed']}, not 200")
        check(got["step"] == cli_step, "step differs from `servesim step --json`")
        # Bundled files are looked up in the package's copy: the error names where.
        resources = (package / "resources").resolve()
        check("error" in got and "no-such-trace.csv" in got["error"], f"no ConfigError for a missing trace: {got.get('error')}")
        check(str(resources) in got["error"] and str(ROOT) not in got["error"],
              f"bundled files were not looked up in {resources}: {got['error']}")
        for folder in ("models", "configs", "data/kernels", "vendor/chartjs"):
            check((resources / folder).is_dir(), f"the package has no {folder}/")
    print("pip install: the installed package matches the CLI (run, step) and reads its own resources")


if __name__ == "__main__":
    main()
