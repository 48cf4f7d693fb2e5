#!/usr/bin/env python3
"""Whole-process runner figures of issue 10 (docs/performance.md, "Runner").

Runs, alternately, RUNS rounds of:
  tempo run rulesets/frontiers.rules duel.ron --format jsonl > /dev/null    (each --tempo binary)
  tempo run rulesets/frontiers.rules crowd.ron --format jsonl > /dev/null   (each --tempo binary)
  BASELINE --print ROUNDS SEED > /dev/null                                  (the hand-written duel)
and prints, per program, the best and median wall time and user+system CPU time, then the two
ratios the issue asks for, each from the same run:
  - item 2: tempo's duel against the hand-written duel (the same 10,000-round duel, byte-identical
    output, checked with cmp first);
  - item 3: the crowd's time per event against the duel's time per event, for each tempo binary.
CPU time is the steadier figure on a shared machine (another process's load inflates wall time
more than CPU time); both are printed.

    cargo build --release --bin tempo && cargo bench -p tempo-benches --bench baseline --no-run
    python3 benches/tools/run_ratios.py --baseline target/release/deps/baseline-HASH \
        --tempo after=target/release/tempo [--tempo before=/path/to/old/tempo] [--runs 9]

The duel is the scenario the baseline writes (`--scenario 10000 7`: two participants, hp_max
1,000,000, damage 1, HoldBack keeping 1 AP). The crowd is 200 participants in 100 pairs
(positions 3i and 3i + 1, the same stats and policy) over 50 rounds, seed 7: what
`benches/run.rs` calls `run_participants/200`.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

from process import measure


def crowd(path, pairs=100, rounds=50, seed=7):
    rows = []
    for i in range(pairs):
        for side, offset in (("a", 0), ("b", 1)):
            rows.append(
                f'  (name: "{side.upper()}{i}", side: "{side}", stats: {{"hp_max": 1000000, "damage": 1}}, '
                f'position: {3 * i + offset}, controller: Policy(HoldBack(pool: "ap", keep: 1, spend_on_reactions: true))),'
            )
    with open(path, "w") as f:
        f.write(f"(seed: {seed}, rounds: {rounds}, participants: [\n" + "\n".join(rows) + "\n])\n")


def run(argv):
    """Wall seconds and CPU seconds (user + system) of one process, its output discarded."""
    wall, usage = measure(argv)
    return wall, usage.ru_utime + usage.ru_stime


def lines(argv):
    out = subprocess.run(argv, check=True, capture_output=True).stdout
    return out, out.count(b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", required=True, help="the `baseline` bench executable")
    ap.add_argument("--tempo", action="append", required=True, help="LABEL=PATH of a tempo binary (repeatable)")
    ap.add_argument("--rules", default="rulesets/frontiers.rules")
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    tempos = [t.split("=", 1) for t in args.tempo]
    work = tempfile.mkdtemp()
    duel = os.path.join(work, "duel.ron")
    with open(duel, "wb") as f:
        f.write(subprocess.run([args.baseline, "--scenario", str(args.rounds), str(args.seed)], check=True, capture_output=True).stdout)
    crowd_path = os.path.join(work, "crowd.ron")
    crowd(crowd_path)
    hand, duel_events = lines([args.baseline, "--print", str(args.rounds), str(args.seed)])
    programs = [("hand-written duel", [args.baseline, "--print", str(args.rounds), str(args.seed)], duel_events)]
    for label, path in tempos:
        out, n = lines([path, "run", args.rules, duel, "--format", "jsonl"])
        if out != hand:
            raise SystemExit(f"{label}: its duel trace differs from the hand-written program's")
        _, crowd_events = lines([path, "run", args.rules, crowd_path, "--format", "jsonl"])
        programs.append((f"{label} duel", [path, "run", args.rules, duel, "--format", "jsonl"], n))
        programs.append((f"{label} crowd", [path, "run", args.rules, crowd_path, "--format", "jsonl"], crowd_events))
    print(f"duel: {args.rounds} rounds, {duel_events} events, byte-identical to the hand-written program")
    results = {label: [] for label, _, _ in programs}
    for _ in range(args.runs):
        for label, argv, _ in programs:
            results[label].append(run(argv))
    summary = {}
    print("program | events | wall best / median s | CPU best / median s | CPU median per event µs")
    for label, _, events in programs:
        walls = [w for w, _ in results[label]]
        cpus = [c for _, c in results[label]]
        s = (min(walls), statistics.median(walls), min(cpus), statistics.median(cpus), events)
        summary[label] = s
        print(f"{label} | {events} | {s[0]:.3f} / {s[1]:.3f} | {s[2]:.3f} / {s[3]:.3f} | {s[3] / events * 1e6:.3f}")
    hand_s = summary["hand-written duel"]
    for label, _ in tempos:
        d, c = summary[f"{label} duel"], summary[f"{label} crowd"]
        print(
            f"{label}: duel / hand-written: wall {d[0] / hand_s[0]:.2f}x best, {d[1] / hand_s[1]:.2f}x median; "
            f"CPU {d[2] / hand_s[2]:.2f}x best, {d[3] / hand_s[3]:.2f}x median"
        )
        per = lambda s, i: s[i] / s[4]
        print(
            f"{label}: crowd per event / duel per event: wall {per(c, 0) / per(d, 0):.2f}x best, "
            f"{per(c, 1) / per(d, 1):.2f}x median; CPU {per(c, 2) / per(d, 2):.2f}x best, {per(c, 3) / per(d, 3):.2f}x median"
        )


if __name__ == "__main__":
    main()
