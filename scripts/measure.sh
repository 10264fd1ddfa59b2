#!/usr/bin/env bash
# Regenerate every figure of benches/README.md ("Measurements"): runs the benchmarks
# (release builds, criterion) and prints the tables the README quotes, as ratios from this
# one run. Takes about 25 minutes on the 2-core development machine (the compile-cost
# benchmark builds its two crates' dependencies once).
#
#   scripts/measure.sh            # all figures
#   scripts/measure.sh --tables   # only print the tables from the last run's results
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" != "--tables" ]]; then
    export FACETEER_MEASURE_LOAD="$(cut -d' ' -f1 /proc/loadavg)"
    echo "$FACETEER_MEASURE_LOAD" > target/criterion-load.txt
    cargo bench --bench items | grep "^item bytes" > target/criterion/native-bytes.txt
    cargo bench --bench reads --bench shards
    cargo bench --bench single
    FACETEER_BENCH_LATENCY_MS=10 cargo bench --bench shards
    cargo bench --bench batches 2>/dev/null | grep "^peak memory" > target/criterion/peak-memory.txt
    cargo bench --bench compile 2>/dev/null > target/criterion/compile.txt
    cargo bench --bench saves 2>/dev/null | grep -E "^save (bytes|capacity)" > target/criterion/save-figures.txt
fi
FACETEER_MEASURE_LOAD="${FACETEER_MEASURE_LOAD:-$(cat target/criterion-load.txt 2>/dev/null || true)}" \
    python3 scripts/measurements.py
