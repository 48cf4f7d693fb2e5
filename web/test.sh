#!/usr/bin/env bash
# The playground's browser tests: headless Chromium (the system's; nothing is downloaded),
# driven by puppeteer-core, against web/dist/ served from a local static server. Builds dist
# first when it is missing. Without Chromium: prints SKIPPED and exits 0, unless
# TEMPO_REQUIRE_CHROMIUM=1 (CI), where that fails.
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
cd "$web"

chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$chromium" ]; then
  if [ "${TEMPO_REQUIRE_CHROMIUM:-0}" = 1 ]; then
    echo "web/test.sh: no Chromium (chromium or chromium-browser), and TEMPO_REQUIRE_CHROMIUM=1" >&2
    exit 1
  fi
  echo "SKIPPED: the playground's browser tests need Chromium (chromium or chromium-browser on PATH, or CHROMIUM=path)"
  exit 0
fi
if ! command -v node >/dev/null; then
  if [ "${TEMPO_REQUIRE_CHROMIUM:-0}" = 1 ]; then
    echo "web/test.sh: no Node.js" >&2
    exit 1
  fi
  echo "SKIPPED: the playground's browser tests need Node.js and npm"
  exit 0
fi
[ -f dist/index.html ] || bash build.sh
[ -d node_modules/puppeteer-core ] || npm ci --no-audit --no-fund
CHROMIUM="$chromium" node --test --test-concurrency=1 tests/
