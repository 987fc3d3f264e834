#!/usr/bin/env python3
"""Train the stick reader (`vision::reader`) and write it as ONNX.

Reads the inputs `yutstation train --from-dump DUMPS --export-reader DIR`
wrote (the station's own numbers: this script builds nothing of its own but
the order the station sets the planes in), trains a small convolutional net
to read front / back / neither, and writes `--out` (ONNX, read by OpenCV's
dnn module). With `--probs CSV --eval DIR...` it also writes the trained
net's readings of other exported sticks, for `yutstation eval --from-dump
--probs`.

Reproducible: fixed seeds, deterministic kernels, a fixed thread count.
Needs numpy and torch (CPU), see models/README.md.
"""
import argparse
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

PW, PL = 24, 64
CHANNELS, N_GEO = 11, 4


def load(dirs):
    """Every exported folder, joined: stick planes, taught planes per look."""
    parts = []
    look_base = 0
    for d in dirs:
        p = {k: np.load(f"{d}/{k}.npy", mmap_mode="r") for k in
             ["stick_planes", "stick_geo", "stick_label", "stick_look", "stick_meta", "look_taught"]}
        parts.append((p, look_base))
        look_base += len(p["look_taught"])
    data = {
        "planes": np.concatenate([np.asarray(p["stick_planes"]) for p, _ in parts]),
        "geo": np.concatenate([np.asarray(p["stick_geo"]) for p, _ in parts]).astype(np.float32),
        "label": np.concatenate([np.asarray(p["stick_label"]) for p, _ in parts]),
        "look": np.concatenate([np.asarray(p["stick_look"]) + b for p, b in parts]),
        "meta": np.concatenate([np.asarray(p["stick_meta"]) for p, _ in parts]),
        "taught": np.concatenate([np.asarray(p["look_taught"]) for p, _ in parts]),
    }
    return data


def assemble(data, idx):
    """The station's input order: stick against the mat (3), taught flat (3)
    and round (3) faces, mask, other sticks."""
    s = data["planes"][idx]
    t = data["taught"][data["look"][idx]]
    return np.concatenate([s[:, :3], t, s[:, 3:]], 1).astype(np.float32)


class Reader(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.c1 = nn.Conv2d(CHANNELS, w, 3, padding=1)
        self.c2 = nn.Conv2d(w, w, 3, padding=1)
        self.c3 = nn.Conv2d(w, 2 * w, 3, padding=1)
        self.c4 = nn.Conv2d(2 * w, 2 * w, 3, padding=1)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.max = nn.AdaptiveMaxPool2d(1)
        # The head is 1 × 1 convolutions on the pooled planes, three summed
        # rather than one over their concatenation, and `geo` comes in as
        # N × 4 × 1 × 1: OpenCV 4.6's ONNX importer sizes 4-D tensors well
        # and cannot size a Concat or Flatten of pooled planes.
        self.fc_avg = nn.Conv2d(2 * w, 64, 1)
        self.fc_max = nn.Conv2d(2 * w, 64, 1, bias=False)
        self.fc_geo = nn.Conv2d(N_GEO, 64, 1, bias=False)
        self.fc2 = nn.Conv2d(64, 3, 1)
        # Whether the stick is the marked one (read on flat faces only).
        self.mark = nn.Conv2d(64, 1, 1)

    def hidden(self, x, g):
        x = self.trunk(x)
        return F.relu(self.fc_avg(self.avg(x)) + self.fc_max(self.max(x)) + self.fc_geo(g))

    def logits(self, x, g):
        """For training: face logits N × 3 and mark logit N. `g` is N × 4."""
        h = self.hidden(x, g[:, :, None, None])
        return self.fc2(h).flatten(1), self.mark(h).flatten()

    def forward(self, patch, geo):
        """As exported: face probabilities N × 3 × 1 × 1 and the mark's
        N × 1 × 1 × 1."""
        h = self.hidden(patch, geo)
        return F.softmax(self.fc2(h), 1), torch.sigmoid(self.mark(h))

    def trunk(self, x):
        x = F.relu(self.c1(x))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.max_pool2d(F.relu(self.c3(x)), 2)
        return F.relu(self.c4(x))


def onnx_weights(path):
    """The weights of a reader this script exported: ONNX keeps each
    parameter under its PyTorch name."""
    import onnx
    from onnx import numpy_helper

    return {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(path).graph.initializer}


def augment(x, rng):
    """Each stick turned end for end or mirrored across at random, and its
    colours reordered and its contrast scaled the same way for the stick and
    the taught faces (new stations from old ones)."""
    n = len(x)
    fl = rng.random(n) < 0.5
    x[fl] = x[fl][..., ::-1]
    fa = rng.random(n) < 0.5
    x[fa] = x[fa][..., ::-1, :]
    for k in range(n):
        perm = rng.permutation(3)
        sc = np.float32(np.exp(rng.normal(0, 0.2)))
        for base in (0, 3, 6):
            x[k, base:base + 3] = x[k, base + perm] * sc
    return np.ascontiguousarray(x)


def read(net, data, idx, bs=512):
    out = []
    with torch.no_grad():
        for i in range(0, len(idx), bs):
            b = idx[i:i + bs]
            x = torch.from_numpy(assemble(data, b)).contiguous(memory_format=torch.channels_last)
            g = torch.from_numpy(data["geo"][b])[:, :, None, None]
            # One way along, as the station reads (vision::reader::Reader::read).
            p, m = net(x, g)
            out.append(torch.cat([p.flatten(1), m.flatten(1)], 1).numpy())
    return np.concatenate(out) if out else np.zeros((0, 4), np.float32)


def figures(name, data, idx, p):
    y = data["label"][idx]
    shared = data["meta"][idx, 5] > 0.5
    for sh, what in [(False, "lone"), (True, "shared")]:
        f = (y >= 0) & (y < 2) & (shared == sh)
        pt = np.where(y[f] == 0, p[f, 0], p[f, 1])
        po = np.where(y[f] == 0, p[f, 1], p[f, 0])
        nn_ = (y == 2) & (shared == sh)
        line = f"  {name} {what}: {f.sum()} face sticks, right by the likelier {np.mean(pt > po):.4f}"
        for bar in (0.9, 0.97, 0.99):
            line += f" | at {bar}: right {np.mean(pt >= bar):.4f}, wrong {int((po >= bar).sum())}"
        line += f" | {int(nn_.sum())} neither, read as a face at 0.9: {int(((p[nn_, 0] >= 0.9) | (p[nn_, 1] >= 0.9)).sum())}"
        print(line)
        fr = (y == 0) & (shared == sh)
        mk = data["meta"][idx][fr, 6] > 0.5
        pm = p[fr, 3]
        print(f"    marks on flat faces: {int(mk.sum())} marked, {int((~mk).sum())} not; sure (0.8) and right "
              f"{np.mean(np.where(mk, pm >= 0.8, pm <= 0.2)):.4f}, sure and wrong {int(np.sum(np.where(mk, pm <= 0.2, pm >= 0.8)))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True, help="exported folders to learn from")
    ap.add_argument("--out", required=True, help="the ONNX file to write")
    ap.add_argument("--eval", nargs="*", default=[], help="exported folders to report on (never learned from)")
    ap.add_argument("--probs", help="with --eval: write each stick's reading as CSV")
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--width", type=int, default=24,
                    help="planes of the first convolutions (round 14-17: 16; with --init, the init's)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", help="an ONNX reader to start from (its weights; go on learning from new looks)")
    ap.add_argument("--lr", type=float, default=3e-3, help="the peak learning rate (one cycle)")
    ap.add_argument("--looks-share", type=float, default=1.0,
                    help="learn from this share of the looks only, drawn by a fixed seed (a learning curve, ADR 0088)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(a.seed)
    data = load(a.train)
    looks = len(data["taught"])
    kept = np.random.default_rng(7).permutation(looks)[:int(round(a.looks_share * looks))]
    labelled = np.nonzero((data["label"] >= 0) & np.isin(data["look"], kept))[0]
    counts = np.bincount(data["label"][labelled], minlength=3)
    print(f"learning from {len(labelled)} sticks (front {counts[0]}, back {counts[1]}, neither {counts[2]}) "
          f"of {len(kept)} looks")
    ev = load(a.eval) if a.eval else None
    init = onnx_weights(a.init) if a.init else None
    # A reader goes on learning at its own width.
    width = init["c1.weight"].shape[0] if init is not None else a.width
    net = Reader(width)
    if init is not None:
        net.load_state_dict(init)
        print(f"starting from {a.init} (width {width})")
    # Channels last: the CPU's convolutions and their gradients run about 1.4
    # times faster in that layout (the same arithmetic, other kernels; ADR 0123).
    net = net.to(memory_format=torch.channels_last)
    bs = 128
    steps = a.epochs * ((len(labelled) + bs - 1) // bs)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, a.lr, total_steps=steps)
    # "Neither" is rare and its misreading is a silent error: weighed up.
    weight = torch.tensor([1.0, 1.0, 2.0])
    for epoch in range(a.epochs):
        t0 = time.time()
        net.train()
        order = rng.permutation(labelled)
        total = 0.0
        for i in range(0, len(order), bs):
            b = np.sort(order[i:i + bs])
            x = torch.from_numpy(augment(assemble(data, b), rng)).contiguous(memory_format=torch.channels_last)
            g = torch.from_numpy(data["geo"][b])
            y = torch.from_numpy(data["label"][b])
            faces, mark = net.logits(x, g)
            loss = F.cross_entropy(faces, y, weight=weight)
            flat = y == 0
            if flat.any():
                marked = torch.from_numpy(data["meta"][b, 6].astype(np.float32))
                loss = loss + F.binary_cross_entropy_with_logits(mark[flat], marked[flat])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(b)
        net.eval()
        print(f"epoch {epoch + 1}/{a.epochs}: loss {total / len(order):.4f} ({time.time() - t0:.0f} s)")
        if ev is not None:
            idx = np.arange(len(ev["label"]))
            figures("eval", ev, idx, read(net, ev, idx))
        sys.stdout.flush()
    net.eval()
    # Exported in the usual layout, as OpenCV reads it.
    net = net.to(memory_format=torch.contiguous_format)
    torch.onnx.export(
        net,
        (torch.zeros(1, CHANNELS, PW, PL), torch.zeros(1, N_GEO, 1, 1)),
        a.out,
        input_names=["patch", "geo"],
        output_names=["probs", "mark"],
        dynamic_axes={"patch": {0: "n"}, "geo": {0: "n"}, "probs": {0: "n"}, "mark": {0: "n"}},
        opset_version=11,
    )
    print(f"wrote {a.out}")
    if ev is not None and a.probs:
        idx = np.arange(len(ev["label"]))
        p = read(net, ev, idx)
        with open(a.probs, "w") as f:
            f.write("look,throw,stick,front,back,neither,mark\n")
            for m, q in zip(ev["meta"], p):
                f.write(f"{int(m[0])},{int(m[1])},{int(m[2])},{q[0]:.6f},{q[1]:.6f},{q[2]:.6f},{q[3]:.6f}\n")
        print(f"wrote {a.probs}")


if __name__ == "__main__":
    main()
