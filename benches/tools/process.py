"""One process run for the whole-process measurements (`whole_process.py`, `run_ratios.py`)."""
import os
import subprocess
import time


def measure(argv):
    """Runs `argv` with its output discarded; gives its wall seconds and its `resource` usage
    (from `wait4`: CPU times, peak RSS). A process that fails ends the measurement."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} exited {code}: {err.decode(errors='replace')}")
    return wall, usage
