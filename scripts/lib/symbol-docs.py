"""Reads the symbol graphs `swift package dump-symbol-graph` writes, for
scripts/check-docs.sh.

  symbol-docs.py undocumented DIR MODULE...   the public symbols with a place in
                                              the sources and no doc comment,
                                              one "Module kind path" a line
  symbol-docs.py count DIR MODULE...          how many public symbols with a
                                              place in the sources there are
  symbol-docs.py members DIR TYPE             the public members of Switchboard's
                                              TYPE, by base name, one a line
"""
import json
import os
import sys


def symbols(directory, module):
    with open(os.path.join(directory, module + ".symbols.json")) as f:
        return json.load(f)["symbols"]


def public(symbol):
    return symbol.get("accessLevel") in ("public", "open")


def written(directory, modules):
    """The public symbols written in the sources, as (module, symbol)."""
    for module in modules:
        for s in symbols(directory, module):
            # Members the compiler makes (init(rawValue:), == of Equatable)
            # have no place in the sources, so nothing to write a comment on.
            if public(s) and "location" in s:
                yield module, s


def undocumented(directory, modules):
    lines = set()
    for module, s in written(directory, modules):
        if not s.get("docComment"):
            lines.add(f"{module} {s['kind']['identifier']} {'.'.join(s['pathComponents'])}")
    return sorted(lines)


def members(directory, type_name):
    names = set()
    for s in symbols(directory, "Switchboard"):
        path = s["pathComponents"]
        # An initializer or a subscript cannot clash with a method's name.
        kind = s["kind"]["identifier"]
        if public(s) and len(path) == 2 and path[0] == type_name and kind not in ("swift.init", "swift.subscript"):
            names.add(path[1].split("(")[0])
    return sorted(names)


def main(argv):
    if len(argv) >= 4 and argv[1] == "undocumented":
        print("\n".join(undocumented(argv[2], argv[3:])))
    elif len(argv) >= 4 and argv[1] == "count":
        print(sum(1 for _ in written(argv[2], argv[3:])))
    elif len(argv) == 4 and argv[1] == "members":
        print("\n".join(members(argv[2], argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
