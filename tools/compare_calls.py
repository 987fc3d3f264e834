#!/usr/bin/env python3
"""Compare two programs' calls throw by throw, from `yutstation eval --from-dump
... --csv FILE` files (one row per found stick).

    python3 tools/compare_calls.py OLD.csv[,OLD2.csv...] NEW.csv[,NEW2.csv...]

Only the looks the NEW files hold are compared, so NEW may be a few looks
rendered again with a change to the finder while OLD holds whole sets. Prints
each side's clear throws called right, wrong calls and ambiguous throws
referred over those looks, then every throw whose call, reasons or count of
found sticks changed. Used for ADR 0073.
"""
import collections
import csv
import sys


def load(paths):
    """(look, throw) -> the throw's truth, call, reasons and sticks found."""
    throws = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["look"], row["throw"])
                t = throws.setdefault(
                    key,
                    {
                        "case": row["case"],
                        "ambiguous": row["ambiguous"] == "true",
                        "truth": row["truth_result"],
                        "called": row["called"],
                        "reasons": row["reasons"],
                        "found": 0,
                    },
                )
                t["found"] += 1
    return throws


def tally(throws, looks):
    c = collections.Counter()
    for (look, _), t in throws.items():
        if look not in looks:
            continue
        referred = t["called"] == "undecided"
        wrong = not referred and t["called"] != t["truth"]
        if t["ambiguous"]:
            c["ambiguous"] += 1
            c["ambiguous referred"] += referred
        else:
            c["clear"] += 1
            c["clear right"] += t["called"] == t["truth"]
        c["wrong"] += wrong
    return c


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old = load(sys.argv[1].split(","))
    new = load(sys.argv[2].split(","))
    looks = {look for look, _ in new}
    for name, throws in (("old", old), ("new", new)):
        c = tally(throws, looks)
        print(
            f"{name}: clear called right {c['clear right']}/{c['clear']}, "
            f"wrong {c['wrong']}, ambiguous referred "
            f"{c['ambiguous referred']}/{c['ambiguous']}"
        )
    for key in sorted(k for k in new if k in old or k[0] in looks):
        o, n = old.get(key), new[key]
        if o is None:
            print(key, "only in new")
            continue
        if (o["called"], o["reasons"], o["found"]) != (n["called"], n["reasons"], n["found"]):
            kind = "ambiguous" if n["ambiguous"] else "clear"
            print(
                f"look {key[0]} throw {key[1]} ({n['case']}, {kind}, truth {n['truth']}): "
                f"{o['called']} [{o['reasons']}] {o['found']} found -> "
                f"{n['called']} [{n['reasons']}] {n['found']} found"
            )


if __name__ == "__main__":
    main()
