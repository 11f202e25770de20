#!/usr/bin/env python3
"""Prints the import cycles among the modules of one Rust crate.

  python3 scripts/module_cycles.py crates/sql/src [--allow a,b,c ...] [--with-comments]

A module is a file of SRC (its stem: `parse.rs` is `parse`) or a folder of
SRC (`plan/mod.rs` and `plan/rank.rs` are both `plan`). Module `a` imports
module `b` when a file of `a` names a path `crate::b...` (also inside
`crate::{b, c::d}`); `crate::Name` counts for the module that `lib.rs`
re-exports `Name` from (`pub use error::{Result, SqlError}`). `super::`
stays inside a module (inside `plan/` it is `plan`; in a file's own `mod
tests` it is that file), so it adds no edge. Comments are left out (a doc
link such as [`crate::plan`] is no import); `--with-comments` counts them
too.

Every strongly connected component of more than one module is a cycle: the
script prints its modules and the imports among them, and exits 1 if any
is not allowed. `--allow a,b,c` (repeatable) allows the cycle whose modules
are exactly a, b and c, for a cycle that is kept on purpose.
"""

import argparse
import os
import re
import sys

PATH = re.compile(r"\bcrate::(\{|[A-Za-z_][A-Za-z0-9_]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_comments(text):
    """`text` without its comments, and with its string literals emptied
    (a `"crate::x"` in a string is no import either)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1 : i]):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\''); otherwise a lifetime.
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            end = i + (len(m.group(0)) if m else 1)
            out.append(text[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def braced_heads(text, start):
    """The first names of the items of the `{...}` group opening at `start`."""
    heads, depth, item_start = [], 0, start + 1
    for k in range(start, len(text)):
        ch = text[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if (ch == "," and depth == 1) or depth == 0:
            m = IDENT.match(text[item_start:k].strip())
            if m:
                heads.append(m.group(0))
            item_start = k + 1
        if depth == 0:
            break
    return heads


def module_of(src, path):
    rel = os.path.relpath(path, src)
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first


def reexports(src, modules):
    """Names `lib.rs` re-exports, each with the module it comes from."""
    lib = os.path.join(src, "lib.rs")
    names = {}
    if not os.path.exists(lib):
        return names
    text = strip_comments(open(lib, encoding="utf-8").read())
    for m in re.finditer(r"pub\s+use\s+(?:crate::)?(\w+)::([^;]*);", text):
        if m.group(1) in modules:
            for name in IDENT.findall(m.group(2)):
                names.setdefault(name, m.group(1))
    return names


def graph(src, with_comments):
    files = []
    for root, _, names in os.walk(src):
        files += [os.path.join(root, f) for f in names if f.endswith(".rs")]
    modules = {module_of(src, f) for f in files}
    names = reexports(src, modules)
    edges = {m: {} for m in modules}
    for f in sorted(files):
        a = module_of(src, f)
        text = open(f, encoding="utf-8").read()
        if not with_comments:
            text = strip_comments(text)
        for m in PATH.finditer(text):
            heads = braced_heads(text, m.start(1)) if m.group(1) == "{" else [m.group(1)]
            for h in heads:
                b = h if h in modules else names.get(h)
                if b and b != a:
                    edges[a].setdefault(b, set()).add(os.path.relpath(f, src))
    return edges


def components(edges):
    """Strongly connected components (Tarjan), each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="a crate's src folder, e.g. crates/sql/src")
    ap.add_argument("--allow", action="append", default=[], metavar="a,b,c",
                    help="allow the cycle of exactly these modules")
    ap.add_argument("--with-comments", action="store_true",
                    help="count crate:: paths in comments (doc links) too")
    args = ap.parse_args()
    edges = graph(args.src, args.with_comments)
    allowed = {frozenset(a.split(",")) for a in args.allow}
    cycles = sorted((c for c in components(edges) if len(c) > 1), key=lambda c: (-len(c), c))
    refused = 0
    for comp in cycles:
        ok = frozenset(comp) in allowed
        refused += not ok
        print(f"cycle{' (allowed)' if ok else ''}: {', '.join(comp)}")
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print(f"  {a} -> {b}  ({', '.join(sorted(edges[a][b]))})")
    unused = allowed - {frozenset(c) for c in cycles}
    for a in sorted(",".join(sorted(u)) for u in unused):
        print(f"note: allowed cycle {a} does not occur")
    if not cycles:
        print(f"no cycles among the {len(edges)} modules of {args.src}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
