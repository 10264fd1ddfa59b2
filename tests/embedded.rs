//! `faceteer::embedded`, as users' own tests use it: a ready table per test, isolated,
//! independent of the caller's runtime, stopped with its last handle.

use crate::common;

use std::time::{Duration, Instant};

use common::{note, Note, TestTable};
use faceteer::embedded::{self, Engine};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_ready_table_per_call_and_nothing_shared() {
    let first = embedded::table::<TestTable>().await.unwrap();
    let second = embedded::table::<TestTable>().await.unwrap();
    assert_eq!(first.name(), embedded::TABLE_NAME);
    assert_eq!(second.name(), embedded::TABLE_NAME);

    first.put(&note("book", 1)).await.unwrap();
    let key = Note::key("book", "n001").unwrap();
    assert_eq!(first.get(&key).await.unwrap(), Some(note("book", 1)));
    // Same table name, another engine: the second table is empty.
    assert_eq!(second.get(&key).await.unwrap(), None);
}

#[tokio::test]
async fn one_engine_hosts_several_tables() {
    let engine = Engine::start().unwrap();
    assert!(engine.endpoint().starts_with("http://127.0.0.1:"));
    let a = engine.table::<TestTable>("alpha").await.unwrap();
    let b = engine.table::<TestTable>("beta").await.unwrap();
    a.put(&note("book", 1)).await.unwrap();
    let key = Note::key("book", "n001").unwrap();
    assert_eq!(a.get(&key).await.unwrap(), Some(note("book", 1)));
    assert_eq!(b.get(&key).await.unwrap(), None);

    // Creating a table twice is DynamoDB's ResourceInUseException, reported as such.
    let again = engine.table::<TestTable>("alpha").await.unwrap_err();
    assert!(again.to_string().contains("CreateTable"), "{again}");

    // The engine's own client reaches the same tables.
    let names = engine
        .client()
        .list_tables()
        .send()
        .await
        .unwrap()
        .table_names
        .unwrap_or_default();
    assert_eq!(names, ["alpha", "beta"]);
}

/// The engine runs on its own thread, so it outlives the runtime it was created in, and it
/// stops (its port refuses connections) once its last table and handle are dropped.
#[test]
fn the_engine_outlives_runtimes_and_stops_with_its_last_handle() {
    // No runtime needed to start it.
    let engine = Engine::start().unwrap();
    let address = engine.address();
    let table = runtime()
        .block_on(engine.table::<TestTable>("tasks"))
        .unwrap();
    drop(engine);

    runtime().block_on(async {
        table.put(&note("book", 1)).await.unwrap();
    });
    let copy = table.clone();
    drop(table);
    runtime().block_on(async {
        let key = Note::key("book", "n001").unwrap();
        assert_eq!(copy.get(&key).await.unwrap(), Some(note("book", 1)));
    });
    drop(copy);

    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match std::net::TcpStream::connect(address) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => break,
            _ if Instant::now() > deadline => {
                panic!("the engine at {address} still accepts connections 5 s after its last handle was dropped")
            }
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
