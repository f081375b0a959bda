"""Builds the benchmark report for scripts/bench.sh: one markdown table on
stdout and the same data as JSON.

Input: the JSON lines the C, Swift and Lua benchmark programs print (one per
case), the library facts (size, dlopen, require), callgrind instruction
counts ("name count" lines), and the JSON lines of bench/runner/bench.py
(`switchboard run` over files of N scenarios). With --smoke it checks that every case is there
and every number is finite, and exits 1 otherwise; times are not judged.
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone

# Every case the programs must report, in table order.
CASES = [
    "swift.perform", "swift.route", "c.perform", "c.route", "c.intercepted", "c.contract", "c.dict3",
    "lua.perform_c", "lua.perform_lua", "lua.perform_lua_prebuilt", "lua.c_to_lua", "lua.lua_to_c",
    "c.miss", "c.open_url", "c.get_miss", "c.uncached", "c.lookup", "c.register", "lua.register", "c.threads",
    "c.threads_direct", "swift.open_url",
]

# Callgrind counts: (case instruction name, baseline instruction name).
INSTRUCTIONS = {
    "c.perform": ("c.perform", "c.direct"),
    "c.route": ("c.route", "c.direct"),
    "c.intercepted": ("c.intercepted", "c.perform"),
    "c.contract": ("c.contract3", "c.unchecked3"),
    "c.dict3": ("c.perform3", "c.build3"),
    "swift.perform": ("swift.perform", "swift.direct"),
    "swift.route": ("swift.route", "swift.direct"),
    "lua.perform_c": ("lua.perform_c", "lua.plain3"),
    "lua.perform_lua": ("lua.perform_lua", "lua.plain"),
    "lua.perform_lua_prebuilt": ("lua.perform_lua_prebuilt", "lua.plain_prebuilt"),
    "lua.lua_to_c": ("lua.lua_to_c", "lua.plain_callback"),
    "lua.c_to_lua": ("lua.c_to_lua", "lua.plain_callback"),
    "c.lookup": ("c.lookup100k", "c.lookup10"),
    "c.miss": ("c.miss", "c.direct"),
    "c.open_url": ("c.url", "c.direct"),
    "c.get_miss": ("c.get_miss", "c.get_hit"),
    "c.register": ("c.register", "c.register_targets"),
    "lua.register": ("lua.register", "lua.register_targets"),
}

# Counted in full runs only (slow under valgrind).
SLOW_INSTRUCTIONS = {"c.lookup"}

# The budgets of issues 7, 10 and 23 (times only; its instruction budgets are
# bench/budgets.tsv's): (text, test on the case's numbers).
BUDGETS = {
    "c.perform": ("<= 40 ns above the direct call", lambda c: c["above_ns"] <= 40),
    "c.route": ("<= 10 ns above the direct call", lambda c: c["above_ns"] <= 10),
    "c.contract": ("<= 30 ns above no contract", lambda c: c["above_ns"] <= 30),
    "lua.perform_c": ("<= 200 ns", lambda c: c["ns"] <= 200),
    "lua.perform_lua": ("<= 8x the plain call", lambda c: c["ratio"] <= 8),
    "lua.perform_lua_prebuilt": ("<= 4x the plain call", lambda c: c["ratio"] <= 4),
    "c.lookup": ("<= 1.3x the cost at 10", lambda c: c["ratio"] <= 1.3),
    # Issue 39: registration is linear (a quadratic one is hundreds of times the baseline).
    "c.register": ("<= 3x one action on each of as many targets", lambda c: c["ratio"] <= 3),
    "lua.register": ("<= 3x one action on each of as many targets", lambda c: c["ratio"] <= 3),
    "c.threads": (">= 1.8x the throughput of 1", lambda c: c["ratio"] >= 1.8),
}
DLOPEN_BUDGET_MS = 5.0
# Issue 26: a scenario's cost must not grow with the size of its file. The
# smallest file is the reference; the largest is judged against it.
RUNNER_REFERENCE = 100
RUNNER_BUDGET_RATIO = 1.5


def machine():
    def first_line(command):
        try:
            out = subprocess.run(command, capture_output=True, text=True, check=False)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "unknown"

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "swift": first_line(["swift", "--version"]),
        "lua": first_line(["lua5.4", "-v"]),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def load(args):
    cases = {}
    with open(args.cases) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"bench_report: {args.cases}:{number}: not JSON ({error}): {line[:80]}")
            cases[case["id"]] = case
    with open(args.facts) as f:
        facts = json.load(f)
    instructions = {}
    if os.path.exists(args.instructions):
        with open(args.instructions) as f:
            for line in f:
                name, count = line.split()
                instructions[name] = int(count)
    runner = []
    with open(args.runner) as f:
        runner = [json.loads(line) for line in f if line.strip()]
    return cases, facts, instructions, runner


def runner_budget(runner):
    """(text, met, ratio) for the largest file against the reference."""
    sizes = {r["scenarios"]: r for r in runner}
    largest = max(sizes)
    text = (f"ms per scenario at {largest:,} <= {RUNNER_BUDGET_RATIO:g}x the figure at "
            f"{RUNNER_REFERENCE:,}")
    ratio = sizes[largest]["ms_per_scenario"] / max(sizes[RUNNER_REFERENCE]["ms_per_scenario"], 1e-9)
    return text, ratio <= RUNNER_BUDGET_RATIO, ratio


def check(cases, facts, instructions, runner, expect_instructions, smoke):
    """Problems that make the run incomplete (not slow: incomplete)."""
    problems = [f"missing case {case}" for case in CASES if case not in cases]
    if RUNNER_REFERENCE not in {r.get("scenarios") for r in runner} or len(runner) < 2:
        problems.append(f"switchboard run: no file of {RUNNER_REFERENCE} scenarios and a larger one")
    for r in runner:
        for key in ("wall_s", "cpu_s", "ms_per_scenario", "cpu_ms_per_scenario", "peak_rss_kib"):
            if not isinstance(r.get(key), (int, float)) or not math.isfinite(r[key]) or r[key] <= 0:
                problems.append(f"{r.get('id')}: {key} is {r.get(key)!r}")
    for case in cases.values():
        for key in ("ns", "baseline_ns", "ratio"):
            if not isinstance(case.get(key), (int, float)) or not math.isfinite(case[key]) or case[key] < 0:
                problems.append(f"{case['id']}: {key} is {case.get(key)!r}")
    for key in ("library_bytes", "library_stripped_bytes", "dlopen_ms", "require_ms"):
        if not isinstance(facts.get(key), (int, float)) or facts[key] <= 0:
            problems.append(f"{key} is {facts.get(key)!r}")
    if expect_instructions:
        for id, pair in INSTRUCTIONS.items():
            if smoke and id in SLOW_INSTRUCTIONS:
                continue
            problems += [f"no instruction count for {name}" for name in pair if instructions.get(name, 0) <= 0]
    return problems


def fmt(x, digits=1):
    return f"{x:.{digits}f}"


def runner_table(runner):
    text, met, ratio = runner_budget(runner)
    out = ["| scenarios in the file | `switchboard run` wall time | ms per scenario | CPU ms per scenario | peak RSS |",
           "|---|---|---|---|---|"]
    for r in sorted(runner, key=lambda r: r["scenarios"]):
        out.append(f"| {r['scenarios']:,} | {r['wall_s']:.2f} s | {r['ms_per_scenario']:.2f} | "
                   f"{r['cpu_ms_per_scenario']:.2f} | {r['peak_rss_kib'] / 1024:.1f} MiB |")
    first = runner[0]
    out += ["", f"Per scenario: beyond a file of one scenario ({first['startup_wall_s'] * 1e3:.0f} ms, "
            f"{first['startup_peak_rss_kib'] / 1024:.1f} MiB peak), medians of {first['reps']} runs; CPU includes "
            f"every scenario's process. Budget: {text}: {'met' if met else 'missed'} ({ratio:.2f}x)."]
    return out


def report(cases, facts, instructions, runner, info):
    rows = []
    for id in CASES:
        c = cases[id]
        throughput = c.get("unit") == "throughput"
        instr = ""
        if id in INSTRUCTIONS:
            case_i, base_i = (instructions.get(name) for name in INSTRUCTIONS[id])
            if case_i and base_i:
                instr = f"{case_i} / {base_i} (+{case_i - base_i})"
        budget = ""
        if id in BUDGETS:
            text, test = BUDGETS[id]
            budget = f"{text}: {'met' if test(c) else 'missed'}"
        if throughput:
            measured = f"{fmt(1e3 / c['ns'], 1)} M calls/s vs {fmt(1e3 / c['baseline_ns'], 1)}"
            above = ""
        else:
            measured = f"{fmt(c['ns'])} vs {fmt(c['baseline_ns'])}"
            above = f"{c['above_ns']:+.1f}"
        rows.append((c["case"], c["baseline"], measured, f"{c['ratio']:.2f}x", above, instr, budget))
    out = ["| case | baseline | ns/call: case vs baseline | ratio | ns above | instructions/call: case / baseline | budget |",
           "|---|---|---|---|---|---|---|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    mib = 1024 * 1024
    dlopen_ok = facts["dlopen_ms"] <= DLOPEN_BUDGET_MS
    out += [
        "",
        f"libswitchboard.so: {facts['library_bytes'] / mib:.1f} MiB as built (with debug information), "
        f"{facts['library_stripped_bytes'] / mib:.1f} MiB stripped. "
        f"dlopen in a fresh process: {facts['dlopen_ms']:.2f} ms "
        f"({facts['dlopen_stripped_ms']:.2f} ms stripped; budget <= {DLOPEN_BUDGET_MS:g} ms: "
        f"{'met' if dlopen_ok else 'missed'}). "
        f"`require \"switchboard\"` in lua5.4: {facts['require_ms']:.2f} ms CPU. "
        f"Medians of {facts['processes']} processes.",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, Linux {info['kernel']}; {info['swift']}; {info['lua']}. "
        f"{info['date']}. Times are medians of {next(iter(cases.values()))['reps']} repetitions of "
        f"{next(iter(cases.values()))['iterations']} calls, case and baseline alternating.",
        "",
    ]
    out += queue_lines(instructions)
    out += runner_table(runner)
    return "\n".join(out)


def queue_lines(instructions):
    """The Lua state's queue: what waits costs a call nothing, and sb.poll() is linear."""
    idle, queued, poll = (instructions.get(n) for n in ("lua.call_idle", "lua.call_queued", "lua.poll"))
    if not (idle and queued and poll):
        return []
    return [f"Lua queue (callgrind): a trivial `sb.perform` costs {queued:,} instructions with 20,000 resumes "
            f"queued, {idle:,} with none ({queued / idle:.2f}x); `sb.poll()` over 20,000 resumes, "
            f"{poll:,} per resume (with the trivial call each makes).", ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", required=True)
    parser.add_argument("--facts", required=True)
    parser.add_argument("--instructions", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    cases, facts, instructions, runner = load(args)
    problems = check(cases, facts, instructions, runner, expect_instructions=bool(instructions), smoke=args.smoke)
    if problems:
        sys.exit("bench_report: incomplete run:\n  " + "\n  ".join(problems))
    info = machine()
    table = report(cases, facts, instructions, runner, info)
    result = {"machine": info, "smoke": args.smoke, "cases": [cases[id] for id in CASES], "facts": facts,
              "instructions": instructions, "runner": runner,
              "budgets": {id: {"budget": BUDGETS[id][0], "met": BUDGETS[id][1](cases[id])} for id in BUDGETS}}
    result["budgets"]["dlopen"] = {"budget": f"<= {DLOPEN_BUDGET_MS:g} ms",
                                   "met": facts["dlopen_ms"] <= DLOPEN_BUDGET_MS}
    text, met, ratio = runner_budget(runner)
    result["budgets"]["runner"] = {"budget": text, "met": met, "ratio": round(ratio, 3)}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    if args.smoke:
        print(f"smoke run complete: {len(CASES)} cases, {len(instructions)} instruction counts, "
              f"JSON in {args.json} (times from a smoke run mean nothing)")
    else:
        print(table)


if __name__ == "__main__":
    main()
