//! Hooks on a real DynamoDB-API server: `before_write` amends a record before its keys,
//! index keys and validator are built, requires values of the stored record in the write's
//! own condition, or refuses the write (nothing is sent or written); `after_read` amends or
//! refuses the records of every read; hooks compose in order (reads in reverse) and see the
//! call's context.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use faceteer::hook::Veto;
use faceteer::hook::{FacetHook, Hooks, ReadKind, Reading, TableHook, Target, Write, WritePath};
use faceteer::{Error, Facet, Table};
use serde::{Deserialize, Serialize};

use crate::common::get_raw;

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "MEMO", validator = check_memo, validate_on_write)]
#[serde(rename_all = "camelCase")]
pub struct Memo {
    #[pk(prefix = "#OWNER")]
    pub owner: String,
    #[sk(prefix = "#MEMO")]
    pub id: String,
    /// An index key a hook sets.
    #[gsi(n = 1, alias = "MemosByLabel", pk, prefix = "#LABEL")]
    pub label: String,
    pub tenant: String,
    pub body: String,
    /// What each hook did, in order.
    pub trail: Vec<String>,
}

fn check_memo(m: &Memo) -> Result<(), String> {
    if m.label.is_empty() {
        return Err("a memo has a label".into());
    }
    Ok(())
}

faceteer::table! {
    /// Memos.
    pub struct Memos { Memo }
}

fn memo(id: &str, tenant: &str, body: &str) -> Memo {
    Memo {
        owner: "o1".into(),
        id: id.into(),
        label: String::new(),
        tenant: tenant.into(),
        body: body.into(),
        trail: Vec::new(),
    }
}

/// The tenant of a call, set on the handle or around a task.
#[derive(Debug, Clone)]
struct TenantId(String);

/// The hook's own error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Forbidden(String);

/// Labels memos by their body's first word (an index key the validator needs), refuses
/// bodies saying "forbidden", stamps the tenant of the context and requires it of the
/// stored record; on reads, refuses records of another tenant and marks the others.
struct Labeller {
    reads: Arc<AtomicUsize>,
}

impl FacetHook<Memo> for Labeller {
    fn name(&self) -> &'static str {
        "labeller"
    }

    async fn before_write(&self, write: &mut Write<'_, Memo>) -> Result<(), Veto> {
        let tenant = write.context::<TenantId>().map(|t| t.0.clone());
        if let Some(memo) = write.record() {
            if memo.body.contains("forbidden") {
                return Err(Veto::new("labeller", Forbidden(memo.body.clone())));
            }
            memo.label = memo.body.split(' ').next().unwrap_or_default().to_owned();
            memo.trail.push("labeller".into());
            if let Some(t) = &tenant {
                memo.tenant = t.clone();
            }
        }
        if let Some(t) = tenant {
            write.require(Memo::fields().tenant, t)?;
        }
        Ok(())
    }

    async fn after_read(&self, memo: &mut Memo, read: &Reading<'_>) -> Result<(), Veto> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        if let Some(t) = read.context::<TenantId>() {
            if memo.tenant != t.0 {
                return Err(Veto::new(
                    "labeller",
                    Forbidden(format!("{} is not {}'s", memo.id, t.0)),
                ));
            }
        }
        memo.body = format!("{} (read)", memo.body);
        Ok(())
    }
}

async fn hooked_table(label: &str) -> (Table, Table, Arc<AtomicUsize>) {
    let plain = faceteer_suite::fresh_table::<Memos>(label).await;
    let reads = Arc::new(AtomicUsize::new(0));
    let hooked = plain
        .clone()
        .with_hooks(Hooks::new().facet::<Memo, _>(Labeller {
            reads: reads.clone(),
        }))
        .unwrap();
    (hooked, plain, reads)
}

async fn stored(plain: &Table, id: &str) -> Option<Memo> {
    plain
        .get(&Memo::key("o1", id).unwrap())
        .consistent()
        .await
        .unwrap()
}

async fn before_write_amends_before_keys_and_validators() {
    let (table, plain, _) = hooked_table("hooks-amend").await;
    // Without the hook the memo has no label: the validator refuses it.
    let bare = memo("m1", "t1", "urgent call the bank");
    assert!(matches!(plain.put(&bare).await, Err(Error::Item(_))));
    // With it, the label is set before the validator and the index key are built.
    table.put(&bare).await.unwrap();
    let m = stored(&plain, "m1").await.unwrap();
    assert_eq!((m.label.as_str(), m.trail.len()), ("urgent", 1));
    let found = plain
        .query(Memo::by_memos_by_label("urgent").list())
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    let raw = get_raw(&plain, Memo::key("o1", "m1").unwrap().to_item())
        .await
        .unwrap();
    assert_eq!(raw, faceteer::to_item(&m).unwrap());

    // An upsert and a save are amended the same way.
    let other = memo("m2", "t1", "later review the plan");
    table.upsert(&other).await.unwrap();
    assert_eq!(stored(&plain, "m2").await.unwrap().label, "later");
    let before = stored(&plain, "m2").await.unwrap();
    let mut after = before.clone();
    after.body = "soon review".into();
    table.save(&before, &after).await.unwrap();
    let saved = stored(&plain, "m2").await.unwrap();
    assert_eq!((saved.label.as_str(), saved.trail.len()), ("soon", 2));
}

async fn refusals_are_typed_and_nothing_is_written() {
    let (table, plain, _) = hooked_table("hooks-refuse").await;
    let bad = memo("m1", "t1", "forbidden words");
    let key = Memo::key("o1", "m1").unwrap();
    let refused = |e: Error| {
        let veto = e
            .refusal()
            .unwrap_or_else(|| panic!("not a refusal: {e:?}"));
        assert_eq!(veto.hook(), "labeller");
        assert!(veto.downcast_ref::<Forbidden>().is_some(), "{veto:?}");
        assert!(matches!(e, Error::Refused { facet: "MEMO", .. }), "{e:?}");
    };
    refused(table.put(&bad).await.unwrap_err());
    refused(table.put(&bad).if_not_exists().await.unwrap_err());
    refused(table.upsert(&bad).await.unwrap_err());
    assert!(get_raw(&plain, key.to_item()).await.is_none());

    // The record an update may create is the hook's too.
    let f = Memo::fields();
    let err = table
        .update(&key, f.body.set("x".to_owned()))
        .or_create(&bad)
        .await
        .unwrap_err();
    refused(err);
    assert!(get_raw(&plain, key.to_item()).await.is_none());

    // A save and a modify of a stored record into a refused one.
    let good = memo("m1", "t1", "fine words");
    table.put(&good).await.unwrap();
    let before = stored(&plain, "m1").await.unwrap();
    let mut after = before.clone();
    after.body = "forbidden now".into();
    refused(table.save(&before, &after).await.unwrap_err());
    let moved = Memo {
        id: "m9".into(),
        ..after.clone()
    };
    refused(table.move_to(&key, &moved).await.unwrap_err());
    assert_eq!(stored(&plain, "m1").await.unwrap(), before);
    assert!(stored(&plain, "m9").await.is_none());
}

async fn requirements_are_checked_on_the_server() {
    let (table, plain, _) = hooked_table("hooks-require").await;
    let t1 = table.with_context(TenantId("t1".into()));
    let t2 = table.with_context(TenantId("t2".into()));
    // Created for t1 (the hook stamps the tenant whatever the record says).
    t1.put(&memo("m1", "t2", "note one")).await.unwrap();
    assert_eq!(stored(&plain, "m1").await.unwrap().tenant, "t1");
    // Another tenant cannot replace, update or delete it: the server refuses, and the
    // refusal names the hook.
    let key = Memo::key("o1", "m1").unwrap();
    let f = Memo::fields();
    for err in [
        t2.put(&memo("m1", "t2", "mine now")).await.unwrap_err(),
        t2.update(&key, f.body.set("mine".to_owned()))
            .await
            .unwrap_err(),
        t2.delete(&key).await.unwrap_err(),
    ] {
        let veto = err.refusal().unwrap_or_else(|| panic!("{err:?}"));
        assert!(veto.to_string().contains("tenant"), "{veto}");
    }
    assert_eq!(stored(&plain, "m1").await.unwrap().body, "note one");
    // Its own tenant can, and a task-scoped tenant counts when the handle sets none.
    faceteer::hook::scope(TenantId("t1".into()), async {
        table
            .update(&key, f.body.set("edited".to_owned()))
            .await
            .unwrap();
    })
    .await;
    assert_eq!(stored(&plain, "m1").await.unwrap().body, "edited");
    t1.delete(&key).await.unwrap();
    assert!(stored(&plain, "m1").await.is_none());
}

async fn after_read_runs_on_reads() {
    let (table, plain, reads) = hooked_table("hooks-read").await;
    for (i, tenant) in ["t1", "t2", "t1"].into_iter().enumerate() {
        let m = memo(&format!("m{i}"), tenant, "topic body");
        plain
            .put(&Memo {
                label: "topic".into(),
                ..m
            })
            .await
            .unwrap();
    }
    let t1 = table.with_context(TenantId("t1".into()));
    // A get: amended, or refused as an item error.
    let got = t1
        .get(&Memo::key("o1", "m0").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.body, "topic body (read)");
    let err = t1.get(&Memo::key("o1", "m1").unwrap()).await.unwrap_err();
    assert_eq!(err.refusal().map(|v| v.hook()), Some("labeller"));
    // A query and a scan: refused records are set apart, the others amended.
    let page = t1
        .query(Memo::query("o1").list())
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!(page.records.len(), 2);
    assert!(page.records.iter().all(|m| m.body.ends_with("(read)")));
    assert_eq!(page.failed.len(), 1);
    assert_eq!(page.failed[0].sk, "#MEMO_m1");
    let scanned = t1.scan::<Memo>().all_with_failures().await.unwrap();
    assert_eq!((scanned.records.len(), scanned.failed.len()), (2, 1));
    // A read transaction: each record through its facet's hooks.
    let mut tx = t1.transact_get();
    let (own, theirs) = (
        tx.get(&Memo::key("o1", "m0").unwrap()),
        tx.get(&Memo::key("o1", "m1").unwrap()),
    );
    let mut got = tx.await.unwrap();
    assert_eq!(got.take(own).unwrap().unwrap().body, "topic body (read)");
    let err = got.take(theirs).unwrap_err();
    assert_eq!(err.refusal().map(|v| v.hook()), Some("labeller"));
    // Collections: each variant through its facet's hooks.
    let page = t1.collection::<MemoItems>(Memo::query("o1")).await.unwrap();
    assert_eq!((page.records.len(), page.failed.len()), (2, 1));
    assert!(page
        .records
        .iter()
        .all(|MemoItems::Memo(m)| m.body.ends_with("(read)")));
    let scanned = t1
        .scan_collection::<MemoItems>()
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!((scanned.records.len(), scanned.failed.len()), (2, 1));
    let seen = reads.load(Ordering::Relaxed);
    assert!(seen >= 14, "{seen}");
}

/// The memos, as a collection.
#[derive(Debug, faceteer::Collection)]
enum MemoItems {
    Memo(Memo),
}

/// Appends its name to the trail on writes, and on reads checks the trail ends with it (what
/// it wrote last), then removes it: reads unwind in reverse.
struct Stage(&'static str);

impl FacetHook<Memo> for Stage {
    fn name(&self) -> &'static str {
        self.0
    }

    async fn before_write(&self, write: &mut Write<'_, Memo>) -> Result<(), Veto> {
        assert_eq!(write.path(), WritePath::Put);
        if let Target::Record(memo) = write.target() {
            memo.trail.push(self.0.into());
        }
        Ok(())
    }

    async fn after_read(&self, memo: &mut Memo, read: &Reading<'_>) -> Result<(), Veto> {
        assert_eq!(read.kind(), ReadKind::Get);
        match memo.trail.pop() {
            Some(last) if last == self.0 => Ok(()),
            other => Err(Veto::because(self.0, format!("read {other:?} last"))),
        }
    }
}

/// Counts the writes of every facet of the table.
struct Counter(Arc<AtomicUsize>);

impl TableHook for Counter {
    fn name(&self) -> &'static str {
        "counter"
    }

    async fn before_write<F: Facet>(&self, _: &mut Write<'_, F>) -> Result<(), Veto> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

async fn hooks_compose_in_order() {
    let plain = faceteer_suite::fresh_table::<Memos>("hooks-order").await;
    let writes = Arc::new(AtomicUsize::new(0));
    let table = plain
        .clone()
        .with_hooks(
            Hooks::new()
                .facet::<Memo, _>(Stage("first"))
                .facet::<Memo, _>(Stage("second"))
                .table::<Memos, _>(Counter(writes.clone())),
        )
        .unwrap();
    let m = Memo {
        label: "x".into(),
        ..memo("m1", "t1", "x")
    };
    table.put(&m).await.unwrap();
    let raw = stored(&plain, "m1").await.unwrap();
    assert_eq!(raw.trail, ["first", "second"]);
    let read = table.get(&Memo::key("o1", "m1").unwrap()).await.unwrap();
    assert_eq!(read.unwrap().trail, Vec::<String>::new());
    assert_eq!(writes.load(Ordering::Relaxed), 1);
    // A hook on a facet the table does not declare is refused.
    let err = plain
        .clone()
        .with_hooks(Hooks::new().facet::<crate::common::Note, _>(NoteHook))
        .unwrap_err();
    assert!(matches!(err, Error::UndeclaredFacet { .. }), "{err:?}");
}

struct NoteHook;

impl FacetHook<crate::common::Note> for NoteHook {
    fn name(&self) -> &'static str {
        "note"
    }
}

async fn batches_and_transactions_run_hooks() {
    use faceteer::error::{FailureReason, ItemError};
    let (table, plain, _) = hooked_table("hooks-batch").await;
    let memos: Vec<Memo> = (0..30)
        .map(|i| {
            let body = if i % 7 == 0 {
                "forbidden x"
            } else {
                "batch body"
            };
            memo(&format!("b{i:02}"), "t1", body)
        })
        .collect();
    let report = table.put_many(memos).await;
    assert_eq!((report.written.len(), report.failed.len()), (25, 5));
    assert!(report.written.iter().all(|m| m.label == "batch"));
    for failed in &report.failed {
        assert!(
            matches!(&failed.reason, FailureReason::Item(ItemError::Refused { veto, .. })
                if veto.downcast_ref::<Forbidden>().is_some()),
            "{:?}",
            failed.reason
        );
        assert!(stored(&plain, &failed.item.id).await.is_none());
    }
    assert_eq!(stored(&plain, "b01").await.unwrap().label, "batch");

    // Reads of many: amended, or refused one by one.
    let keys: Vec<_> = (1..4)
        .map(|i| Memo::key("o1", format!("b{i:02}")).unwrap())
        .collect();
    let got = table.get_many(keys.clone()).await;
    assert_eq!(got.found.len(), 3);
    assert!(got.found.iter().all(|m| m.body.ends_with("(read)")));
    let other = table.with_context(TenantId("t2".into()));
    let got = other.get_many(keys.clone()).await;
    assert_eq!((got.found.len(), got.failed.len()), (0, 3));

    // A hook that requires stored values refuses batch writes (they carry no condition).
    let t1 = table.with_context(TenantId("t1".into()));
    let report = t1.delete_many(keys.clone()).await;
    assert_eq!(report.failed.len(), 3);
    assert!(stored(&plain, "b01").await.is_some());

    // Transactions: each step's hooks run when it is sent; what they require joins its
    // condition; a refusal sends nothing.
    let f = Memo::fields();
    let refused = t1
        .transact_write()
        .put(t1.put(&memo("x1", "t1", "tx body")))
        .put(t1.put(&memo("x2", "t1", "forbidden")))
        .await
        .unwrap_err();
    assert_eq!(refused.refusal().map(|v| v.hook()), Some("labeller"));
    assert!(stored(&plain, "x1").await.is_none());
    t1.transact_write()
        .put(t1.put(&memo("x1", "t1", "tx body")))
        .update(t1.update(&keys[0], f.body.set("tx change".to_owned())))
        .delete(t1.delete(&keys[1]))
        .await
        .unwrap();
    assert_eq!(stored(&plain, "x1").await.unwrap().label, "tx");
    assert_eq!(stored(&plain, "b01").await.unwrap().body, "tx change");
    assert!(stored(&plain, "b02").await.is_none());
    // Another tenant's steps fail on the server: the stored records are t1's.
    let t2 = table.with_context(TenantId("t2".into()));
    let err = t2
        .transact_write()
        .update(t2.update(&keys[0], f.body.set("stolen".to_owned())))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TransactionCanceled { .. }), "{err:?}");
    assert_eq!(stored(&plain, "b01").await.unwrap().body, "tx change");
}

async fn the_tenant_hook_keeps_tenants_apart() {
    use faceteer::hook::{Tenant, TenantError};
    let plain = faceteer_suite::fresh_table::<Memos>("hooks-tenant").await;
    let table = plain
        .clone()
        .with_hooks(Hooks::new().table::<Memos, _>(Tenant::new("tenant")))
        .unwrap();
    let (acme, globex) = (table.for_tenant("acme"), table.for_tenant("globex"));
    let labelled = |id: &str, tenant: &str| Memo {
        label: "l".into(),
        ..memo(id, tenant, "body")
    };
    let tenant_error = |e: &Error| {
        e.refusal()
            .and_then(|v| v.downcast_ref::<TenantError>())
            .cloned()
    };
    // Stamped with the call's tenant.
    acme.put(&labelled("m1", "")).await.unwrap();
    assert_eq!(stored(&plain, "m1").await.unwrap().tenant, "acme");
    // Another tenant's record is refused before anything is sent; so is a call with none.
    let err = globex.put(&labelled("m2", "acme")).await.unwrap_err();
    assert!(
        matches!(tenant_error(&err), Some(TenantError::CrossTenant { .. })),
        "{err:?}"
    );
    let err = table.put(&labelled("m2", "")).await.unwrap_err();
    assert_eq!(tenant_error(&err), Some(TenantError::Unscoped));
    assert!(stored(&plain, "m2").await.is_none());
    // Overwriting, changing or deleting another tenant's stored record fails on the server.
    let key = Memo::key("o1", "m1").unwrap();
    let f = Memo::fields();
    for err in [
        globex.put(&labelled("m1", "")).await.unwrap_err(),
        globex
            .update(&key, f.body.set("mine".to_owned()))
            .await
            .unwrap_err(),
        globex.delete(&key).await.unwrap_err(),
    ] {
        assert_eq!(err.refusal().map(|v| v.hook()), Some("tenant"), "{err:?}");
    }
    assert_eq!(stored(&plain, "m1").await.unwrap().tenant, "acme");
    // Reads: the tenant's own records only.
    assert!(acme.get(&key).await.unwrap().is_some());
    let err = globex.get(&key).await.unwrap_err();
    assert!(matches!(
        tenant_error(&err),
        Some(TenantError::CrossTenant { .. })
    ));
    let page = globex
        .query(Memo::query("o1").list())
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!((page.records.len(), page.failed.len()), (0, 1));
    // Batch writes carry no condition: refused.
    let report = acme.put_many(vec![labelled("m3", "")]).await;
    assert_eq!(report.failed.len(), 1);
    // A mixed batch cannot run hooks: its entries of hooked facets are refused.
    let report = acme.write_batch().put(&labelled("m4", "")).await;
    assert_eq!((report.done.len(), report.failed.len()), (0, 1));
    assert!(stored(&plain, "m4").await.is_none());
    // An update may not set the tenant from another attribute.
    let err = acme.update(&key, f.tenant.set(f.body)).await.unwrap_err();
    assert!(
        matches!(tenant_error(&err), Some(TenantError::CrossTenant { .. })),
        "{err:?}"
    );
    // A backfill serves every tenant: each record keeps its own.
    let report = table.backfill::<Memo>().await.unwrap();
    assert!(report.is_complete(), "{report:?}");
    assert_eq!(stored(&plain, "m1").await.unwrap().tenant, "acme");
    // Searches over several sources run the hooks too.
    let found = globex
        .search(Memo::query("o1").list())
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!(found.records.len(), 0);
    assert!(!found.failed.is_empty());
    // The tenant's own writes go through.
    acme.update(&key, f.body.set("edited".to_owned()))
        .await
        .unwrap();
    acme.delete(&key).await.unwrap();
    assert!(stored(&plain, "m1").await.is_none());
}

/// Tags each operation with its facet, asks for capacity by index, and sends a call id
/// from the context with every request; refuses `Scan`s.
struct CallIds;

#[derive(Clone)]
struct CallId(String);

impl faceteer::hook::RequestHook for CallIds {
    fn name(&self) -> &'static str {
        "call-ids"
    }

    async fn before_call(&self, call: &mut faceteer::hook::Call<'_>) -> Result<(), Veto> {
        if call.operation() == "Scan" {
            return Err(Veto::because("call-ids", "no scans here"));
        }
        // Headers the protocol owns are refused.
        assert!(call.header("Authorization", "x").is_err());
        assert!(call.header("x-amz-date", "x").is_err());
        if let Some(CallId(id)) = call.context::<CallId>().cloned() {
            call.header("X-Call-Id", &id)?;
        }
        call.tag("facet", call.facet().unwrap_or("none").to_owned());
        call.capacity_by_index();
        Ok(())
    }
}

async fn request_hooks_amend_every_request() {
    use crate::common::spans::traced;
    let plain = faceteer_suite::fresh_table::<Memos>("hooks-requests").await;
    let seen = crate::common::HeaderLog::new("x-call-id");
    let table = seen
        .on::<Memos>(&plain)
        .with_hooks(Hooks::new().requests(CallIds))
        .unwrap()
        .with_context(CallId("c-42".into()));
    let memos: Vec<Memo> = (0..30)
        .map(|i| Memo {
            label: "l".into(),
            ..memo(&format!("r{i:02}"), "t1", "b")
        })
        .collect();
    let (report, spans) = traced(async { table.put_many(memos).await }).await;
    assert!(report.is_complete());
    let (got, _) = traced(async { table.get(&Memo::key("o1", "r01").unwrap()).await }).await;
    assert!(got.unwrap().is_some());
    // Every request of every operation carried the header, each try and chunk alike.
    let seen = seen.seen();
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(
        seen.iter().all(|(_, id)| id.as_deref() == Some("c-42")),
        "{seen:?}"
    );
    // The span carries the tags.
    let span = spans.of("BatchWriteItem").pop().unwrap();
    assert_eq!(
        span.get("faceteer.tags").map(String::as_str),
        Some("facet=MEMO")
    );
    // A refusal fails the operation before it sends anything.
    let err = table.scan::<Memo>().all().await.unwrap_err();
    assert_eq!(err.refusal().map(|v| v.hook()), Some("call-ids"));
}

/// A hook that never finishes.
struct Hang;

impl FacetHook<Memo> for Hang {
    fn name(&self) -> &'static str {
        "hang"
    }

    async fn before_write(&self, _: &mut Write<'_, Memo>) -> Result<(), Veto> {
        std::future::pending::<()>().await;
        Ok(())
    }

    async fn after_read(&self, _: &mut Memo, _: &Reading<'_>) -> Result<(), Veto> {
        std::future::pending::<()>().await;
        Ok(())
    }
}

/// Hooks run under the call's deadline: one that hangs ends the call then, with nothing
/// sent for a write, and a read's record refused.
async fn a_hook_that_hangs_ends_by_the_deadline() {
    let plain = faceteer_suite::fresh_table::<Memos>("hooks-hang").await;
    let timeouts = faceteer::Timeouts {
        call: std::time::Duration::from_secs(1),
        ..plain.timeouts()
    };
    let table = plain
        .clone()
        .with_timeouts(timeouts)
        .with_hooks(Hooks::new().facet::<Memo, _>(Hang))
        .unwrap();
    let m = Memo {
        label: "l".into(),
        ..memo("m1", "t1", "b")
    };
    let err = table.put(&m).await.unwrap_err();
    assert!(
        matches!(err, Error::DeadlineExceeded { sent: false, .. }),
        "{err:?}"
    );
    assert!(stored(&plain, "m1").await.is_none());
    plain.put(&m).await.unwrap();
    let err = table
        .get(&Memo::key("o1", "m1").unwrap())
        .await
        .unwrap_err();
    assert!(err.refusal().is_some(), "{err:?}");
}

faceteer_suite::engines!(
    a_hook_that_hangs_ends_by_the_deadline,
    request_hooks_amend_every_request,
    the_tenant_hook_keeps_tenants_apart,
    batches_and_transactions_run_hooks,
    before_write_amends_before_keys_and_validators,
    refusals_are_typed_and_nothing_is_written,
    requirements_are_checked_on_the_server,
    after_read_runs_on_reads,
    hooks_compose_in_order,
);
