"""Builds the servesim Python package with the project's own CMake build.

    pip install --no-build-isolation .          # into the active environment

setuptools runs this (pyproject.toml names it the build backend). The extension _servesim
is the CMake target of python/CMakeLists.txt, built here in build-python/ (kept between
installs, so a second install recompiles only what changed) for the interpreter running
this script. The wheel holds python/servesim/*.py, the extension, and a copy of the
bundled resources (models/, configs/, data/, vendor/chartjs/) in servesim/resources/,
where the extension looks before the source tree (sim/scenario/resource_paths.h): an
installed package keeps working after this checkout is moved or deleted. $SERVESIM_HOME
still overrides it.

What it needs, as the CMake build does (scripts/setup.sh installs them from Debian):
cmake, a C++20 compiler, Boost, nlohmann-json, yaml-cpp, zlib, pybind11's CMake files
(Debian pybind11-dev; no pybind11 Python package is needed) and the interpreter's headers
(python3-dev); setuptools and wheel in the environment (--no-build-isolation: nothing is
downloaded). SERVESIM_BUILD_JOBS sets the compile jobs (default: every core).
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Where the wheel's copy of the resources goes, inside the package; the extension is
# compiled with the same name (python/CMakeLists.txt, SERVESIM_PACKAGED_RESOURCES).
RESOURCES = "resources"
RESOURCE_FOLDERS = ["models", "configs", "data", "vendor/chartjs"]
# setuptools' own scratch folders: build-python/, not build/ (the CMake dev build).
BUILD_BASE = "build-python"


def project_version() -> str:
    """The version CMakeLists.txt declares, which the extension reports as __version__."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(servesim VERSION ([0-9.]+)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no 'project(servesim VERSION x.y.z' line")
    return match.group(1)


class CMakeBuild(build_ext):
    """Configures the project with only the Python package on and builds target _servesim."""

    def build_extension(self, ext: Extension) -> None:
        # One CMake folder per interpreter ABI (cpython-311-x86_64-linux-gnu): the cache
        # holds the interpreter's include paths and module suffix.
        abi = sysconfig.get_config_var("SOABI") or "py"
        cmake_dir = ROOT / BUILD_BASE / f"cmake-{abi}"
        configure = ["cmake", "-S", str(ROOT), "-B", str(cmake_dir),
                     "-DCMAKE_BUILD_TYPE=Release", "-DSERVESIM_LTO=OFF",
                     "-DSERVESIM_PYTHON=ON", "-DSERVESIM_TESTS=OFF",
                     f"-DSERVESIM_PACKAGED_RESOURCES={RESOURCES}",
                     f"-DPYTHON_EXECUTABLE={sys.executable}"]
        if not (cmake_dir / "CMakeCache.txt").exists() and shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("SERVESIM_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(cmake_dir), "--target", "_servesim", "-j", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = cmake_dir / "python" / "servesim" / f"_servesim{suffix}"
        if not built.exists():
            raise RuntimeError(f"{built} was not built: is pybind11's CMake package installed (Debian pybind11-dev)?")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


class BuildPyWithResources(build_py):
    """The package's .py files, plus the resources the simulator reads, copied from the checkout."""

    def run(self) -> None:
        super().run()
        if self.dry_run:
            return
        dest = Path(self.build_lib) / "servesim" / RESOURCES
        if dest.exists():
            shutil.rmtree(dest)
        for folder in RESOURCE_FOLDERS:
            shutil.copytree(ROOT / folder, dest / folder,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


(ROOT / BUILD_BASE).mkdir(exist_ok=True)
setup(
    version=project_version(),
    packages=["servesim"],
    package_dir={"servesim": "python/servesim"},
    ext_modules=[Extension("servesim._servesim", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithResources},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
