#!/usr/bin/env bash
# Runs tempo's cargo-fuzz targets, one after another, each for a fixed time, and prints one
# summary line per target.
#
#   fuzz/run.sh SECONDS_PER_TARGET [TARGETS...]     (default: every target)
#
# Needs rustup with the nightly toolchain (installed here if missing) and a C++ compiler for
# libFuzzer; installs cargo-fuzz from crates.io if it is missing. Targets are built with debug
# assertions (`-a`: integer overflow panics) and AddressSanitizer (SANITIZER=none is about twice
# as fast; both are rebuilt when the setting changes).
#
# Inputs: the checked-in seeds (fuzz/seeds/rules for the rules targets, fuzz/seeds/<target> for
# the others, never written to) and the working corpus fuzz/corpus/<target> (kept between runs,
# not in git). Crashes land in fuzz/artifacts/<target>/, logs in fuzz/logs/<target>.log.
# A target stops at its first crash; the script records it and goes on with the next target.
# Environment: SANITIZER (address | none), MAX_LEN, TIMEOUT (seconds per input), RSS_LIMIT_MB.
# Exit code: 0 if no target crashed, 1 if one did, 2 if something could not be built.
set -u

usage() {
    echo "usage: $0 SECONDS_PER_TARGET [TARGETS...]" >&2
    echo "targets: parse compile run fmt lsp ir shard test_file sweep search" >&2
    exit 2
}

[ $# -ge 1 ] || usage
case "$1" in '' | *[!0-9]*) usage ;; esac
seconds=$1
shift
all=(parse compile run fmt lsp ir shard test_file sweep search)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
cd "$fuzz_dir/.." || exit 2

sanitizer=${SANITIZER:-address}
rss_limit_mb=${RSS_LIMIT_MB:-2048}
timeout_s=${TIMEOUT:-10}
# MAX_LEN caps an input's length (libFuzzer's -max_len; unset: libFuzzer's choice from the seeds).
# Shorter inputs run many times faster; the seeds are cut to it.
max_len=()
[ -n "${MAX_LEN:-}" ] && max_len=(-max_len="$MAX_LEN")

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal || exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked || exit 2
fi

mkdir -p "$fuzz_dir/logs"
crashed=0
summary=()
for t in "${targets[@]}"; do
    case "$t" in
        parse | compile | run | fmt) seeds="$fuzz_dir/seeds/rules"; dict=(-dict="$fuzz_dir/rules.dict") ;;
        lsp) seeds="$fuzz_dir/seeds/lsp"; dict=(-dict="$fuzz_dir/rules.dict") ;;
        ir) seeds="$fuzz_dir/seeds/ir"; dict=(-dict="$fuzz_dir/ir.dict") ;;
        shard | test_file | sweep | search) seeds="$fuzz_dir/seeds/$t"; dict=() ;;
        *) echo "unknown target: $t" >&2; usage ;;
    esac
    corpus="$fuzz_dir/corpus/$t"
    artifacts="$fuzz_dir/artifacts/$t"
    log="$fuzz_dir/logs/$t.log"
    mkdir -p "$corpus" "$artifacts"
    before=$(find "$artifacts" -type f | wc -l)
    echo "== $t: ${seconds}s (log: ${log#"$PWD"/})" >&2
    if ! cargo +nightly fuzz build -a -s "$sanitizer" "$t" >"$log" 2>&1; then
        echo "   build failed; see $log" >&2
        summary+=("$(printf '%-8s build failed' "$t")")
        crashed=2
        continue
    fi
    cargo +nightly fuzz run -a -s "$sanitizer" "$t" "$corpus" "$seeds" -- \
        -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_limit_mb" \
        -print_final_stats=1 "${max_len[@]}" "${dict[@]}" >>"$log" 2>&1
    status=$?
    after=$(find "$artifacts" -type f | wc -l)
    new=$((after - before))
    # The last status line: "#N  DONE|pulse|NEW ... cov: C ft: F corp: ... exec/s: E ...".
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
    [ -n "$execs" ] || execs=$(echo "$last" | grep -oE '^#[0-9]+' | tr -d '#')
    rate=$(grep -oE 'stat::average_exec_per_sec: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
    [ -n "$rate" ] || rate=$(echo "$last" | grep -oE 'exec/s: [0-9]+' | grep -oE '[0-9]+')
    cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
    ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
    corp=$(find "$corpus" -type f | wc -l)
    what=""
    if [ "$status" -ne 0 ] || [ "$new" -gt 0 ]; then
        crashed=1
        what=$(grep -m1 -oE 'ERROR: libFuzzer: [a-z -]+|ERROR: AddressSanitizer: [a-z-]+|panicked at [^:]+:[0-9]+' "$log")
        unit=$(grep -m1 -oE 'Test unit written to [^ ]+' "$log" | sed 's/Test unit written to //')
        [ -n "$unit" ] && what="$what -> ${unit#"$PWD"/}"
    fi
    line=$(printf '%-8s execs=%-9s exec/s=%-6s cov=%-6s ft=%-6s corpus=%-6s crashes=%s %s' \
        "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$new" "$what")
    summary+=("$line")
    echo "   $line" >&2
done

echo
echo "summary (${seconds}s per target, sanitizer=$sanitizer):"
printf '%s\n' "${summary[@]}"
exit "$crashed"
