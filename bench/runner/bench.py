"""What `switchboard run` costs per scenario as a file grows (issue 26).

Generates files of N scenarios, each registering a small Lua target and
checking one call (the shape of a suite generated from a table of cases),
runs `switchboard run --jobs 1` over each REPS times (one scenario at a time:
the cost of a scenario, not the machine's cores, which bench/runner/jobs.py
measures), and prints one JSON object per
size: the medians of wall time and CPU time (the runner and every process it
waited for), per scenario, and the peak resident set size (the largest of
the runner and its scenario processes, as wait4 reports it).

"Per scenario" is marginal: the run of a file of one scenario (start-up, the
listing) is subtracted first, so the figure at 100 scenarios is not diluted
by the start-up and the figure at 10,000 not flattered by it.

    python3 bench/runner/bench.py SWITCHBOARD WORKDIR SIZES REPS
    (SIZES: comma-separated, e.g. 100,1000,10000)
"""
import json
import os
import statistics
import subprocess
import sys
import time


def scenario_file(path, count):
    with open(path, "w") as f:
        for i in range(1, count + 1):
            f.write(f'scenario("case {i}", function()\n'
                    f'  sb.target("T{i}", {{ echo = function(p) return p.x end }})\n'
                    f'  expect(sb.perform("T{i}", "echo", {{ x = {i} }})).to_equal({i})\n'
                    'end)\n\n')


def run_once(switchboard, path, count):
    """(wall s, CPU s, peak RSS KiB) of one run, which must pass."""
    started = time.monotonic()
    with open(os.devnull, "w") as null:
        process = subprocess.Popen([switchboard, "run", "--jobs", "1", path], stdout=subprocess.PIPE, stderr=null)
        tap = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0 or f"# {count} passed, 0 failed".encode() not in tap:
        sys.exit(f"bench/runner: {path} did not pass (exit {process.returncode}): {tap[-300:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def measure(switchboard, path, count, reps):
    runs = [run_once(switchboard, path, count) for _ in range(reps)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    switchboard, workdir, sizes, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    sizes = [int(s) for s in sizes.split(",")]
    if any(count < 2 for count in sizes) or reps < 1:
        sys.exit("bench/runner: sizes must be at least 2 (one is the start-up baseline), reps at least 1")
    os.makedirs(workdir, exist_ok=True)
    one = os.path.join(workdir, "scenarios_1.lua")
    scenario_file(one, 1)
    base_wall, base_cpu, base_rss = measure(switchboard, one, 1, max(reps, 5))
    for count in sizes:
        path = os.path.join(workdir, f"scenarios_{count}.lua")
        scenario_file(path, count)
        wall, cpu, rss = measure(switchboard, path, count, reps)
        print(json.dumps({
            "id": f"runner.{count}", "scenarios": count, "reps": reps,
            "wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "peak_rss_kib": rss,
            "ms_per_scenario": round(max(wall - base_wall, 0) * 1e3 / (count - 1), 4),
            "cpu_ms_per_scenario": round(max(cpu - base_cpu, 0) * 1e3 / (count - 1), 4),
            "startup_wall_s": round(base_wall, 4), "startup_peak_rss_kib": base_rss,
        }), flush=True)


if __name__ == "__main__":
    main()
