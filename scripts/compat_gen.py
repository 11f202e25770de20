#!/usr/bin/env python3
"""A differential test generator beside the hand-written Flink compatibility
suite (compat/cases): from a seed it writes random window jobs with their
input, in the suite's format, so that they run on Flink 2.3
(scripts/flink_compat.sh --root DIR) and on lowwater
(crates/replay/tests/flink_compat.rs), and reports each difference.

  scripts/compat_gen.py gen --seed S --count N --out DIR
      writes cases gS..g(S+N-1): DIR/cases/gNNNNN.sql (`-- data: gNNNNN`,
      `-- partitions: 1-4`, `-- mode: streaming`), DIR/data/gNNNNN.sql (the
      source table `events`) and DIR/data/gNNNNN.jsonl (20-200 rows). Case i
      draws everything from random.Random(i), so one case regenerates alone
      (`--seed 123 --count 1`). Existing `-- known-difference:` lines of a
      case are kept when it is rewritten unchanged otherwise.
  scripts/compat_gen.py report --root DIR --lowwater OUT [--md FILE] [--json FILE]
      compares lowwater's rows (OUT/NAME.jsonl or OUT/NAME.error, written by
      the Rust test with LOWWATER_COMPAT_OUT=OUT) with Flink's
      (DIR/expected/NAME.jsonl|.error), classifies every difference by cause
      and writes a report: case, SQL, a few differing rows, Flink's vs
      lowwater's.
  scripts/compat_gen.py mark --root DIR --json REPORT.json
      adds `-- known-difference: CLASS` to each differing case of DIR (the
      classes the report lists), removes the marks of cases that match now.

The stored set (CI compares it without Flink, test
`generated_cases_give_flinks_rows`):

  scripts/compat_gen.py gen --seed 1 --count 300 --out compat/generated
  scripts/flink_compat.sh --root compat/generated --batch 50
  LOWWATER_COMPAT_ROOT=$PWD/compat/generated LOWWATER_COMPAT_OUT=/tmp/lw_gen \\
      cargo test -p lowwater-replay --test flink_compat other_root -- --ignored
  scripts/compat_gen.py report --root compat/generated --lowwater /tmp/lw_gen --json /tmp/gen.json
  scripts/compat_gen.py mark --root compat/generated --json /tmp/gen.json

(`generated_cases_give_flinks_rows` then passes: the marked cases are
listed as known differences.) With --batch 50 Flink runs about 90 cases a
minute per process (one job per case: about 20); run two processes side by
side on 2 cores, each on half of the names, e.g. `scripts/flink_compat.sh
--root DIR --batch 50 $(ls DIR/cases | sed -n 1,600p | sed s/.sql//)`. Keep
batches at 50 or fewer: one job of 70 cases hung.

The long form (not stored; Flink on demand, about 7 minutes with two
processes, lowwater 7 s):

  scripts/compat_gen.py gen --seed 100000 --count 1200 --out /tmp/compat_long
  scripts/flink_compat.sh --root /tmp/compat_long --batch 50
  LOWWATER_COMPAT_ROOT=/tmp/compat_long LOWWATER_COMPAT_OUT=/tmp/lw_long \\
      cargo test -p lowwater-replay --test flink_compat other_root -- --ignored --nocapture
  scripts/compat_gen.py report --root /tmp/compat_long --lowwater /tmp/lw_long --md /tmp/long.md

What a job holds: 2-6 columns of TINYINT, SMALLINT, INT, BIGINT, FLOAT,
DOUBLE, DECIMAL(p,s), STRING, BOOLEAN with NULLs, negatives, 0, non-dyadic
decimals and (in a third of the columns) extremes; event time `ts` with a
watermark delay of 1-5 s, the rows out of order but never later than the
delay; TUMBLE, HOP, CUMULATE or SESSION (PARTITION BY the keys); no key or
one or two; 1-5 aggregates of COUNT(*), COUNT, SUM, AVG, MIN, MAX,
FIRST_VALUE, LAST_VALUE, LISTAGG (with and without separator), VAR_POP,
VAR_SAMP, STDDEV_POP, STDDEV_SAMP, with DISTINCT and FILTER (WHERE ...);
optional WHERE and HAVING; the sink declares the types Flink derives. A job
with an order-dependent aggregate (FIRST_VALUE, LAST_VALUE, LISTAGG) reads
one partition (the order of records across partitions is not defined), the
others 1-4. Combinations Flink rejects (FIRST_VALUE in HOP, SUM(DISTINCT) in
HOP, ...) are drawn rarely, to check that lowwater rejects them too.
"""
import argparse
import glob
import json
import os
import random
import re
import sys

# --- values -----------------------------------------------------------------

INTS = {  # type: (small values, extremes)
    "TINYINT": ([0, 1, -1, 7, -3, 42, 100, -100], [127, -128]),
    "SMALLINT": ([0, 1, -1, 12, -250, 300, 7], [32767, -32768]),
    "INT": ([0, 1, -1, 5, -7, 1000, 123456, -99], [2147483647, -2147483648]),
    "BIGINT": ([0, 1, -1, 3, -5, 10**12, -123456789], [9223372036854775807, -9223372036854775808]),
}
FLOATS = {
    "FLOAT": (["0.1", "3.3", "12345.6", "-2.5", "0", "-0.1", "1.5", "7"],
              ["1.0E10", "3.4E38", "-3.4E38", "1.17549435E-38"]),
    "DOUBLE": (["0.1", "3.3", "12345.6", "-2.5", "0", "1.0E-7", "123456789.123", "-0.3"],
               ["1.0E300", "-1.0E300", "1.7976931348623157E308", "4.9E-324"]),
}
STRINGS = ["a", "b", "c", "ü-ser", "", "A", "a,b", "zz"]
DECIMALS = [(10, 2), (5, 0), (18, 4), (38, 10), (12, 3), (3, 1)]
NUMERIC = ["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"]


def decimal_pool(p, s, extreme):
    whole = p - s
    cands = ["0", "0.1", "3.3", "12345.6", "-7.25", "1", "-2", "99.99", "0.05", "-0.3"]
    fits = []
    for c in cands:
        ip = c.lstrip("-").split(".")[0]
        if len(ip.lstrip("0")) <= whole:
            fits.append(c)
    ext = []
    if extreme:
        big = "9" * whole + ("." + "9" * s if s else "")
        ext = [big, "-" + big]
        if s:
            ext.append("0." + "0" * (s - 1) + "1")
    return fits, ext


class Column:
    def __init__(self, rng, name, typ):
        self.name, self.base = name, typ
        self.extreme = rng.random() < 0.33
        self.nulls = rng.choice([0.0, 0.1, 0.2, 0.4])
        if typ == "DECIMAL":
            p, s = rng.choice(DECIMALS)
            self.sql = f"DECIMAL({p}, {s})"
            self.p, self.s = p, s
            small, ext = decimal_pool(p, s, self.extreme)
        elif typ in INTS:
            self.sql = typ
            small, ext = [str(v) for v in INTS[typ][0]], [str(v) for v in INTS[typ][1]]
        elif typ in FLOATS:
            self.sql = typ
            small, ext = FLOATS[typ]
        elif typ == "STRING":
            self.sql = typ
            small, ext = [json.dumps(v, ensure_ascii=False) for v in STRINGS], []
        else:
            self.sql = typ
            small, ext = ["true", "false"], []
        # a few distinct values, so that DISTINCT and keys matter
        small = rng.sample(small, min(len(small), rng.randint(2, 6)))
        self.pool = small + (ext if self.extreme else [])
        self.weights = [4] * len(small) + [1] * (len(self.pool) - len(small))

    def value(self, rng):
        if rng.random() < self.nulls:
            return "null"
        return rng.choices(self.pool, self.weights)[0]

    def literal(self, rng):
        """A literal of this column's kind for a comparison."""
        if self.base == "STRING":
            v = json.loads(rng.choice([p for p in self.pool if p != "null"]))
            return "'" + v.replace("'", "''") + "'"
        if self.base in FLOATS or self.base == "DECIMAL":
            return rng.choice(["0", "1", "3.3", "-1", "100"])
        return rng.choice(["0", "1", "-1", "5", "100"])


# --- aggregates -------------------------------------------------------------


def result_type(func, col):
    """The type Flink 2.3 derives for func(col) (checked with
    Table.get_schema on every combination)."""
    if func == "COUNT":
        return "BIGINT"
    if func == "LISTAGG":
        return "STRING"
    if col.base == "DECIMAL":
        if func == "SUM":
            return f"DECIMAL(38, {col.s})"
        if func in ("AVG", "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"):
            return f"DECIMAL(38, {max(6, col.s)})"
    return col.sql


def condition(rng, cols):
    c = rng.choice(cols)
    n = c.name
    if c.base == "BOOLEAN":
        return rng.choice([n, f"NOT {n}", f"{n} IS NOT TRUE", f"{n} IS NULL"])
    if c.base == "STRING":
        lit = c.literal(rng)
        return rng.choice([f"{n} <> {lit}", f"{n} = {lit}", f"{n} IS NOT NULL",
                           f"{n} IN ({lit}, {c.literal(rng)})", f"{n} > {lit}"])
    lit = c.literal(rng)
    return rng.choice([f"{n} > {lit}", f"{n} <> 0", f"{n} IS NOT NULL", f"{n} < {lit}",
                       f"{n} BETWEEN -10 AND 1000", f"{n} >= {lit}"])


def aggregate(rng, cols, window, keyed_session):
    """(SQL, result type, order-dependent) of one aggregate call."""
    nums = [c for c in cols if c.base in NUMERIC]
    strs = [c for c in cols if c.base == "STRING"]
    merge_ok = window == "TUMBLE"
    while True:
        func = rng.choice(["COUNT*", "COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE",
                           "LAST_VALUE", "LISTAGG", "VAR_POP", "VAR_SAMP", "STDDEV_POP",
                           "STDDEV_SAMP", "SUM", "COUNT", "LISTAGG"])
        # rarely a combination Flink rejects (lowwater must reject it too)
        rare = rng.random() < 0.005
        if func in ("FIRST_VALUE", "LAST_VALUE") and not merge_ok and not rare:
            continue
        if func == "COUNT*":
            sql, typ, col = "COUNT(*)", "BIGINT", None
        else:
            if func in ("SUM", "AVG", "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"):
                pool = nums
            elif func == "LISTAGG":
                pool = strs
            else:
                pool = cols
            if not pool:
                continue
            col = rng.choice(pool)
            distinct = False
            if func in ("COUNT", "SUM", "AVG", "MIN", "MAX", "LISTAGG"):
                distinct = rng.random() < 0.3
            elif rng.random() < 0.05:
                distinct = True
            if distinct and window == "HOP" and func in ("SUM", "LISTAGG") and not rare:
                continue
            args = ("DISTINCT " if distinct else "") + col.name
            if func == "LISTAGG" and rng.random() < 0.5:
                args += ", " + rng.choice(["'|'", "'; '", "''", "'-->'"])
            sql, typ = f"{func}({args})", result_type(func, col)
        if rng.random() < 0.2:
            sql += f" FILTER (WHERE {condition(rng, cols)})"
        return sql, typ, func in ("FIRST_VALUE", "LAST_VALUE", "LISTAGG")


def having(rng, cols):
    nums = [c for c in cols if c.base in NUMERIC]
    opts = ["COUNT(*) > 1", "COUNT(*) >= 3"]
    if nums:
        c = rng.choice(nums)
        opts += [f"SUM({c.name}) > 0", f"MAX({c.name}) IS NOT NULL", f"MIN({c.name}) < 10"]
    return rng.choice(opts)


# --- a case -----------------------------------------------------------------

BASE_MS = 1757851200000  # 2025-09-14 12:00:00 UTC


def fmt_ts(ms):
    import datetime
    d = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def make_case(i):
    rng = random.Random(i)
    name = f"g{i:05d}"
    ncols = rng.randint(2, 6)
    types = [rng.choice(NUMERIC + ["STRING", "STRING", "BOOLEAN"]) for _ in range(ncols)]
    if "STRING" not in types and rng.random() < 0.6:
        types[0] = "STRING"
    cols = [Column(rng, f"c{j}", t) for j, t in enumerate(types)]
    delay = rng.choice([1, 2, 3, 5])

    # keys: none, or one or two columns with few values
    keyable = [c for c in cols if c.base in ("STRING", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT")]
    nkeys = rng.choice([0, 0, 1, 1, 1, 2])
    keys = rng.sample(keyable, min(nkeys, len(keyable)))

    window = rng.choices(["TUMBLE", "HOP", "CUMULATE", "SESSION"], [30, 25, 20, 25])[0]
    partition = ""
    if window == "TUMBLE":
        w = f"TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '{rng.choice([1, 2, 3, 5, 10, 30])}' SECOND)"
    elif window == "HOP":
        slide = rng.choice([1, 2, 5])
        size = slide * rng.choice([2, 3, 4])
        if rng.random() < 0.02:
            slide, size = 2, 5
        w = f"HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '{slide}' SECOND, INTERVAL '{size}' SECOND)"
    elif window == "CUMULATE":
        step = rng.choice([1, 2, 5])
        w = (f"CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '{step}' SECOND, "
             f"INTERVAL '{step * rng.choice([2, 3, 4, 6])}' SECOND)")
    else:
        if keys:
            names = ", ".join(k.name for k in keys)
            partition = f" PARTITION BY {names}" if len(keys) == 1 else f" PARTITION BY ({names})"
        w = f"SESSION(TABLE events{partition}, DESCRIPTOR(ts), INTERVAL '{rng.choice([1, 2, 3])}' SECOND)"

    aggs = [aggregate(rng, cols, window, bool(partition)) for _ in range(rng.randint(1, 5))]
    ordered = any(o for _, _, o in aggs)
    partitions = 1 if ordered else rng.randint(1, 4)

    sink = ["window_start TIMESTAMP(3)", "window_end TIMESTAMP(3)"]
    sink += [f"{k.name} {k.sql}" for k in keys]
    sink += [f"a{j} {t}" for j, (_, t, _) in enumerate(aggs)]
    select = ["window_start", "window_end"] + [k.name for k in keys] + [s for s, _, _ in aggs]
    sql = [f"CREATE TABLE results ({', '.join(sink)}) WITH ('connector' = 'filesystem', "
           f"'path' = '{{{{results}}}}', 'format' = 'json');",
           f"INSERT INTO results SELECT {', '.join(select)}",
           f"FROM TABLE({w})"]
    if rng.random() < 0.35:
        sql.append(f"WHERE {condition(rng, cols)}")
    sql.append("GROUP BY " + ", ".join(["window_start", "window_end"] + [k.name for k in keys]))
    if rng.random() < 0.3:
        sql.append(f"HAVING {having(rng, cols)}")
    sql[-1] += ";"
    case = (f"-- data: {name}\n-- partitions: {partitions}\n-- mode: streaming\n"
            + "\n".join(sql) + "\n")

    source = ("CREATE TABLE events (\n"
              + "".join(f"  {c.name} {c.sql},\n" for c in cols)
              + "  ts TIMESTAMP(3),\n"
              + f"  WATERMARK FOR ts AS ts - INTERVAL '{delay}' SECOND\n"
              + ") WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');\n")

    # rows: event times ascending with gaps, then shuffled within the delay:
    # a row sorts by ts + u (0 <= u <= J < delay), so every row is later
    # than every watermark before it (ts > max seen - delay), never late.
    nrows = rng.randint(20, 200)
    step = rng.choice([100, 300, 700, 1500])
    t, times = BASE_MS + rng.randint(0, 999), []
    for _ in range(nrows):
        times.append(t)
        t += rng.randint(0, step) if rng.random() > 0.05 else rng.randint(3000, 6000)
    jitter = rng.choice([0, delay * 1000 - 1, (delay * 1000 - 1) // 2])
    order = sorted(range(nrows), key=lambda j: (times[j] + rng.randint(0, jitter), j))
    lines = []
    for j in order:
        fields = [f'"{c.name}": {c.value(rng)}' for c in cols]
        fields.append(f'"ts": "{fmt_ts(times[j])}"')
        lines.append("{" + ", ".join(fields) + "}")
    return name, case, source, "\n".join(lines) + "\n"


def gen(args):
    for d in ("cases", "data", "expected"):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    for i in range(args.seed, args.seed + args.count):
        name, case, source, data = make_case(i)
        path = os.path.join(args.out, "cases", name + ".sql")
        if os.path.exists(path):  # keep the marks of a case that is the same
            old = open(path, encoding="utf-8").read().splitlines(keepends=True)
            marks = [l for l in old if l.startswith("-- known-difference:")]
            if "".join(l for l in old if l not in marks) == case and marks:
                lines = case.splitlines(keepends=True)
                case = "".join(lines[:3] + marks + lines[3:])
        open(path, "w", encoding="utf-8").write(case)
        open(os.path.join(args.out, "data", name + ".sql"), "w", encoding="utf-8").write(source)
        open(os.path.join(args.out, "data", name + ".jsonl"), "w", encoding="utf-8").write(data)
    print(f"{args.count} cases g{args.seed:05d}..g{args.seed + args.count - 1:05d} in {args.out}")


# --- comparison and classification -------------------------------------------


def split_top(text):
    out, depth, cur, quote = [], 0, "", False
    for ch in text:
        if ch == "'":
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def parse_case(root, name):
    text = open(os.path.join(root, "cases", name + ".sql"), encoding="utf-8").read()
    data = re.search(r"^-- data: (\S+)", text, re.M).group(1)
    source = open(os.path.join(root, "data", data + ".sql"), encoding="utf-8").read()
    coltypes = dict(re.findall(r"^\s+(c\d+) ([A-Z]+)", source, re.M))
    sink = re.search(r"CREATE TABLE results \((.*?)\) WITH", text, re.S).group(1)
    names = [s.split()[0] for s in split_top(sink)]
    sel = re.search(r"INSERT INTO results SELECT (.*?)\nFROM", text, re.S).group(1)
    exprs = split_top(sel)
    window = re.search(r"FROM TABLE\((\w+)", text).group(1)
    cols = {}
    for n, e in zip(names, exprs):
        m = re.match(r"(\w+)\((DISTINCT )?(\*|c\d+)", e)
        if m:
            cols[n] = {"func": m.group(1), "distinct": bool(m.group(2)), "filter": "FILTER" in e,
                       "type": coltypes.get(m.group(3), "-"), "expr": e}
    keys = [n for n in names if not n.startswith("a")]
    return text, source, window, cols, keys, int(re.search(r"^-- partitions: (\d+)", text, re.M).group(1))


def rows_of(path):
    return [l for l in open(path, encoding="utf-8").read().splitlines() if l]


def close_num(a, b, rel):
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return x == y or abs(x - y) <= rel * max(abs(x), abs(y))


def classify(root, name, want, got, werr, gerr):
    """(class, detail) of one difference."""
    text, source, window, cols, keys, parts = parse_case(root, name)
    if werr is not None and gerr is None:
        msg = werr
        for pat, label in [("merge", "has no merge (FIRST_VALUE/LAST_VALUE in HOP/CUMULATE/global SESSION)"),
                           ("does not support retraction", "DISTINCT SUM/LISTAGG in HOP: 'does not support retraction'"),
                           ("doesn't support consuming update changes", "the SESSION aggregate becomes a GroupAggregate (update changes the sink refuses)"),
                           ("integral multiple of slide", "HOP size not a multiple of the slide")]:
            if pat in msg:
                return f"lowwater accepts what Flink rejects: {label}", msg
        return "lowwater accepts what Flink rejects: " + msg[:80], msg
    if gerr is not None and werr is None:
        short = re.sub(r"^line \d+, column \d+: ", "", gerr.splitlines()[0])
        short = re.sub(r"g\d{5,}|\d+", "N", short)[:100]
        return "lowwater rejects what Flink accepts: " + short, gerr
    # both rows: align on window and keys
    def parse(lines):
        out = {}
        for l in lines:
            try:
                o = json.loads(l, parse_float=str, parse_int=str)
            except ValueError:
                o = {"__raw": l}
            k = json.dumps([o.get(k) for k in keys])
            out.setdefault(k, []).append(o)
        return out
    W, G = parse(want), parse(got)
    if set(W) != set(G):
        if re.search(r"HAVING SUM\((c\d+)\)", text) and re.search(
                rf"\b{re.search(r'HAVING SUM[(](c[0-9]+)', text).group(1)} FLOAT", source):
            return ("FLOAT aggregate overflow: Flink adds in FLOAT (Infinity, NaN, 0), lowwater in DOUBLE",
                    "HAVING SUM of a FLOAT column keeps other windows")
        only_w = len(set(W) - set(G))
        only_g = len(set(G) - set(W))
        return f"different windows/groups ({window})", f"{only_w} only in Flink's, {only_g} only in lowwater's"
    bad = {}
    for k in W:
        for a, b in zip(W[k], G[k]):
            for c in cols:
                if a.get(c) != b.get(c):
                    bad.setdefault(c, []).append((a.get(c), b.get(c)))
    if not bad:
        return "row text differs", json.dumps([want[:2], got[:2]], ensure_ascii=False)
    classes = []
    for c, pairs in sorted(bad.items()):
        info = cols[c]
        f, t = info["func"], info["type"]
        d = " DISTINCT" if info["distinct"] else ""
        kinds = sorted({kind(f, info["expr"], x, y) for x, y in pairs})
        label = cause(f, t, window, kinds, info["distinct"]) or f"{f}{d} of {t} in {window}: {', '.join(kinds)}"
        classes.append(label)
    return " && ".join(sorted(set(classes))), json.dumps({c: p[:3] for c, p in bad.items()}, ensure_ascii=False)


INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def cause(f, t, window, kinds, distinct):
    """The cause of a column's difference, where the pattern is known."""
    special = [k for k in kinds if k.startswith("Flink")]
    if f in ("LISTAGG", "FIRST_VALUE", "LAST_VALUE") and distinct and "duplicates" in kinds:
        return "LISTAGG/FIRST_VALUE/LAST_VALUE(DISTINCT) ignores DISTINCT (known)"
    if t == "FLOAT" and kinds == ["last digits"] and f in ("SUM", "AVG"):
        return "SUM/AVG of FLOAT: last bits (known)"
    if t == "FLOAT":
        return "FLOAT aggregate overflow: Flink adds in FLOAT (Infinity, NaN, 0), lowwater in DOUBLE"
    if f.startswith(("STDDEV", "VAR")) and t in INTEGRAL:
        if window == "HOP":
            return "STDDEV/VAR of an integer type in HOP: off by one or in the last digits (known)"
        return "STDDEV/VAR of an integer type outside HOP (CUMULATE, TUMBLE, SESSION): off by one or in the last digits"
    if f == "AVG" and t in INTEGRAL:
        return "AVG of an integer type over extreme values: the sum overflows differently"
    if t == "DOUBLE" and special:
        return "DOUBLE overflow (values near 1e300): Flink's Infinity/NaN/null differ from lowwater's"
    if t == "DOUBLE":
        return "DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)"
    if t == "DECIMAL":
        return "DECIMAL overflow (a sum beyond 38 digits): Flink's null (SUM) or restarted sum (AVG), lowwater a value"
    if f == "LISTAGG" and "',' between slices" in kinds:
        return "LISTAGG with a separator in HOP/CUMULATE: Flink joins slices with ','"
    if f == "LISTAGG" and kinds == ["order"] and distinct:
        return "LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order"
    if f == "LISTAGG" and kinds == ["order"]:
        return "LISTAGG order in HOP/CUMULATE/SESSION: Flink concatenates slices (merged sessions) in their order"
    return None


def kind(func, expr, x, y):
    """How Flink's value x differs from lowwater's y."""
    special = ("NaN", "Infinity", "-Infinity")
    if x is None or y is None:
        x, y = x or "null", y or "null"
        special += ("null",)
        return f"Flink {x if x is None or x in special else 'a value'}, lowwater {y if y is None or y in special else 'a value'}"
    if x in special or y in special:
        return f"Flink {x if x in special else 'a value'}, lowwater {y if y in special else 'a value'}"
    if close_num(x, y, 1e-5):
        return "last digits"
    if func == "LISTAGG":
        m = re.search(r"LISTAGG\((?:DISTINCT )?c\d+, '(.*?)'\)", expr)
        sep = m.group(1) if m else ","
        xs, ys = x.split(sep) if sep else list(x), y.split(sep) if sep else list(y)
        if set(xs) == set(ys) and len(xs) < len(ys):
            return "duplicates"
        if sorted(xs) == sorted(ys):
            return "order"
        if sep not in (",", "") and sorted(x.replace(",", sep).split(sep)) == sorted(ys):
            return "',' between slices"
        if sep == "" and sorted(x.replace(",", "")) == sorted(y.replace(",", "")) and x.count(",") > y.count(","):
            return "',' between slices"
    if func in ("FIRST_VALUE", "LAST_VALUE") and "DISTINCT" in expr:
        return "duplicates"
    return "value"


def report(args):
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.root, "cases", "*.sql")))
    diffs, compared, rows = [], 0, 0
    missing = []
    for name in names:
        e = os.path.join(args.root, "expected", name)
        lw = os.path.join(args.lowwater, name)
        werr = open(e + ".error").read().strip() if os.path.exists(e + ".error") else None
        want = rows_of(e + ".jsonl") if os.path.exists(e + ".jsonl") else None
        if werr is None and want is None:
            missing.append(name)
            continue
        gerr = open(lw + ".error").read().strip() if os.path.exists(lw + ".error") else None
        got = rows_of(lw + ".jsonl") if os.path.exists(lw + ".jsonl") else None
        if gerr is None and got is None:
            missing.append(name)
            continue
        compared += 1
        rows += len(want or [])
        if (werr is not None and gerr is not None) or (werr is None and gerr is None and want == got):
            continue
        cls, detail = classify(args.root, name, want, got, werr, gerr)
        diffs.append({"case": name, "class": cls, "detail": detail,
                      "sql": open(os.path.join(args.root, "cases", name + ".sql"), encoding="utf-8").read(),
                      "flink": werr if werr is not None else [r for r in want if r not in (got or [])][:3],
                      "lowwater": gerr if gerr is not None else [r for r in got if r not in (want or [])][:3],
                      "nrows": [len(want or []), len(got or [])]})
    by = {}
    for d in diffs:
        for c in d["class"].split(" && "):
            by.setdefault(c, []).append(d)
    summary = {"cases": len(names), "compared": compared, "flink_rows": rows,
               "differing": len(diffs), "missing": missing,
               "classes": {c: [d["case"] for d in ds] for c, ds in sorted(by.items(), key=lambda x: -len(x[1]))}}
    if args.json:
        json.dump({"summary": summary, "diffs": diffs}, open(args.json, "w"), indent=1, ensure_ascii=False)
    out = [f"# lowwater vs Flink 2.3: {args.root}", "",
           f"{len(names)} cases, {compared} compared ({rows} Flink rows), {len(diffs)} differ, "
           f"{len(missing)} without a result", "", "## Classes", ""]
    for c, ds in sorted(by.items(), key=lambda x: -len(x[1])):
        out.append(f"- {len(ds)} cases: {c} (e.g. {', '.join(d['case'] for d in ds[:5])})")
    out += ["", "## Differences", ""]
    for d in diffs:
        out += [f"### {d['case']}: {d['class']}", "", "```sql", d["sql"].rstrip(), "```",
                f"rows Flink/lowwater: {d['nrows']}; differing values (Flink, lowwater): {d['detail']}", "",
                "Flink: " + json.dumps(d["flink"], ensure_ascii=False),
                "lowwater: " + json.dumps(d["lowwater"], ensure_ascii=False), ""]
    text = "\n".join(out) + "\n"
    if args.md:
        open(args.md, "w", encoding="utf-8").write(text)
    print("\n".join(out[:8 + len(by)]))


def mark(args):
    rep = json.load(open(args.json))
    classes = {d["case"]: d["class"] for d in rep["diffs"]}
    n = 0
    for p in sorted(glob.glob(os.path.join(args.root, "cases", "*.sql"))):
        name = os.path.basename(p)[:-4]
        lines = open(p, encoding="utf-8").read().splitlines(keepends=True)
        kept = [l for l in lines if not l.startswith("-- known-difference:")]
        if name in classes:
            kept.insert(3, f"-- known-difference: {classes[name].splitlines()[0]}\n")
            n += 1
        open(p, "w", encoding="utf-8").write("".join(kept))
    print(f"{n} cases marked known-difference")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--root", required=True)
    r.add_argument("--lowwater", required=True)
    r.add_argument("--md")
    r.add_argument("--json")
    m = sub.add_parser("mark")
    m.add_argument("--root", required=True)
    m.add_argument("--json", required=True)
    argv = sys.argv[1:]
    if argv and argv[0].startswith("--"):  # `compat_gen.py --seed S --count N --out DIR`
        argv = ["gen"] + argv
    args = ap.parse_args(argv)
    {"gen": gen, "report": report, "mark": mark}.get(args.cmd, lambda a: ap.print_help())(args)


if __name__ == "__main__":
    main()
