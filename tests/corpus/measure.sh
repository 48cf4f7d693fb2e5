#!/usr/bin/env bash
# Measures how far `Search` plays from the optimum on the corpus (tests/corpus/README.md):
# for each case, the exact optimum for A (`tempo solve --for A`), Greedy's exact value
# (`tempo solve --control A=Greedy`) and Search's estimate (`tempo sim --control A=POLICY`),
# as the share of encounters A's side is left standing, in points; then the mean and worst gap
# of Search to the optimum and the cases where Search is below Greedy by more than twice the
# simulation's standard error.
#
#   tests/corpus/measure.sh [CASE...]             # every case when none is named
#   RUNS=5000 SEED=1 POLICY='Search(playouts: 50)' TEMPO=target/release/tempo tests/corpus/measure.sh
#
# SOLVED=FILE keeps the exact values (`CASE OPTIMUM GREEDY` a line) between measures: a case
# found there is not solved again, one that is not is solved and added.
# Needs only a built `tempo` (cargo build --release) and standard shell tools.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tempo=${TEMPO:-$here/../../target/release/tempo}
runs=${RUNS:-5000}
seed=${SEED:-1}
policy=${POLICY:-Search}
solved=${SOLVED:-}
max_states=${MAX_STATES:-30000000}
cd "$here/cases"
if [ $# -eq 0 ]; then
  set -- $(ls *.rules | sed 's/\.rules$//')
fi

# The value (0..1) of "heroes left standing" (the first met) in tempo's JSON, solve's or sim's,
# with its blanks taken out.
heroes() {
  tr -d ' \n' | sed -n 's/"outcome":"heroesleftstanding"/@/; s/^[^@]*@[^}]*"value":\([0-9.e-]*\).*/\1/p'
}
# The maximised value of `solve --for`.
maximised() {
  tr -d ' \n' | sed -n 's/.*"maximised":{"outcome":"heroesleftstanding","probability":{[^}]*"value":\([0-9.e-]*\).*/\1/p'
}

printf '| case | optimum | Greedy | %s | gap | Search − Greedy |\n|---|---|---|---|---|---|\n' "$policy"
rows=""
for c in "$@"; do
  known=""
  if [ -n "$solved" ] && [ -f "$solved" ]; then
    known=$(awk -v c="$c" '$1 == c { print $2, $3; exit }' "$solved")
  fi
  if [ -n "$known" ]; then
    read -r opt greedy <<<"$known"
  else
    # A case too large to solve within the state budget is listed as such and left out.
    opt=$("$tempo" solve "$c.rules" "$c.ron" --for A --max-states "$max_states" --format json 2>/dev/null | maximised) || opt=""
    greedy=$("$tempo" solve "$c.rules" "$c.ron" --control A=Greedy --max-states "$max_states" --format json 2>/dev/null | heroes) || greedy=""
    if [ -z "$opt" ] || [ -z "$greedy" ]; then
      printf '| `%s` | not solved within %s positions | | | | |\n' "$c" "$max_states"
      continue
    fi
    if [ -n "$solved" ]; then
      echo "$c $opt $greedy" >>"$solved"
    fi
  fi
  search=$("$tempo" sim "$c.rules" "$c.ron" --control "A=$policy" --runs "$runs" --seed "$seed" --format json | heroes)
  row=$(awk -v c="$c" -v o="$opt" -v g="$greedy" -v s="$search" -v n="$runs" 'BEGIN {
    se = sqrt(s * (1 - s) / n); if (se < 0.5 / n) se = 0.5 / n
    below = (s < g - 2 * se) ? " (below)" : ""
    printf "| `%s` | %.1f%% | %.1f%% | %.1f%% | %.1f | %+.1f%s |\n", c, 100*o, 100*g, 100*s, 100*(o-s), 100*(s-g), below
  }')
  printf '%s\n' "$row"
  rows="$rows$c $opt $greedy $search"$'\n'
done
printf '%s' "$rows" | awk -v n="$runs" '
  { gap = $2 - $4; sum += gap; k++; if (k == 1 || gap > worst) { worst = gap; at = $1 }
    se = sqrt($4 * (1 - $4) / n); if ($4 < $3 - 2 * se) { below++; which = which " " $1 } }
  END { printf "\n%d cases, %d runs each: mean gap %.2f points, worst %.1f (%s); below Greedy: %d%s\n",
        k, n, 100 * sum / k, 100 * worst, at, below, which }'
