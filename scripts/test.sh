#!/usr/bin/env bash
# Run the whole faceteer-rs test suite: unit tests, conformance vectors, integration tests
# against a real DynamoDB-API server (moto, installed into target/ddb-venv and started by the
# tests themselves on a free 127.0.0.1 port), trybuild compile-fail tests and doc tests.
#
# FACETEER_DYNAMODB_ENDPOINT=http://host:port runs the integration tests against another
# server (dynalite, DynamoDB Local); FACETEER_REAL_AWS=1 against real AWS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${FACETEER_DYNAMODB_ENDPOINT:-}" ] && [ -z "${FACETEER_REAL_AWS:-}" ]; then
  bash scripts/ensure-moto.sh
fi
cargo test --workspace --locked "$@"
