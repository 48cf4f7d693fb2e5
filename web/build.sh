#!/usr/bin/env bash
# Builds the playground into web/dist/ (a static site: open it from any static host). One
# command: it installs what is missing (the wasm32 target, wasm-bindgen-cli at the version
# web/crate pins, the npm packages of package-lock.json), then builds.
#   bash web/build.sh
# CARGO_TARGET_DIR, when set, is used for the wasm build (default: web/crate/target).
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
cd "$web"

# The version the crate pins (`wasm-bindgen = "=X"`): the CLI must be exactly that one.
version="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' crate/Cargo.toml)"
[ -n "$version" ] || { echo "build.sh: no pinned wasm-bindgen version in web/crate/Cargo.toml" >&2; exit 1; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$version" ]; then
  echo "build.sh: installing wasm-bindgen-cli $version (a few minutes, once)" >&2
  cargo install wasm-bindgen-cli --version "$version" --locked
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

target="${CARGO_TARGET_DIR:-$web/crate/target}"
(cd crate && CARGO_TARGET_DIR="$target" cargo build --release --target wasm32-unknown-unknown)
rm -rf build/wasm
wasm-bindgen --target web --no-typescript --out-dir build/wasm \
  "$target/wasm32-unknown-unknown/release/tempo_web.wasm"
node tools/embed.mjs

rm -rf dist
mkdir -p dist
npx esbuild src/main.js --bundle --format=iife --minify --sourcemap --outfile=dist/main.js --log-level=warning
# The glue's default wasm URL (import.meta.url) is never used: worker.js names the file.
npx esbuild src/worker.js --bundle --format=iife --minify --sourcemap --outfile=dist/worker.js \
  --log-level=error
cp build/wasm/tempo_web_bg.wasm dist/
cp src/index.html src/style.css dist/
echo "build.sh: built $(du -sh dist | cut -f1) into web/dist/ (serve it: python3 -m http.server -d web/dist)"
