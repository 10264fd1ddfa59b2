//! Hooks: a multi-tenant table kept apart by the built-in `Tenant` hook, a facet hook that
//! normalises and refuses, and a request hook that sends a request id with every request.
//!
//! `cargo run --example tenants` (the embedded engine; `FACETEER_DYNAMODB_ENDPOINT` for
//! another server).

use faceteer::hook::{Call, FacetHook, Hooks, RequestHook, Tenant, TenantError, Veto, Write};
use faceteer::{Error, Facet, Table};
use serde::{Deserialize, Serialize};

/// A project of a tenant.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "PROJECT")]
#[serde(rename_all = "camelCase")]
pub struct Project {
    #[pk(prefix = "#TENANT")]
    pub tenant: String,
    #[sk(prefix = "#PROJECT")]
    pub slug: String,
    pub title: String,
}

faceteer::table! {
    /// A table every tenant shares.
    pub struct Workspace { Project }
}

/// Slugs are lower case; titles are not empty.
struct Tidy;

/// Why [`Tidy`] refuses.
#[derive(Debug, thiserror::Error)]
#[error("a project has a title")]
pub struct NoTitle;

impl FacetHook<Project> for Tidy {
    fn name(&self) -> &'static str {
        "tidy"
    }

    async fn before_write(&self, write: &mut Write<'_, Project>) -> Result<(), Veto> {
        if let Some(project) = write.record() {
            if project.title.trim().is_empty() {
                return Err(Veto::new(self.name(), NoTitle));
            }
            project.slug = project.slug.to_lowercase();
        }
        Ok(())
    }
}

/// The id of the request being served, sent with every DynamoDB request it makes.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

struct SendRequestId;

impl RequestHook for SendRequestId {
    fn name(&self) -> &'static str {
        "request-id"
    }

    async fn before_call(&self, call: &mut Call<'_>) -> Result<(), Veto> {
        if let Some(RequestId(id)) = call.context::<RequestId>().cloned() {
            call.header("x-request-id", &id)?;
            call.tag("request_id", id);
        }
        Ok(())
    }
}

/// The hooks of the workspace table: the tenant's first (it stamps the tenant the keys are
/// built from), then the facet's, around requests the request id.
pub fn hooked(table: Table) -> faceteer::Result<Table> {
    table.with_hooks(
        Hooks::new()
            .table::<Workspace, _>(Tenant::new("tenant"))
            .facet::<Project, _>(Tidy)
            .requests(SendRequestId),
    )
}

/// Two tenants share the table; neither reaches the other's projects.
pub async fn run(table: &Table) -> faceteer::Result<()> {
    let table = hooked(table.clone())?;
    let acme = table
        .for_tenant("acme")
        .with_context(RequestId("req-1".into()));
    let globex = table.for_tenant("globex");

    // The tenant is stamped (and the keys built from it), the slug tidied.
    let draft = Project {
        tenant: String::new(),
        slug: "Apollo".into(),
        title: "Moon".into(),
    };
    acme.put(&draft).await?;
    let key = Project::key("acme", "apollo")?;
    let stored = acme.get(&key).await?.expect("stored");
    assert_eq!(
        (stored.tenant.as_str(), stored.slug.as_str()),
        ("acme", "apollo")
    );

    // Another tenant's record is refused before anything is sent.
    let theirs = Project {
        tenant: "acme".into(),
        ..draft.clone()
    };
    let refused = globex.put(&theirs).await.expect_err("another tenant's");
    assert!(matches!(
        refused
            .refusal()
            .and_then(|v| v.downcast_ref::<TenantError>()),
        Some(TenantError::CrossTenant { .. })
    ));
    // So is a read of another tenant's record.
    assert!(globex.get(&key).await.is_err());
    // And a call that names no tenant.
    assert!(table.get(&key).await.is_err());

    // The facet's hook refuses what it must, with its own error.
    let untitled = Project {
        title: " ".into(),
        ..draft
    };
    match acme.put(&untitled).await {
        Err(Error::Refused { veto, .. }) => assert!(veto.downcast_ref::<NoTitle>().is_some()),
        other => panic!("expected a refusal, got {other:?}"),
    }
    println!("acme's project: {stored:?}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-tenants-{}", std::process::id());
        let table = Table::from_env::<Workspace>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<Workspace>().await?
    };
    run(&table).await?;
    Ok(())
}
