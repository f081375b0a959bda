# dot.py: reads the DOT switchboard graph writes (its own subset: one
# statement a line) for the checks of tests_12_graph.
import re

NODE = re.compile(r'^ +([a-z][a-z0-9_]*) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
EDGE = re.compile(r'^  ([a-z][a-z0-9_]*) -> ([a-z][a-z0-9_]*) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
CLUSTER = re.compile(r'^    label="((?:[^"\\]|\\.)*)"; labelloc=t; (.*)$')


def label(text):
    """A label as Graphviz shows it: \\" is ", \\\\ is \\, \\n a line break."""
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "l": "\n"}.get(m.group(1), m.group(1)), text)


def read(path):
    """(nodes, edges, text): nodes by id -> (target or None, label, attributes);
    edges as (from label, to label, edge label, attributes), labels as shown;
    an action's label is "Target.action", a cluster's first line naming it."""
    text = open(path, encoding="utf-8").read()
    nodes, edges, target = {}, [], None
    for line in text.split("\n"):
        if line.startswith("  subgraph cluster_"):
            target = ""
        elif line == "  }":
            target = None
        elif target == "" and CLUSTER.match(line):
            target = label(CLUSTER.match(line).group(1)).split("\n")[0]
        elif NODE.match(line):
            m = NODE.match(line)
            nodes[m.group(1)] = (target, label(m.group(2)), m.group(3))
        elif EDGE.match(line):
            m = EDGE.match(line)
            edges.append((m.group(1), m.group(2), label(m.group(3)), m.group(4)))
        elif line.startswith("  ") and not line.startswith(("  graph [", "         label=", "  node [", "  edge [")):
            raise AssertionError("a line dot.py does not know: %r" % line)

    def name(node_id):
        t, l, _ = nodes[node_id]
        return l if t is None else t + "." + l
    return nodes, [(name(a), name(b), l, attrs) for a, b, l, attrs in edges], text


def edge(edges, a, b, label_start=""):
    found = [e for e in edges if e[0] == a and e[1] == b and e[2].startswith(label_start)]
    assert len(found) == 1, "no single edge %s -> %s (%r) among:\n%s" % (a, b, label_start, "\n".join(map(repr, edges)))
    return found[0]
