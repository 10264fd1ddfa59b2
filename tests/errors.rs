//! Errors say what happened: the server's code and message, the operation, facet and key,
//! the transport cause; and no `Debug` output holds credentials.

use crate::common;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::Client;
use common::*;
use faceteer::{error::FailureKind, Error, Table, Timeouts};

const ACCESS_KEY: &str = "AKIAFACETEERTESTKEY1";
const SECRET_KEY: &str = "faceteer/secret/never/printed";

fn client_with_credentials(endpoint: &str) -> Client {
    Client::from_conf(
        aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(ACCESS_KEY, SECRET_KEY, None, None, "test"))
            .endpoint_url(endpoint)
            .build(),
    )
}

fn assert_no_credentials(text: &str) {
    assert!(
        !text.contains(ACCESS_KEY),
        "the access key id is printed: {text}"
    );
    assert!(
        !text.contains(SECRET_KEY),
        "the secret key is printed: {text}"
    );
}

/// A write to a table that does not exist: the server's code and message, the operation,
/// the facet and the key are all in the error.
async fn server_errors_carry_code_message_facet_and_key() {
    let endpoint = faceteer_suite::endpoint().expect("a local endpoint");
    let table = Table::declared::<TestTable>(client_with_credentials(&endpoint), "no-such-table");
    let err = table.put(&note("book", 7)).await.unwrap_err();
    let text = err.to_string();
    let d = err.dynamo_error().expect("a DynamoDB error");
    println!("{text}");
    assert_eq!(d.kind(), FailureKind::Service);
    assert_eq!(d.code(), Some("ResourceNotFoundException"));
    let message = d.message().expect("the server's message");
    assert!(!message.is_empty());
    assert_eq!(d.operation(), "PutItem");
    assert_eq!(d.facet(), Some("NOTE"));
    assert_eq!(d.key(), Some(("#BOOK_book", Some("#NOTE_n007"))));
    assert_eq!(d.status(), Some(400));
    assert!(d.was_rejected() && !d.is_transient());
    for part in [
        "PutItem",
        "`NOTE`",
        "#BOOK_book",
        "#NOTE_n007",
        "no-such-table",
        "ResourceNotFoundException",
        message,
    ] {
        assert!(text.contains(part), "{part:?} missing from: {text}");
    }
    assert_no_credentials(&text);
    assert_no_credentials(&format!("{err:?}"));
    assert_no_credentials(&format!("{table:?}"));

    // A query names its partition and index.
    let err = table
        .query(Note::by_author_rank("ann").list())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("Query") && text.contains("#AUTHOR_ann") && text.contains("GSI1"),
        "{text}"
    );
}

/// Nothing listens: the error says the server could not be reached, and why.
#[tokio::test]
async fn transport_errors_show_their_cause() {
    // Bind a port, then free it: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let table = Table::declared::<TestTable>(
        client_with_credentials(&format!("http://127.0.0.1:{port}")),
        "t",
    );
    let err = table
        .get(&Note::key("book", "n001").unwrap())
        .await
        .unwrap_err();
    let text = err.to_string();
    let d = err.dynamo_error().expect("a DynamoDB error");
    println!("{text}");
    assert_eq!(d.kind(), FailureKind::Transport, "{text}");
    assert!(d.is_transient());
    assert!(text.contains("could not reach the server"), "{text}");
    assert!(text.to_lowercase().contains("refused"), "{text}");
    assert!(
        text.contains("GetItem") && text.contains("#NOTE_n001"),
        "{text}"
    );
    assert_no_credentials(&text);
    assert_no_credentials(&format!("{err:?}"));
}

/// A table applies default deadlines to a client without any, and keeps a client's own.
#[test]
fn tables_have_deadlines() {
    let table = Table::new(client_with_credentials("http://127.0.0.1:9"), "t");
    assert_eq!(table.timeouts(), Timeouts::default());
    let mine = std::time::Duration::from_secs(42);
    let config = client_with_credentials("http://127.0.0.1:9")
        .config()
        .to_builder()
        .timeout_config(
            aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
                .operation_timeout(mine)
                .build(),
        )
        .build();
    let table = Table::new(Client::from_conf(config), "t");
    assert_eq!(table.timeouts().operation, mine);
    assert_eq!(table.timeouts().attempt, Timeouts::default().attempt);
    let debug = format!("{table:?}");
    assert!(debug.contains("timeouts"), "{debug}");
    assert_no_credentials(&debug);
}

/// Errors that are not requests keep their own kinds.
#[test]
fn record_errors_name_the_key() {
    let err = Error::Record {
        pk: "#BOOK_b".into(),
        sk: "#NOTE_n1".into(),
        source: std::sync::Arc::new(faceteer::error::ItemError::Validation {
            facet: "NOTE",
            message: "bad body".into(),
        }),
    };
    let text = err.to_string();
    assert!(
        text.contains("#BOOK_b") && text.contains("#NOTE_n1"),
        "{text}"
    );
    assert!(err.dynamo_error().is_none() && !err.is_timeout());
}

faceteer_suite::engines!(server_errors_carry_code_message_facet_and_key);
