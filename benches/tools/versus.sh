#!/usr/bin/env bash
# Is `Search` ever significantly worse than Greedy? For every shipped example (examples/*.ron,
# played under the ruleset its name starts with) and each of its sides: that side under Greedy
# (A) and under POLICY (B), every other participant as the scenario has it, on the same seeds
# (`tempo compare RULES SCENARIO --control SIDE=Greedy --control-b SIDE=POLICY`); the share of
# encounters the side is left standing under each, B - A, and the exact McNemar p. A row with B
# below A at p < 0.05 is marked WORSE; the last line counts them. A side never left standing
# alone in either (every encounter reaches the round limit) reads `never`.
#
#   benches/tools/versus.sh [EXAMPLE...]            # every example when none is named
#   RUNS=500 SEED=1 POLICY='Search(playouts: 50)' TEMPO=target/release/tempo benches/tools/versus.sh
#
# Needs a built `tempo` (cargo build --release), python3 (to read the JSON) and standard tools.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tempo=${TEMPO:-$root/target/release/tempo}
runs=${RUNS:-300}
seed=${SEED:-1}
policy=${POLICY:-Search}
cd "$root"
if [ $# -eq 0 ]; then
  set -- $(ls examples/*.ron | grep -v '\.test\.ron$')
fi
printf '| example | side | Greedy | %s | B - A | McNemar p | |\n|---|---|---|---|---|---|---|\n' "$policy"
worse=0
rows=0
for e in "$@"; do
  b=$(basename "$e" .ron)
  rules=""
  for r in rulesets/*.rules; do
    rb=$(basename "$r" .rules)
    case $b in "$rb"-*) [ ${#rb} -gt ${#rules} ] && rules=$rb ;; esac
  done
  [ -n "$rules" ] || { echo "no ruleset for $e" >&2; continue; }
  for side in $(grep -o 'side: "[^"]*"' "$e" | sed 's/side: "//; s/"$//' | sort -u); do
    row=$("$tempo" compare "rulesets/$rules.rules" "$e" --control "$side=Greedy" --control-b "$side=$policy" \
      --runs "$runs" --seed "$seed" --quiet --format json | python3 -c '
import json, sys
side = sys.argv[1]
d = json.load(sys.stdin)
row = next((x for x in d["differences"] if x["metric"] == "outcome/" + side + " left standing"), None)
if row is None:
    print("never never - - 0")
else:
    a, b = row["a"], row["b"]
    diff, p = row["difference"]["value"], row.get("p_value")
    p = 1.0 if p is None else p
    print(f"{100*a:.1f}% {100*b:.1f}% {100*diff:+.1f} {p:.4f} {int(diff < 0 and p < 0.05)}")
' "$side")
    read -r ga sb diff p bad <<<"$row"
    mark=""
    if [ "$bad" = 1 ]; then mark="WORSE"; worse=$((worse + 1)); fi
    rows=$((rows + 1))
    printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$b" "$side" "$ga" "$sb" "$diff" "$p" "$mark"
  done
done
echo
echo "$rows sides, $runs runs each (seed $seed): $policy significantly below Greedy on $worse."
