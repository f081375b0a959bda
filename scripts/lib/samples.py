#!/usr/bin/env python3
"""The code samples of README.md and docs/*.md, for scripts/check-samples.sh.

  samples.py check DOC...          every fenced block of each DOC is accounted
                                   for (below); shown files and excerpts match
                                   their files; run markers name a script that
                                   runs the block
  samples.py files KIND DOC...     the files the KIND markers (example, excerpt,
                                   output) of the DOCs name, one a line
  samples.py doctest DOC DIR       runs DOC's Lua doctests (below) in DIR
  samples.py doctest-file FILE DIR runs FILE as one doctest in DIR

A block opens with ```LANG. The line right above it says what it is:

  <!-- example: FILE -->     FILE, shown as it is
  <!-- excerpt: FILE -->     lines of FILE, in order and together (a first
                             comment line that names FILE aside)
  <!-- output: FILE... -->   what each FILE prints
  <!-- run: SCRIPT ID -->    code that SCRIPT runs: it reads the block with
                             sb_doc_block DOC ID (scripts/lib/examples.sh),
                             and scripts/test.sh runs SCRIPT

or, failing that, its first line is a comment (--, //, /*, #) that starts
"not runnable: " and says why, so readers see it too. Unmarked ```lua blocks
are doctests: each runs as it is in a fresh lua5.4, after
`sb = require "switchboard"`, and what it prints must be what its `--> `
comments say, line for line (runs of blanks compare as one; "..." stands for
any text). ```text and ```json blocks are output, listings and data, never
code. A block with no language is refused: say which it is.
"""
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!-- (example|excerpt|output|run): (.+) -->$")
NOT_RUNNABLE = re.compile(r"^\s*(--|//|/\*|#)\s*not runnable: \S")
DATA = {"text", "json"}
TIMEOUT = int(os.environ.get("SB_SAMPLE_TIMEOUT", "30"))  # seconds a doctest may take


def blocks(path):
    """(line number of the fence, language, marker kind, marker text, lines) of each block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            above = MARKER.match(lines[i - 1]) if i > 0 else None
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            found.append((i + 1, lang, above.group(1) if above else None, above.group(2) if above else None,
                          lines[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return found


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def problems_of(doc, root):
    problems = []
    say = lambda line, text: problems.append(f"{doc}:{line}: {text}")
    test_sh = read(os.path.join(root, "scripts/test.sh"))
    for line, lang, kind, text, body in blocks(doc):
        if not lang:
            say(line, "a ``` block with no language (```text for output and listings)")
        elif kind == "example":
            path = os.path.join(root, text)
            if not os.path.isfile(path):
                say(line, f"shows {text}, which does not exist")
            elif read(path) != "\n".join(body) + "\n":
                say(line, f"does not show {text} as it is (diff them)")
        elif kind == "excerpt":
            path = os.path.join(root, text)
            named = body and text in body[0] and re.match(r"^\s*(--|//|#)", body[0])
            shown = body[1:] if named else body
            if not os.path.isfile(path):
                say(line, f"quotes {text}, which does not exist")
            elif "\n" + "\n".join(shown) + "\n" not in "\n" + read(path):
                say(line, f"is not an excerpt of {text} (its lines, in order and together)")
        elif kind == "run":
            script, _, ident = text.partition(" ")
            path = os.path.join(root, script)
            if not ident or not os.path.isfile(path):
                say(line, f"run marker '{text}': no script {script} or no ID")
            elif script not in test_sh:
                say(line, f"{script} runs this block, but scripts/test.sh does not run {script}")
            elif not re.search(r"sb_doc_block\s+\S+\s+" + re.escape(ident) + r"\b", read(path)):
                say(line, f"{script} does not read this block (sb_doc_block DOC {ident})")
        elif kind == "output" or lang in DATA or lang == "lua":
            pass
        elif not body or not NOT_RUNNABLE.match(body[0]):
            say(line, f"a ```{lang} block that nothing runs: mark it (<!-- example: FILE -->, <!-- run: SCRIPT ID -->, ...)"
                      f" or start it with a comment 'not runnable: REASON'")
    return problems


def check(docs):
    root = os.getcwd()
    problems = [p for doc in docs for p in problems_of(doc, root)]
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


def files(kind, docs):
    for doc in docs:
        for _, _, k, text, _ in blocks(doc):
            if k == kind:
                for name in text.split():
                    print(name)
    return 0


def expected_lines(source):
    """The text after each `--> ` comment, in order."""
    return [m.group(1).rstrip() for m in re.finditer(r"--> ?(.*)$", source, re.M)]


def matches(want, got):
    norm = lambda s: re.sub(r"[ \t]+", " ", s).strip()
    pattern = ".*".join(re.escape(part) for part in norm(want).split("..."))
    return re.fullmatch(pattern, norm(got)) is not None


def run_doctest(name, source, directory, preload):
    """Problems of one doctest: it fails, writes to stderr, or prints other lines."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", dir=directory, delete=False) as f:
        f.write(source + "\n")
        script = f.name
    command = ["lua5.4"] + (["-e", 'sb = require "switchboard"'] if preload else []) + [script]
    try:
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return [f"{name}: did not end within {TIMEOUT} s"]
    finally:
        os.unlink(script)
    printed = done.stdout.split("\n")
    if printed and printed[-1] == "":
        printed.pop()
    want = expected_lines(source)
    problems = []
    if done.returncode != 0 or done.stderr:
        problems.append(f"{name}: exit {done.returncode}, standard error:\n{done.stderr.rstrip()}")
    for n in range(max(len(want), len(printed))):
        w = want[n] if n < len(want) else None
        g = printed[n] if n < len(printed) else None
        if w is None or g is None or not matches(w, g):
            problems.append(f"{name}: output line {n + 1} differs\n  the doc:   {w if w is not None else '(nothing)'}\n"
                            f"  printed:   {g if g is not None else '(nothing)'}")
            break
    return problems


def doctest(doc, directory):
    problems, ran = [], 0
    for line, lang, kind, _, body in blocks(doc):
        if lang == "lua" and kind is None and not (body and NOT_RUNNABLE.match(body[0])):
            problems += run_doctest(f"{doc}:{line}", "\n".join(body), directory, preload=True)
            ran += 1
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{doc}: {ran} Lua samples ran and printed what their --> comments say")
    return 1 if problems else 0


def doctest_file(path, directory):
    problems = run_doctest(path, read(path), directory, preload=False)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        return check(argv[2:])
    if len(argv) >= 4 and argv[1] == "files":
        return files(argv[2], argv[3:])
    if len(argv) == 4 and argv[1] == "doctest":
        return doctest(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "doctest-file":
        return doctest_file(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
