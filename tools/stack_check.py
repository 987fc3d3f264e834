#!/usr/bin/env python3
"""Is there a safe call left in the three readers' outputs? A stacking check.

    python3 tools/stack_check.py TRAIN.csv[,TRAIN2.csv...] TEST.csv[,TEST2.csv...]

Both sides are `yutstation eval --from-dump ... --csv FILE` files (one row per
found stick). A gradient-boosted classifier learns each stick's true face
(front, back, neither) from what the station knows of it: the forest's, the
net's and the stick reader's probabilities and the stick's fitted geometry
(width, length, band, blob, shared). TRAIN must be looks none of the three
readers learned from (round 40 used the training-range looks of seeds 11 and
12 and the hard-case looks of seed 6 from training look 400).

On TEST it then asks, at several certainties: of the clear throws the station
referred only because a reader held a stick back (doubts `Neither`,
`BelowBar`, `ReadersSplit`, `ForestDoubts`; reasons `leaning`,
`low_confidence`, `on_edge`), how many would the classifier's sure faces call
right ("gain"), and in how many throws would it take every doubt away with a
stick read as the wrong face or a stick on its edge read as a face ("risk":
each is a silent error unless another guard holds the throw). Sticks the
truth matched to no stick (label -1) are left out of the risk.

Not a model the station ships: it measures what a learned combination of the
readers could add to the hand-set bars (ADR 0088). Needs pandas and
scikit-learn.
"""
import sys

import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

READER_DOUBTS = {"Neither", "BelowBar", "ReadersSplit", "ForestDoubts"}
READER_REASONS = {"Leaning", "LowConfidence", "OnEdge", "OnEdge|Leaning"}
FEATURES = ["width", "length", "band", "blob", "shared",
            "f_front", "f_back", "f_neither", "n_front", "n_back", "n_neither",
            "s_front", "s_back", "s_neither"]
CERTAINTIES = [0.99, 0.995, 0.998, 0.999]


def load(paths):
    d = pd.concat([pd.read_csv(p, dtype={"reasons": str, "doubts": str}) for p in paths.split(",")])
    d["shared"] = d.shared.astype(float)
    return d


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    train, test = load(sys.argv[1]), load(sys.argv[2])
    train = train[train.label >= 0]
    model = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, random_state=0)
    model.fit(train[FEATURES].values, train.label.values)
    p = model.predict_proba(test[FEATURES].values)
    test = test.assign(face=p.argmax(1), sure=p.max(1),
                       reader_only=test.doubts.map(
                           lambda s: isinstance(s, str) and set(s.split("|")) <= READER_DOUBTS))
    print(f"learned from {len(train)} sticks; testing on {test.groupby(['look', 'throw']).ngroups} throws")
    for c in CERTAINTIES:
        gain = risk = 0
        for _, g in test.groupby(["look", "throw"]):
            held = g[g.doubts.notna()]
            if held.empty or not held.reader_only.all():
                continue
            freed = held.sure >= c
            wrong = freed & (held.face != held.label) & (held.label >= 0)
            if not freed.all():
                continue
            first = g.iloc[0]
            if wrong.any():
                risk += 1
            elif (not first.ambiguous and first.called != first.truth_result
                  and first.reasons in READER_REASONS):
                gain += 1
        print(f"  sure at {c}: gain {gain} clear throws, risk {risk} throws")


if __name__ == "__main__":
    main()
