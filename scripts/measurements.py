"""Print the README's measurement tables from criterion's results (target/criterion).

Each figure is a ratio of two arms' mean times from the same run: faceteer's arm divided by
the other arm's. See scripts/measure.sh.
"""
import json
import re
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"


def mean(group: str, bench: str) -> float:
    path = ROOT / group / bench / "new" / "estimates.json"
    if not path.exists():
        sys.exit(f"no result for {group}/{bench}: run scripts/measure.sh first")
    return json.loads(path.read_text())["mean"]["point_estimate"]


def row(label: str, group: str, ours: str, others: list[str]) -> str:
    base = mean(group, ours)
    cells = [f"{base / mean(group, o):.2f}×" for o in others]
    return f"| {label} | " + " | ".join(cells) + " |"


import os
import subprocess

commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                        cwd=ROOT.parent.parent).stdout.strip()
load = os.environ.get("FACETEER_MEASURE_LOAD") or open("/proc/loadavg").read().split()[0]
print(f"From one run of `scripts/measure.sh` at commit `{commit}`, load average {load} "
      f"at its start, on this machine ({os.cpu_count()} cores).")
print()
print("| per record, the README's `Task` | faceteer ÷ hand-written | faceteer ÷ serde_dynamo |")
print("|---|---|---|")
print(row("build an item (2,048 distinct records; `benches/items.rs`)",
          "build item (per record)", "faceteer", ["hand-written", "serde_dynamo"]))
print(row("read an item back (from the SDK's attribute values)",
          "read item (per record)", "faceteer", ["hand-written", "serde_dynamo"]))
for label, name in [
    ("`put_many` of 10,000 records, client CPU (`benches/reads.rs`)", "put_many 10k"),
    ("`get_many` of 10,000 keys, client CPU", "get_many 10k"),
    ("walk of a 100-page query (10,000 records), client CPU", "query 100 pages"),
]:
    print(row(label, "client CPU", f"{name}_faceteer", [f"{name}_hand-written", f"{name}_serde_dynamo"]))
print()
group = "single item (per operation)"
if (ROOT / group).exists():
    print("| one request at a time, the README's `Task` (`benches/single.rs`) | faceteer ÷ hand-written | hand-written on the table's client ÷ hand-written |")
    print("|---|---|---|")
    for op in ("get", "put", "delete", "update"):
        hand = mean(group, f"{op}_hand-written")
        print(f"| `{op}` ({hand / 1e3:.0f} µs per hand-written call) | "
              f"{mean(group, f'{op}_faceteer') / hand:.2f}× | "
              f"{mean(group, f'{op}_hand-written, table' + chr(39) + 's client') / hand:.2f}× |")
print()
print("| reads, client CPU ÷ the parse floor (`serde_json` of the same answers into `IgnoredAny`) | faceteer | faceteer's decoding alone | `serde_json` typed (a derived mirror) | hand-written | faceteer's decoding ÷ `serde_json` typed |")
print("|---|---|---|---|---|---|")
for label, name in [("`get_many` of 10,000 keys", "get_many 10k"), ("100-page query", "query 100 pages")]:
    floor = mean("client CPU", f"{name}_parse floor")
    decoding = mean("client CPU", f"{name}_faceteer decoding")
    typed = mean("client CPU", f"{name}_serde_json typed")
    print(f"| {label} ({floor / 1e4 / 1e3:.2f} µs per record to parse) | "
          f"{mean('client CPU', f'{name}_faceteer') / floor:.1f}× | "
          f"{decoding / floor:.1f}× | {typed / floor:.1f}× | "
          f"{mean('client CPU', f'{name}_hand-written') / floor:.1f}× | "
          f"{decoding / typed:.2f}× |")
print()
print("| reads sent by the SDK, client CPU ÷ hand-written | decoded by faceteer (`ReadPath::SdkSent`) | decoded by the SDK (`ReadPath::Sdk`) | sent by faceteer ÷ sent by the SDK |")
print("|---|---|---|---|")
for label, name in [("`get_many` of 10,000 keys", "get_many 10k"), ("100-page query", "query 100 pages")]:
    hand = mean("client CPU", f"{name}_hand-written")
    sent = mean("client CPU", f"{name}_faceteer-sdk-sent")
    print(f"| {label} | {sent / hand:.2f}× | "
          f"{mean('client CPU', f'{name}_faceteer-sdk-path') / hand:.2f}× | "
          f"{mean('client CPU', f'{name}_faceteer') / sent:.2f}× |")
print()
group = "put item, two indexes (per record)"
if (ROOT / group).exists():
    print("| the README's `Task`, its two indexes native ÷ concatenated (`benches/items.rs`) | ratio |")
    print("|---|---|")
    print(row("build a put's item, client CPU", group, "native", ["concatenated"]))
    native_bytes = ROOT / "native-bytes.txt"
    if native_bytes.exists():
        print()
        print(native_bytes.read_text().strip())
    print()
memory = ROOT / "peak-memory.txt"
if memory.exists():
    print("Peak heap (`benches/batches.rs`):")
    print()
    for line in memory.read_text().splitlines():
        print(f"- {line}")

print()
print("| query, 20 records of a 16-shard partition (`benches/shards.rs`) | all 16 shards ÷ one shard |")
print("|---|---|")
for ms in (2, 10):
    group = f"query 20 records, {ms} ms per request"
    if (ROOT / group).exists():
        print(row(f"{ms} ms per request", group, "all 16 shards merged", ["one shard"]))
print()
compile_figures = ROOT / "compile.txt"
if compile_figures.exists():
    # `benches/compile.rs` prints its figures as they are quoted.
    print(compile_figures.read_text().strip())

figures = ROOT / "save-figures.txt"
if (ROOT / "save status").exists() or figures.exists():
    print()
    print("Saves of what changed (`benches/saves.rs`):")
    print()
if figures.exists():
    # `save bytes, status: put 586 B, save 564 B (0.96×), hand 534 B (0.91×)`: a table row.
    bytes_rows, others = [], []
    for line in figures.read_text().splitlines():
        found = re.fullmatch(r"save bytes, (\S+): put (.+?), save (.+?), hand (.+)", line)
        if found:
            bytes_rows.append(f"| `{found[1]}` | {found[2]} | {found[3]} | {found[4]} |")
        else:
            others.append(line)
    if bytes_rows:
        print("| one-field change of the README's `Task`, request bytes per write | put | save | hand-written |")
        print("|---|---|---|---|")
        print("\n".join(bytes_rows))
        print()
    for line in others:
        print(f"- {line}")
    print()
changes = [c for c in ("status", "expires_at", "date_due") if (ROOT / f"save {c}").exists()]
if changes:
    print("| one-field change of the README's `Task`, client CPU per write | save ÷ put | hand-written ÷ put |")
    print("|---|---|---|")
    for change in changes:
        group = f"save {change}"
        put = mean(group, "put")
        print(f"| `{change}` ({put / 1e3:.1f} µs per put) | {mean(group, 'save') / put:.2f}× | "
              f"{mean(group, 'hand') / put:.2f}× |")
