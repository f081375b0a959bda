# hostile.py write TRACE | hostile.py check DOT: a trace whose names try to
# break out of DOT's strings (quotes, backslashes, newlines, braces, DOT's
# keywords, control and bidi characters, bytes that are not UTF-8, a name of
# 10,000 characters), and the checks of what switchboard graph made of it.
import json, sys
sys.path.insert(0, sys.path[0])
from dot import read, edge

SCRIPT = 'evil".lua\nnext'
QUOTE = 'A" ]; x -> y [color=red'
BACKSLASH = 'back\\slash\\'
ESCAPES = '\\N \\l \\n {;}'
CODE = 'EX" ]; injected [label="x'
LONG = "x" * 10000


def record(target, action, depth=1, code=None, url=None):
    r = {"time": "t", "script": SCRIPT, "scenario": "s", "depth": depth, "call": "open" if url else "perform"}
    if url:
        r["url"] = url
    else:
        r["target"], r["action"] = target, action
    r["params"] = {}
    if code:
        r["error"], r["code"] = "it failed", code
    else:
        r["result"] = None
    r["duration_us"] = 1
    return r


if sys.argv[1] == "write":
    records = [
        record("node", "edge"),
        record(QUOTE, "graph"),
        record("subgraph", BACKSLASH),
        record("strict", ESCAPES, code=CODE),
        record("line1\nline2", "\u202eevil\ufeff\u001b[31m"),
        record("Ünïcødé ✓", LONG),
        record({"$bytes": "ff00fe"}, "digraph"),
        record(None, None, url='x://host" -> evil/path'),
        record("node", "edge", depth=2),
        record("subgraph", BACKSLASH),
    ]
    with open(sys.argv[2], "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    sys.exit(0)

nodes, edges, text = read(sys.argv[2])
shown_script = 'evil".lua\\x0anext'
assert len(nodes) == 9 and len(edges) == 9, (len(nodes), len(edges), nodes, edges)
assert edge(edges, shown_script, "node.edge")[2] == "1×"
assert edge(edges, shown_script, QUOTE + ".graph")[2] == "1×"
assert edge(edges, shown_script, "subgraph." + BACKSLASH)[2] == "2×"
assert edge(edges, "subgraph." + BACKSLASH, "node.edge")[2] == "1×"
assert edge(edges, shown_script, "strict." + ESCAPES)[2] == "1×\n1 failed: " + CODE
assert edge(edges, shown_script, "line1\\x0aline2.\\u{202e}evil\\u{feff}\\x1b[31m")[2] == "1×"
assert edge(edges, shown_script, "Ünïcødé ✓." + "x" * 200 + "…")[2] == "1×"
assert edge(edges, shown_script, "\\xff\\x00\\xfe.digraph")[2] == "1×"
assert edge(edges, shown_script, 'x://host" -> evil')[2] == "open 1×"
# No raw control or bidi character, and no line that is not a statement of ours (read() checks).
assert not any(c in text for c in "\u202e\ufeff\u001b\r"), "a raw control or bidi character"
