#!/usr/bin/env python3
"""Whole-process compile comparison (docs/performance.md, "Compile", issue 10).

For each size, runs `tempo compile STEM.rules -o /dev/null` (one run per tempo binary given) and
`read-ir-json STEM.json` alternately, RUNS rounds (and `pest-floor STEM.rules`, pest reading the
same source as a flat stream of tokens, when that example is built), and prints for each: the best and median wall
time, the median peak RSS (from wait4), the ratio of compile time to the JSON read (best against
best, and median against median), and peak RSS divided by the source size.

    cargo build --release --features bench-tools --bin tempo --example compile-inputs --example read-ir-json \
        --example pest-floor
    T=${CARGO_TARGET_DIR:-target}/release
    python3 benches/tools/whole_process.py --bin $T --runs 5 --dir /tmp/tempo-sizes \
        --tempo after=$T/tempo [--tempo before=/path/to/old/tempo]

Inputs are written by `compile-inputs` into --dir when missing (12,500 / 37,500 / 125,000
actions: about 3, 9 and 30 MB).
"""
import argparse
import os
import statistics
import subprocess

from process import measure

SIZES = {"3": 12_500, "9": 37_500, "30": 125_000}


def run(argv):
    """Wall seconds and peak RSS (KiB) of one process, its output discarded."""
    wall, usage = measure(argv)
    return wall, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="folder with the compile-inputs and read-ir-json examples (target/release)")
    ap.add_argument("--tempo", action="append", required=True, help="LABEL=PATH of a tempo binary (repeatable)")
    ap.add_argument("--dir", default="/tmp/tempo-sizes")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="3,9,30", help="comma-separated MB: 3, 9, 30")
    args = ap.parse_args()
    examples = os.path.join(args.bin, "examples")
    tempos = [t.split("=", 1) for t in args.tempo]
    os.makedirs(args.dir, exist_ok=True)
    print("size | program | best s | median s | peak RSS MiB | RSS / source | ratio to JSON (best, median)")
    for size in args.sizes.split(","):
        stem = os.path.join(args.dir, f"big{size}")
        if not (os.path.exists(stem + ".rules") and os.path.exists(stem + ".json")):
            subprocess.run([os.path.join(examples, "compile-inputs"), str(SIZES[size]), stem], check=True)
        source = os.path.getsize(stem + ".rules")
        programs = [(label, [path, "compile", stem + ".rules", "-o", "/dev/null"]) for label, path in tempos]
        programs.append(("serde_json", [os.path.join(examples, "read-ir-json"), stem + ".json"]))
        floor = os.path.join(examples, "pest-floor")
        if os.path.exists(floor):
            programs.append(("pest floor", [floor, stem + ".rules"]))
        results = {label: [] for label, _ in programs}
        for _ in range(args.runs):
            for label, argv in programs:
                results[label].append(run(argv))
        json_times = [w for w, _ in results["serde_json"]]
        for label, _ in programs:
            times = [w for w, _ in results[label]]
            rss = statistics.median(r for _, r in results[label])
            ratio = f"{min(times) / min(json_times):.2f}x, {statistics.median(times) / statistics.median(json_times):.2f}x"
            print(
                f"{source / 1e6:.1f} MB | {label} | {min(times):.3f} | {statistics.median(times):.3f} | "
                f"{rss / 1024:.0f} | {rss * 1024 / source:.1f}x | {ratio}"
            )


if __name__ == "__main__":
    main()
