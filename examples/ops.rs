//! The operations runner on the tasks example's table: the whole of an application's
//! `src/bin/table.rs` is the `main` below.
//!
//! ```text
//! cargo run --example ops -- --help
//! cargo run --example ops -- --table tasks export --format markdown
//! cargo run --example ops -- --lock docs/design/design.lock.json lock
//! cargo run --example ops -- --endpoint http://127.0.0.1:8000 --table tasks create
//! cargo run --example ops -- --endpoint http://127.0.0.1:8000 --table tasks verify
//! ```

#[path = "tasks.rs"]
#[allow(dead_code)]
mod tasks;

fn main() -> std::process::ExitCode {
    faceteer::ops::main::<tasks::TasksTable>()
}
