//! Setup from the environment: a client as an application configures it, or pointed at a
//! local server by `FACETEER_DYNAMODB_ENDPOINT`.

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};
use aws_sdk_dynamodb::Client;
use faceteer_core::table::TableSchema;

use crate::error::{Error, Result};
use crate::table::Table;

/// The variable that points faceteer at a local DynamoDB-API server (the embedded engine,
/// DynamoDB Local, moto, LocalStack): `http://127.0.0.1:8000`.
pub const ENDPOINT_VARIABLE: &str = "FACETEER_DYNAMODB_ENDPOINT";

/// The region a local server is addressed in when the environment names none.
const LOCAL_REGION: &str = "us-east-1";

/// An SDK client configured from the environment.
///
/// * With `FACETEER_DYNAMODB_ENDPOINT` set, the client talks to that server. The region is
///   `AWS_REGION` (or `AWS_DEFAULT_REGION`, else `us-east-1`), and the credentials are
///   `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` when both are set, else dummy ones. No
///   credential chain runs, so nothing probes the EC2 metadata service (IMDS).
/// * Without it, the standard AWS configuration: environment variables, shared config and
///   credentials files, SSO, web identity, container and instance credentials
///   (`aws_config::load_defaults`).
///
/// An endpoint that is not an `http://` or `https://` URL is [`Error::Setup`]. A server that
/// cannot be reached is reported by the first request; tables opened with
/// [`Table::from_env`] (and the embedded engine's) name the endpoint in that error.
pub async fn connect() -> Result<Client> {
    Ok(connected().await?.0)
}

/// The client of [`connect`] and the endpoint it was pointed at, if any.
pub(crate) async fn connected() -> Result<(Client, Option<String>)> {
    match std::env::var(ENDPOINT_VARIABLE) {
        Ok(endpoint) if !endpoint.trim().is_empty() => {
            let endpoint = endpoint.trim().to_owned();
            Ok((local_client(&endpoint)?, Some(endpoint)))
        }
        _ => {
            let config = aws_config::load_defaults(BehaviorVersion::latest()).await;
            Ok((Client::new(&config), None))
        }
    }
}

/// A client for the local server at `endpoint`, with the environment's region and keys (or
/// dummy ones).
pub fn local_client(endpoint: &str) -> Result<Client> {
    check_endpoint(endpoint)?;
    Ok(client_at(endpoint))
}

/// A client for the local server at `endpoint` (a URL), with the environment's region and
/// keys, or `us-east-1` and dummy keys.
fn client_at(endpoint: &str) -> Client {
    let (region, credentials) = local_settings();
    client_with(endpoint, region, credentials)
}

/// A local server's region and keys: the environment's, or `us-east-1` and dummy keys.
pub(crate) fn local_settings() -> (Region, Credentials) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| LOCAL_REGION.to_owned());
    let credentials = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
        (Some(id), Some(secret)) => {
            Credentials::new(id, secret, var("AWS_SESSION_TOKEN"), None, "environment")
        }
        _ => dummy_credentials(),
    };
    (Region::new(region), credentials)
}

/// Check that `endpoint` is a server URL.
pub(crate) fn check_endpoint(endpoint: &str) -> Result<()> {
    let host = endpoint
        .strip_prefix("http://")
        .or_else(|| endpoint.strip_prefix("https://"));
    if host.is_none_or(str::is_empty) {
        return Err(Error::Setup(format!(
            "{ENDPOINT_VARIABLE}={endpoint:?} is not a server URL; write it like \
             http://127.0.0.1:8000"
        )));
    }
    Ok(())
}

/// A client for the embedded engine at `endpoint`: `us-east-1` and dummy keys, whatever
/// the environment says (the engine checks no signature).
#[cfg(feature = "embedded")]
pub(crate) fn engine_client(endpoint: &str) -> Client {
    client_with(endpoint, Region::new(LOCAL_REGION), dummy_credentials())
}

fn dummy_credentials() -> Credentials {
    Credentials::new("local", "local", None, None, "faceteer-local")
}

/// A client for `endpoint` in `region` with `credentials`, the SDK's standard retries.
fn client_with(endpoint: &str, region: Region, credentials: Credentials) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(region)
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

impl Table {
    /// Open table `name`, declared by `S` (see [`Table::declared`]), with a client configured
    /// from the environment ([`connect`]): what an application writes.
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
    /// faceteer::table! { pub struct AppTable { Team } }
    /// # async fn demo() -> faceteer::Result<()> {
    /// // FACETEER_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 for a local server.
    /// let table = Table::from_env::<AppTable>("app").await?;
    /// # Ok(()) }
    /// ```
    pub async fn from_env<S: TableSchema>(name: impl Into<String>) -> Result<Table> {
        let (client, endpoint) = connected().await?;
        Ok(Table::declared::<S>(client, name).at_endpoint(endpoint.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_that_is_not_a_url_is_a_setup_error() {
        for bad in [
            "localhost:8000",
            "127.0.0.1",
            "http://",
            "https://",
            "ftp://host",
        ] {
            match local_client(bad) {
                Err(Error::Setup(message)) => assert!(message.contains(bad), "{message}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert!(local_client("http://127.0.0.1:8000").is_ok());
        assert!(local_client("http://a").is_ok());
    }

    /// The one test of this crate that sets the variable (no other reads it).
    #[tokio::test]
    async fn an_unreachable_endpoint_is_named_without_probing_imds() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            listener.local_addr().expect("its address").port()
        };
        let endpoint = format!("http://127.0.0.1:{port}");
        std::env::set_var(ENDPOINT_VARIABLE, &endpoint);
        let connected = connected().await;
        std::env::remove_var(ENDPOINT_VARIABLE);
        let (client, at) = connected.expect("a client for a URL");
        assert_eq!(at.as_deref(), Some(endpoint.as_str()));
        let table = Table::new(client, "nowhere").at_endpoint(at.as_deref());
        let error = table
            .delete_table()
            .await
            .expect_err("nothing listens there");
        let text = error.to_string();
        assert!(
            text.contains(&format!("could not reach the server at {endpoint}")),
            "{text}"
        );
        assert!(!text.contains("IMDS"), "{text}");
    }
}
