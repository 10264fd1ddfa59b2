#!/usr/bin/env bash
# faceteer-rs ÷ Faceteer for TypeScript (@faceteer/facet 6.0.0 on Node), client CPU per
# record, for put, get and query of the README's tasks against the same stub server.
# Run on demand (not in CI): it installs the npm packages of package-lock.json into
# target/faceteer-ts, prints their versions, and reads
# faceteer-rs's figures from the last `cargo bench --bench reads` (run it first).
#
#   scripts/faceteer-ts/measure.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v node >/dev/null || { echo "Node.js 20 or newer is needed (apt install nodejs npm)"; exit 1; }
work=target/faceteer-ts
mkdir -p "$work"
cp scripts/faceteer-ts/package.json scripts/faceteer-ts/package-lock.json \
    scripts/faceteer-ts/measure.mjs "$work/"
# The exact packages of the lockfile (the AWS SDK's speed moves between patch releases).
(cd "$work" && npm ci --silent --no-audit --no-fund)
version() { node -p "require('./$work/node_modules/$1/package.json').version"; }
echo "Node $(node --version), @faceteer/facet $(version @faceteer/facet)," \
    "@aws-sdk/client-dynamodb $(version @aws-sdk/client-dynamodb)," \
    "@aws-sdk/core $(version @aws-sdk/core), @smithy/core $(version @smithy/core)"
cargo build --release --example stub_server
target/release/examples/stub_server 10000 > "$work/endpoint" &
stub=$!
trap 'kill $stub' EXIT
for _ in $(seq 50); do [[ -s "$work/endpoint" ]] && break; sleep 0.2; done
node "$work/measure.mjs" "$(cat "$work/endpoint")" > "$work/faceteer-ts.json"
python3 - "$work/faceteer-ts.json" <<'PY'
import json, pathlib, sys
ts = json.loads(pathlib.Path(sys.argv[1]).read_text())
root = pathlib.Path("target/criterion/client CPU")
def rs(name):
    path = root / f"{name}_faceteer" / "new" / "estimates.json"
    if not path.exists():
        sys.exit("no faceteer-rs figures: run `cargo bench --bench reads` first")
    return json.loads(path.read_text())["mean"]["point_estimate"] / 1000 / 10_000
print("| client CPU per record | faceteer-rs | Faceteer-TS | ratio |")
print("|---|---|---|---|")
for label, name, key in [("put (batch of 10,000)", "put_many 10k", "put"),
                         ("get (batch of 10,000 keys)", "get_many 10k", "get"),
                         ("query (100-page walk)", "query 100 pages", "query")]:
    ours = rs(name)
    print(f"| {label} | {ours:.2f} µs | {ts[key]:.2f} µs | {ours / ts[key]:.3f}× |")
PY
