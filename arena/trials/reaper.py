"""No sandbox outlives its run: a small watcher, started before the first trial, that
kills what a run killed with SIGKILL left behind.

bubblewrap's ``--die-with-parent`` holds only once bubblewrap has set it up: a run
killed in the few milliseconds between starting bubblewrap and that point leaves a
sandbox behind, and one killed while bubblewrap sets up its sandbox can leave that
sandbox's first process waiting, for good, on a parent that is gone. So each run (and the
probe that tries bubblewrap) starts the watcher (``/bin/sh``, reading a pipe only the run
holds open): when the run ends normally it says so and the watcher exits; when the pipe
closes without a word (the run was killed) the watcher kills, a few times over a second,
every process whose command line names the run's folder. That is each bubblewrap of the
run, and each sandbox's first process (a copy of bubblewrap), whose death ends every
process in the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

DONE = b"done\n"
# Read the pipe to its end; unless the run said it is done, kill the processes whose
# command line holds $ARENA_RUN_FOLDER (given on grep's standard input, so that no
# command line but theirs holds it), again after a pause for one that was starting.
WATCHER = r"""
while read -r word; do [ "$word" = done ] && exit 0; done
for pause in 0 0.3 1; do
    sleep "$pause"
    pids=$(printf '%s\n' "$ARENA_RUN_FOLDER" | grep -lsFa -f - /proc/[0-9]*/cmdline | cut -d/ -f3)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
done
exit 0
"""


def can_watch() -> bool:
    """Whether this machine lists its processes' command lines the watcher reads."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


@contextlib.contextmanager
def watching(folder: Path) -> Iterator[None]:
    """While the block runs, a watcher kills the processes naming ``folder`` if this
    process is killed; when the block ends by an exception (Ctrl-C), it kills them too
    before this returns."""
    if not can_watch():
        yield
        return
    read, write = os.pipe()
    try:
        watcher = subprocess.Popen(
            ["/bin/sh", "-c", WATCHER, "arena-reaper"],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "ARENA_RUN_FOLDER": str(folder)},
            # Its own session: a Ctrl-C at the terminal reaches the run, not the watcher.
            start_new_session=True,
        )
    finally:
        os.close(read)
    ended = False
    try:
        yield
        ended = True
    finally:
        with contextlib.suppress(OSError):
            if ended:
                os.write(write, DONE)
        os.close(write)
        watcher.wait()
