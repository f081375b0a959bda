"""scripts/bench.sh --check: compares callgrind instruction counts with the
budgets of bench/budgets.tsv.

  bench_check.py --counts BUDGETS            the counts the budgets need, one a line
  bench_check.py BUDGETS INSTRUCTIONS        prints each case (measured, budget,
                                             target, ok/over); exits 1 when one
                                             exceeds its budget by more than 5%

BUDGETS lines (tab-separated, # starts a comment):
  case  measure  budget  target  note
where measure is a count ("c.miss"), a count minus its baseline
("c.perform - c.direct"), or a count over another ("c.url_match1000 /
c.url_match10"); budget and target are instructions per call, or for a
ratio the most it may be (a target of "-": the issue sets none). A ratio's
budget is the issue's bound itself: it is not exceeded by 5%.
INSTRUCTIONS lines: "name count" (what scripts/bench.sh's per_call writes).
"""
import sys

TOLERANCE = 1.05


def read_budgets(path):
    budgets = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                sys.exit(f"bench_check: {path}:{number}: expected 5 tab-separated fields, got {len(fields)}")
            case, measure, budget, target, note = fields
            ratio = " / " in measure
            terms = [t.strip() for t in measure.split(" / " if ratio else " - ")]
            if len(terms) not in ((2,) if ratio else (1, 2)) or not all(terms):
                sys.exit(f"bench_check: {path}:{number}: measure must be 'count', 'count - baseline' "
                         f"or 'count / baseline': {measure!r}")
            number_of = float if ratio else int
            try:
                budgets.append((case, terms, number_of(budget), None if target == "-" else number_of(target), note, ratio))
            except ValueError:
                sys.exit(f"bench_check: {path}:{number}: budget and target must be "
                         + ("numbers" if ratio else "integers"))
    if not budgets:
        sys.exit(f"bench_check: {path}: no budgets")
    return budgets


def read_counts(path):
    counts = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                name, count = line.split()
                counts[name] = int(count)
    return counts


def main(argv):
    if len(argv) == 3 and argv[1] == "--counts":
        names = []
        for _, terms, _, _, _, _ in read_budgets(argv[2]):
            names += [t for t in terms if t not in names]
        print("\n".join(names))
        return 0
    if len(argv) != 3:
        sys.exit(__doc__)
    budgets, counts = read_budgets(argv[1]), read_counts(argv[2])
    over = 0
    print(f"{'case':<24} {'measured':>9} {'budget':>9} {'target':>9}  verdict")
    for case, terms, budget, target, note, ratio in budgets:
        missing = [t for t in terms if t not in counts]
        if missing:
            print(f"{case:<24} no instruction count for {', '.join(missing)}")
            over += 1
            continue
        if ratio:
            measured = counts[terms[0]] / counts[terms[1]]
            ok = measured <= budget
        else:
            measured = counts[terms[0]] - (counts[terms[1]] if len(terms) == 2 else 0)
            ok = measured <= budget * TOLERANCE
        over += not ok
        verdict = "ok" if ok else f"OVER by {100 * (measured - budget) / budget:.1f}%"
        shown = (lambda n: f"{n:.2f}x") if ratio else (lambda n: f"{n:,}")
        if target is None:
            target_note, target_text = "no target", "-"
        else:
            target_note = "target met" if measured <= target else "target not met yet"
            target_text = shown(target)
        print(f"{case:<24} {shown(measured):>9} {shown(budget):>9} {target_text:>9}  {verdict} ({target_note})")
    if over:
        print(f"bench --check: {over} case(s) over budget (a count more than {round((TOLERANCE - 1) * 100)}% above, a ratio above); "
              f"a regression, or a change that should say so in bench/budgets.tsv")
        return 1
    print(f"bench --check: {len(budgets)} cases within {round((TOLERANCE - 1) * 100)}% of their budgets")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
