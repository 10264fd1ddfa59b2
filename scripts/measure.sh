#!/usr/bin/env bash
# Regenerate every figure of the README's "Measurements" section: runs the benchmarks
# (release builds, criterion) and prints the tables the README quotes, as ratios from this
# one run. Takes about 10 minutes on the 2-core development machine.
#
#   scripts/measure.sh            # all figures
#   scripts/measure.sh --tables   # only print the tables from the last run's results
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" != "--tables" ]]; then
    cargo bench --bench items --bench reads
    cargo bench --bench batches 2>/dev/null | grep "^peak memory" > target/criterion/peak-memory.txt
fi
python3 scripts/measurements.py
