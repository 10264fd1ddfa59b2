#!/usr/bin/env bash
# Run the whole faceteer-rs test suite: unit tests, conformance vectors, trybuild
# compile-fail tests, doc tests, and every integration test on two DynamoDB-API engines:
# `name::embedded` on the in-process engine (dynoxide, faceteer's `embedded` feature) and
# `name::moto` on moto (installed here into target/ddb-venv, started by the tests on a free
# 127.0.0.1 port).
#
# FACETEER_DYNAMODB_ENDPOINT=http://host:port sends the second arm to another server
# instead of moto (the suite is checked on the embedded engine and moto only);
# FACETEER_REAL_AWS=1 to real AWS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${FACETEER_DYNAMODB_ENDPOINT:-}" ] && [ -z "${FACETEER_REAL_AWS:-}" ]; then
  bash scripts/ensure-moto.sh
fi
# The linters the design exports are checked with (parliament, cfn-lint), installed once.
bash scripts/ensure-lint.sh >/dev/null
# Four tests at a time on two cores: many integration tests wait (on moto, on deadlines,
# on a proxy holding requests back) more than they compute.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
# A clean CI build gains nothing from incremental state but its disk and time, and full
# debug info costs minutes of compiling and linking the AWS SDK: line tables keep the file
# and line of every frame of a failing test's backtrace.
if [ -n "${CI:-}" ]; then
  export CARGO_INCREMENTAL=0
  export CARGO_PROFILE_DEV_DEBUG=line-tables-only
  export CARGO_PROFILE_TEST_DEBUG=line-tables-only
fi
cargo test --workspace --locked "$@"
