#!/usr/bin/env python3
"""Where the clear throws that are not called right go.

Reads the per-stick CSV files `yutstation eval --from-dump DUMP --csv FILE` writes
and sorts every clear (unambiguous) throw the station did not call right into one
group, first that applies:

- called wrong;
- the one flat face's mark under another stick (no camera sees it);
- a stick the stick reader itself reads under 0.99 or as "neither" (shared: one
  touching, crossing or resting on another; else lone);
- fewer or more than four sticks found, or the stick reader sure of every stick but
  wrong of one;
- the stick reader sure and right of every stick: by the first reason given.

Standard library only. Usage: python3 tools/referral_map.py A.csv B.csv ...
"""
import collections
import csv
import sys

SURE = 0.99


def reader_reading(stick):
    """The stick reader's likeliest class (0 front, 1 back, 2 neither) and its
    probability, or None where it did not read."""
    try:
        p = [float(stick[k]) for k in ("s_front", "s_back", "s_neither")]
    except ValueError:
        return None
    if any(x != x for x in p):
        return None
    k = max(range(3), key=lambda i: p[i])
    return k, p[k]


def group(sticks):
    first = sticks[0]
    if first["called"] != "undecided":
        return "called wrong"
    if first["mark_covered"] == "true":
        return "mark under another stick (no camera sees it)"
    readings = [reader_reading(s) for s in sticks]
    unsure = [s for s, r in zip(sticks, readings) if r is None or r[0] == 2 or r[1] < SURE]
    if unsure:
        shared = any(s["shared"] == "true" for s in unsure)
        return f"stick reader under {SURE} on a {'shared' if shared else 'lone'} stick"
    if len(sticks) != 4 or any(str(r[0]) != s["label"] for s, r in zip(sticks, readings)):
        return "not four sticks found, or the reader sure and wrong"
    return "reader sure and right; referred for " + first["reasons"].split("|")[0]


def main(paths):
    groups = collections.Counter()
    clear = 0
    for path in paths:
        throws = collections.defaultdict(list)
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                throws[(row["look"], row["throw"])].append(row)
        for sticks in throws.values():
            first = sticks[0]
            if first["ambiguous"] == "true":
                continue
            clear += 1
            if first["called"] != first["truth_result"]:
                groups[group(sticks)] += 1
    missed = sum(groups.values())
    print(f"{clear} clear throws, {missed} not called right ({100 * (clear - missed) / max(clear, 1):.2f} % called right)")
    for name, n in groups.most_common():
        print(f"  {n:6}  {name}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
