# from_run.py DOT: the graph of graph_calls.lua's run, with the example
# plugin and Lua targets: callers, counts, failures, fallbacks, coverage.
import sys
sys.path.insert(0, sys.path[0])
from dot import read, edge

nodes, edges, text = read(sys.argv[1])
script = "Tests/cli/scenarios/graph_calls.lua"
# The script's own calls; the calls Shop.order made, drawn from it.
assert edge(edges, script, "Shop.order")[2] == "2×", edges
assert edge(edges, "Shop.order", "A.nativeNoImage")[2] == "2×"
failing = edge(edges, "Shop.order", "A.nativePresentImage")
assert failing[2] == "2×\n2 failed: EPARAMS" and 'color="#dc2626"' in failing[3], failing
assert not [e for e in edges if e[0] == script and e[1].startswith("A.native")], "nested calls drawn from the script"
# Failures: a target and an action that are not there.
assert edge(edges, script, "Nobody.here")[2] == "1×\n1 failed: ENOTARGET"
assert edge(edges, script, "A.noSuchAction")[2] == "1×\n1 failed: ENOACTION"
missing = [n for n in nodes.values() if (n[0], n[1]) in (("Nobody", "here"), ("A", "noSuchAction"))]
assert len(missing) == 2 and all("dashed" in n[2] and "#dc2626" in n[2] for n in missing), missing
assert 'label="Nobody\\n(no such target)"' in text, text
# A URL: drawn to the action it reached.
assert edge(edges, script, "A.cell", "open")[2] == "open 1×"
# Fallbacks: to what answered, dashed, naming what was asked.
found = edge(edges, script, "Catalog.notFound")
assert found[2] == "whatever 1× (fallback)" and "style=dashed" in found[3], found
found = edge(edges, script, "NoTargetAction.response")
assert found[2] == "Ghost.walk 1× (fallback)" and "style=dashed" in found[3], found
assert not [e for e in edges if e[1] in ("Catalog.whatever", "Ghost.walk")], edges
# Coverage: declared actions never called are grey; reached only by a fallback: orange.
never = sorted(t + "." + l for t, l, a in nodes.values() if t and "#e5e7eb" in a)
assert "A.configCell" in never and "Catalog.item" in never and "Settings.nativeFetchSettingsPage" in never, never
assert "A.cell" not in never and "A.nativeNoImage" not in never, never
only_fallback = sorted(t + "." + l for t, l, a in nodes.values() if t and "#ffedd5" in a)
assert only_fallback == ["Catalog.notFound", "NoTargetAction.response"], only_fallback
assert 'label="A\\nplugin module_a.so"' in text and 'label="Shop\\n(registered at run time)"' in text, text
assert 'label="Catalog\\nLua file Target_Catalog.lua"' in text, text
