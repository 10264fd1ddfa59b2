//! [`Tenant`]: a built-in table hook that keeps each tenant's records to itself.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::facet::Veto;
use faceteer_core::schema::FacetSchema;
use faceteer_core::Facet;

use super::traits::{ReadKind, Reading, TableHook};
use super::write::{Target, Write};

/// The tenant a call acts for, in its [`Context`](super::Context): set it with
/// [`Table::for_tenant`](crate::Table::for_tenant) (or [`scope`](super::scope) in
/// middleware).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantId(pub Arc<str>);

/// Why [`Tenant`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TenantError {
    /// The call names no tenant ([`Table::for_tenant`](crate::Table::for_tenant)): it is
    /// refused, not run for every tenant.
    #[error("the call names no tenant: use `table.for_tenant(id)` (or `hook::scope`)")]
    Unscoped,
    /// The record belongs to another tenant.
    #[error("the `{facet}` record belongs to tenant `{found}`, not `{expected}`")]
    CrossTenant {
        /// The facet.
        facet: &'static str,
        /// The call's tenant.
        expected: String,
        /// The record's.
        found: String,
    },
    /// The facet stores no tenant attribute, and is not exempt ([`Tenant::except`]).
    #[error(
        "`{facet}` has no `{attribute}` attribute: give it the field, or exempt it with \
         `Tenant::except::<Facet>()`"
    )]
    NoTenantField {
        /// The facet.
        facet: &'static str,
        /// The tenant attribute.
        attribute: &'static str,
    },
}

/// A table hook that keeps each tenant's records to itself, failing closed:
///
/// * **Writes** need a tenant ([`TenantError::Unscoped`] otherwise). A record whose tenant
///   attribute is empty or absent is stamped with the call's tenant; another tenant's is
///   refused ([`TenantError::CrossTenant`]), as is an update setting another tenant. Every
///   write requires the stored record to be the tenant's (checked on the server in the
///   write's own condition, so no other writer slips between): a put or upsert may also
///   create. Batch writes carry no condition, so they are refused; write with single
///   calls or transactions.
/// * **Reads** need a tenant too (except stream decodes and backfills, which serve every
///   tenant); another tenant's record is refused: set apart in a page's failures, an error
///   for a get. Queries and scans still read other tenants' items of a shared partition:
///   key your facets by tenant (the partition key built from the tenant field) so that a
///   tenant's reads reach its own partitions only, and IAM's `dynamodb:LeadingKeys` can
///   enforce it on the server too ([`design::iam`](crate::design::iam)). Projections
///   (`select::<P>()`) are not whole records: the hook does not see them.
/// * **Backfills** run without a tenant: each record keeps the tenant it holds (one without
///   is refused).
/// * A delete requires a stored record of the tenant: deleting a missing key fails with
///   `ConditionFailed` (deletes are not idempotent under the hook). Reads of facets without
///   the tenant attribute pass (writes refuse them), and a refused record of another tenant
///   in a page names its key in `failed`.
///
/// ```no_run
/// # use faceteer::hook::{Hooks, Tenant};
/// # use faceteer::{Facet, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Facet, Serialize, Deserialize)]
/// # struct Invoice { #[pk(prefix = "#T")] tenant: String, #[sk(prefix = "#I")] id: String }
/// # faceteer::table! { struct Billing { Invoice } }
/// # async fn demo(table: Table) -> faceteer::Result<()> {
/// let table = table.with_hooks(Hooks::new().table::<Billing, _>(Tenant::new("tenant")))?;
/// let acme = table.for_tenant("acme");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Tenant {
    attribute: &'static str,
    except: Vec<&'static str>,
}

impl Tenant {
    /// Tenants kept apart by attribute `attribute` (the stored name of each facet's tenant
    /// field: a string).
    pub fn new(attribute: &'static str) -> Self {
        Tenant {
            attribute,
            except: Vec::new(),
        }
    }

    /// Leave facet `F` alone (records every tenant shares).
    pub fn except<F: Facet>(mut self) -> Self {
        self.except.push(F::SCHEMA.name);
        self
    }

    fn exempt(&self, schema: &FacetSchema) -> bool {
        self.except.contains(&schema.name)
    }

    fn refuse(&self, error: TenantError) -> Veto {
        Veto::new("tenant", error)
    }

    /// The record's tenant, when its attribute holds a non-empty string.
    fn tenant_of<F: Facet>(&self, record: &F) -> Result<Option<String>, Veto> {
        let item = faceteer_core::convert::record_attributes(record)
            .map_err(|e| Veto::because("tenant", e.to_string()))?;
        Ok(match item.get(self.attribute) {
            Some(AttributeValue::S(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        })
    }

    /// `record` with its tenant attribute set to `tenant`.
    fn stamped<F: Facet>(&self, record: &F, tenant: &str) -> Result<F, Veto> {
        let mut item = faceteer_core::convert::record_attributes(record)
            .map_err(|e| Veto::because("tenant", e.to_string()))?;
        item.insert(
            self.attribute.to_owned(),
            AttributeValue::S(tenant.to_owned()),
        );
        faceteer_core::unmarshal::from_attributes(item, &|_, _| false)
            .map_err(|e| Veto::because("tenant", e.to_string()))
    }

    /// Check (or stamp) a record written for `tenant`.
    fn own<F: Facet>(&self, record: &mut F, tenant: &str) -> Result<(), Veto> {
        match self.tenant_of(record)? {
            Some(found) if found == tenant => Ok(()),
            Some(found) => Err(self.refuse(TenantError::CrossTenant {
                facet: F::SCHEMA.name,
                expected: tenant.to_owned(),
                found,
            })),
            None => {
                *record = self.stamped(record, tenant)?;
                Ok(())
            }
        }
    }
}

impl TableHook for Tenant {
    fn name(&self) -> &'static str {
        "tenant"
    }

    async fn before_write<F: Facet>(&self, write: &mut Write<'_, F>) -> Result<(), Veto> {
        if self.exempt(F::SCHEMA) {
            return Ok(());
        }
        if !F::ATTRIBUTES.contains(&self.attribute) {
            return Err(self.refuse(TenantError::NoTenantField {
                facet: F::SCHEMA.name,
                attribute: self.attribute,
            }));
        }
        let Some(TenantId(tenant)) = write.context::<TenantId>().cloned() else {
            // A backfill serves every tenant: each record keeps the tenant it holds.
            if write.path() == super::write::WritePath::Backfill {
                if let Target::Record(record) = write.target() {
                    if self.tenant_of(*record)?.is_some() {
                        return Ok(());
                    }
                }
            }
            return Err(self.refuse(TenantError::Unscoped));
        };
        match write.target() {
            Target::Record(record) => self.own(*record, &tenant)?,
            Target::Change { change, create, .. } => {
                let assigned = change.assigned(self.attribute);
                if let Ok(Some(_)) | Err(_) = &assigned {
                    let found = match assigned {
                        Ok(Some(Some(AttributeValue::S(s)))) => s,
                        Ok(_) => String::new(),
                        // Computed on the server (another attribute): not known here.
                        Err(what) => format!("(computed: {what})"),
                    };
                    if found != *tenant {
                        return Err(self.refuse(TenantError::CrossTenant {
                            facet: F::SCHEMA.name,
                            expected: tenant.to_string(),
                            found,
                        }));
                    }
                }
                if let Some(record) = create {
                    self.own(*record, &tenant)?;
                }
            }
            Target::Delete { .. } => {}
        }
        write.require_attribute(self.attribute, Some(AttributeValue::S(tenant.to_string())));
        Ok(())
    }

    async fn after_read<F: Facet>(&self, record: &mut F, read: &Reading<'_>) -> Result<(), Veto> {
        if self.exempt(F::SCHEMA) || !F::ATTRIBUTES.contains(&self.attribute) {
            return Ok(());
        }
        let Some(TenantId(tenant)) = read.context::<TenantId>() else {
            return match read.kind() {
                ReadKind::Stream | ReadKind::Backfill => Ok(()),
                _ => Err(self.refuse(TenantError::Unscoped)),
            };
        };
        match self.tenant_of(record)? {
            Some(found) if found == **tenant => Ok(()),
            found => Err(self.refuse(TenantError::CrossTenant {
                facet: F::SCHEMA.name,
                expected: tenant.to_string(),
                found: found.unwrap_or_default(),
            })),
        }
    }
}
