#!/usr/bin/env bash
# What the `encryption` feature adds: a small application on faceteer (one facet, a table
# from the environment, a get) built cold in fresh target directories without and with the
# feature, debug and release, with the wall time of each build and the size of each binary
# (as built, and stripped). Takes about 12 minutes on a 2-core machine.
#
#   bash scripts/feature-cost.sh            # results on stdout
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/target/feature-cost"
rm -rf "$work"
mkdir -p "$work/app/src"
cat > "$work/app/Cargo.toml" <<TOML
[package]
name = "costapp"
version = "0.1.0"
edition = "2021"

[features]
encryption = ["faceteer/encryption"]

[dependencies]
faceteer = { path = "$root/facet-runtime" }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }

[profile.dev]
debug = "line-tables-only"
[profile.dev.package."*"]
debug = false

[workspace]
TOML
cat > "$work/app/src/main.rs" <<'RUST'
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Debug, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
struct Task {
    #[pk(prefix = "#PROJECT")]
    project: String,
    #[sk(prefix = "#TASK")]
    id: String,
    title: String,
}

faceteer::table! { struct Tasks { Task } }

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "encryption")]
    {
        use faceteer::encryption::Encryption;
        let keyring = Encryption::raw_aes_keyring("app", "k1", &[1u8; 32]).await?;
        Encryption::new("app", keyring).install()?;
    }
    let table = faceteer::Table::from_env::<Tasks>("tasks").await?;
    let _ = table.get(&Task::key("p", "1")?).await;
    Ok(())
}
RUST
cp "$root/Cargo.lock" "$work/app/Cargo.lock"
build() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  (cd "$work/app" && CARGO_TARGET_DIR="$work/$name" cargo build --quiet "$@")
  echo "$name $*: $(($(date +%s) - start)) s"
}
build plain
build encryption --features encryption
build plain --release
build encryption --release --features encryption
for t in plain encryption; do
  for p in debug release; do
    bin="$work/$t/$p/costapp"
    cp "$bin" "$work/stripped"
    strip "$work/stripped"
    echo "$t $p binary: $(stat -c %s "$bin") bytes, stripped $(stat -c %s "$work/stripped") bytes"
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(git -C "$root" rev-parse --short HEAD)"
