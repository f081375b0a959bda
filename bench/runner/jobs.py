"""What `switchboard run --jobs` buys (issue 25): one file of N scenarios,
each spending about 20 ms of Lua CPU time, run with --jobs 1 and --jobs J
alternately REPS times; prints one JSON object with the median wall times
and their ratio (jobs 1 over jobs J: 2.0 would be a perfect use of two
cores). Both measured in the same run, so a busy machine slows both.

    python3 bench/runner/jobs.py SWITCHBOARD WORKDIR N J REPS
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
            f.write(f'scenario("works {i}", function()\n'
                    '  local x = 0 for k = 1, 400000 do x = x + k % 7 end\n'
                    '  expect(x > 0).to_be_true()\n'
                    'end)\n')


def wall(switchboard, path, count, jobs):
    started = time.monotonic()
    run = subprocess.run([switchboard, "run", "--jobs", str(jobs), path], capture_output=True)
    seconds = time.monotonic() - started
    if run.returncode != 0 or f"# {count} passed, 0 failed".encode() not in run.stdout:
        sys.exit(f"bench/runner/jobs: --jobs {jobs} did not pass (exit {run.returncode}): {run.stdout[-300:]!r}")
    return seconds


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    switchboard, workdir = sys.argv[1], sys.argv[2]
    count, jobs, reps = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, f"working_{count}.lua")
    scenario_file(path, count)
    one, many = [], []
    for _ in range(reps):
        one.append(wall(switchboard, path, count, 1))
        many.append(wall(switchboard, path, count, jobs))
    one, many = statistics.median(one), statistics.median(many)
    print(json.dumps({"id": f"runner.jobs{jobs}", "scenarios": count, "reps": reps, "jobs": jobs,
                      "wall_s_jobs1": round(one, 3), f"wall_s_jobs{jobs}": round(many, 3),
                      "speedup": round(one / many, 2), "cores": os.cpu_count()}), flush=True)


if __name__ == "__main__":
    main()
