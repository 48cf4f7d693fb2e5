#!/usr/bin/env bash
# Whole processes: `tempo run rulesets/frontiers.rules DUEL --format jsonl > /dev/null` against
# the hand-written duel (`cargo bench -p tempo-benches --bench baseline`'s binary with `--print`), alternately,
# RUNS times each; prints each one's best and median wall time, events/s and the ratio of
# medians. Usage: benches/baseline/compare.sh [ROUNDS] [RUNS]   (defaults: 10000 rounds, 9 runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-10000}
runs=${2:-9}
seed=7
cargo build --release --quiet --bin tempo
baseline=$(cargo bench -p tempo-benches --bench baseline --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*baseline[^"]*\)".*/\1/p' | tail -1)
tempo=target/release/tempo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$baseline" --scenario "$rounds" "$seed" > "$work/duel.ron"
"$tempo" run rulesets/frontiers.rules "$work/duel.ron" --format jsonl > "$work/tempo.jsonl"
"$baseline" --print "$rounds" "$seed" > "$work/baseline.jsonl"
cmp "$work/tempo.jsonl" "$work/baseline.jsonl"
events=$(wc -l < "$work/tempo.jsonl")
echo "the duel: $rounds rounds, $events events, the two outputs byte-identical"
now() { date +%s%N; }
: > "$work/t.tempo"; : > "$work/t.baseline"
for _ in $(seq "$runs"); do
  t0=$(now); "$tempo" run rulesets/frontiers.rules "$work/duel.ron" --format jsonl > /dev/null; t1=$(now)
  echo $((t1 - t0)) >> "$work/t.tempo"
  t0=$(now); "$baseline" --print "$rounds" "$seed" > /dev/null; t1=$(now)
  echo $((t1 - t0)) >> "$work/t.baseline"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -n "$1" | head -1; }
mt=$(median "$work/t.tempo"); mb=$(median "$work/t.baseline")
awk -v ev="$events" -v mt="$mt" -v mb="$mb" -v bt="$(best "$work/t.tempo")" -v bb="$(best "$work/t.baseline")" 'BEGIN {
  printf "tempo run     best %.3f s  median %.3f s  %.2f M events/s\n", bt/1e9, mt/1e9, ev/(mt/1e9)/1e6
  printf "hand-written  best %.3f s  median %.3f s  %.2f M events/s\n", bb/1e9, mb/1e9, ev/(mb/1e9)/1e6
  printf "ratio of medians (tempo / hand-written): %.2fx\n", mt/mb }'
