"""Progress of a sweep's or a search's runs: the `progress=` argument as the callable the
extension calls, progress(done, total), as each run ends (with the GIL held, one call at a
time). An exception it raises stops the study after the runs under way and is raised.

    progress=None   a tqdm bar where tqdm is installed and the session is interactive
                    (a Jupyter kernel, or standard error a terminal); else nothing
    progress=True   a tqdm bar where tqdm is installed; else nothing
    progress=False  nothing
    a callable      called as progress(done, total)
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Optional


def _tqdm_class():
    """tqdm.auto's bar (a widget in a notebook, text elsewhere), or None: tqdm is optional."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


def _interactive() -> bool:
    return "ipykernel" in sys.modules or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


@contextlib.contextmanager
def progress_callback(progress: Any, what: str) -> Iterator[Optional[Callable[[int, int], None]]]:
    """The callable for `progress` (None for no progress); a bar it opens is closed after."""
    if callable(progress):
        yield progress
        return
    bar_class = _tqdm_class() if progress is True or (progress is None and _interactive()) else None
    if bar_class is None:
        yield None
        return
    bars = []

    def update(done: int, total: int) -> None:
        if not bars:
            bars.append(bar_class(total=total, desc=what, unit="run"))
        bars[0].update(done - bars[0].n)

    try:
        yield update
    finally:
        for bar in bars:
            bar.close()
