//! Native (multi-attribute) index keys against real DynamoDB-API servers: the table is
//! created with typed multi-attribute key schemas, a put writes no attribute for them,
//! queries follow DynamoDB's left-to-right rule with numbers ordered as numbers, an update
//! of one key field moves the record, a record missing a key field is not in the index,
//! and pages, cursors, filters, projections and counts work as on the other indexes.

use chrono::{DateTime, TimeZone, Utc};
use faceteer::{admin::Difference, Error, Facet, Pick, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

/// A support ticket: queued by team and status, in priority order then by due date; found
/// by assignee when it has one.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "TICKET",
    pick_validator = trust,
    gsi(n = 1, native, alias = "Queue", pk(fields(team, status)), sk(fields(priority, due))),
    gsi(n = 2, native, pk(fields(assignee)), sk(fields(opened)))
)]
struct Ticket {
    #[pk(prefix = "#TEAM")]
    team: String,
    #[sk(prefix = "#TICKET")]
    id: String,
    status: String,
    priority: u8,
    due: DateTime<Utc>,
    assignee: Option<String>,
    #[serde(with = "chrono::serde::ts_seconds")]
    opened: DateTime<Utc>,
    title: String,
}

/// Another facet in the same native index, with the same attributes: its items are in the
/// index too, and reads of `Ticket` skip them.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "INCIDENT",
    gsi(n = 1, native, pk(fields(team, status)), sk(fields(priority, due)))
)]
struct Incident {
    #[pk(prefix = "#TEAM")]
    team: String,
    #[sk(prefix = "#INCIDENT")]
    id: String,
    status: String,
    priority: u8,
    due: DateTime<Utc>,
}

#[derive(Debug, Pick)]
#[pick(facet = Ticket)]
struct TicketTitle {
    title: String,
}

faceteer::table! {
    struct Support { Ticket, Incident }
}

/// Tickets and incidents of one queue, read together from the native index's partition.
#[derive(Debug, Clone, PartialEq, faceteer::Collection)]
enum Queue {
    Ticket(Ticket),
    Incident(Incident),
}

fn day(d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, d, 9, 0, 0).unwrap()
}

fn ticket(i: u32) -> Ticket {
    Ticket {
        team: "core".into(),
        id: format!("t{i:02}"),
        status: if i % 4 == 3 { "closed" } else { "open" }.into(),
        // 1..=12: as text "10" < "9", as numbers 9 < 10.
        priority: (i % 12 + 1) as u8,
        due: day(1 + i % 28),
        assignee: i.is_multiple_of(2).then(|| format!("user{}", i % 3)),
        opened: day(1 + i % 20),
        title: format!("ticket {i}"),
    }
}

async fn seeded() -> (Table, Vec<Ticket>) {
    let table = fresh_table::<Support>("native-keys").await;
    let tickets: Vec<Ticket> = (0..40).map(ticket).collect();
    assert!(table.put_many(tickets.iter().cloned()).await.is_complete());
    let incident = Incident {
        team: "core".into(),
        id: "i1".into(),
        status: "open".into(),
        priority: 1,
        due: day(2),
    };
    table.put(&incident).await.unwrap();
    (table, tickets)
}

/// The open tickets of `core`, in the index's order: priority as a number, then due date.
fn open_in_order(tickets: &[Ticket]) -> Vec<Ticket> {
    let mut open: Vec<Ticket> = tickets
        .iter()
        .filter(|t| t.status == "open")
        .cloned()
        .collect();
    open.sort_by(|a, b| (a.priority, a.due, &a.id).cmp(&(b.priority, b.due, &b.id)));
    open
}

async fn the_table_has_typed_multi_attribute_keys_and_puts_write_none() {
    let (table, _) = seeded().await;
    let description = crate::common::describe(&table).await;
    let gsi1 = description
        .global_secondary_indexes()
        .iter()
        .find(|i| i.index_name() == Some("GSI1"))
        .unwrap();
    let keys: Vec<(String, String)> = gsi1
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name.clone(), k.key_type.as_str().to_owned()))
        .collect();
    let expected = [
        ("team", "HASH"),
        ("status", "HASH"),
        ("priority", "RANGE"),
        ("due", "RANGE"),
    ];
    assert_eq!(
        keys,
        expected.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
    );
    let types: Vec<(String, String)> = description
        .attribute_definitions()
        .iter()
        .map(|a| {
            (
                a.attribute_name.clone(),
                a.attribute_type.as_str().to_owned(),
            )
        })
        .collect();
    for (name, ty) in [
        ("priority", "N"),
        ("due", "S"),
        ("opened", "N"),
        ("team", "S"),
    ] {
        assert!(
            types.contains(&(name.to_owned(), ty.to_owned())),
            "{name} defined as {ty}: {types:?}"
        );
    }
    // The stored item holds the record's attributes and the library's, no index key.
    let stored = table
        .client()
        .get_item()
        .table_name(table.name())
        .key(
            "PK",
            aws_sdk_dynamodb::types::AttributeValue::S("#TEAM_core".into()),
        )
        .key(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S("#TICKET_t01".into()),
        )
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    let mut names: Vec<&str> = stored.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["PK", "SK", "due", "facet", "id", "opened", "priority", "status", "team", "title"],
        "no GSI attribute, and no `assignee` for a ticket without one"
    );
    assert!(table.verify().await.unwrap().is_ok());
    table.delete_table().await.unwrap();
}

async fn queries_follow_the_key_rules_with_numbers_as_numbers() {
    let (table, tickets) = seeded().await;
    let open = open_in_order(&tickets);
    let all = table
        .query(Ticket::by_queue("core", "open").list())
        .all()
        .await
        .unwrap();
    assert_eq!(all, open, "priority 9 before 10: numbers sort as numbers");
    // The incident in the same partition of the index is skipped.
    assert!(all.iter().all(|t| t.id.starts_with('t')));
    // Equality on the first sort field, a range on the second.
    let p1: Vec<Ticket> = open.iter().filter(|t| t.priority == 1).cloned().collect();
    let got = table
        .query(Ticket::by_queue("core", "open").eq(1).lt(day(28)))
        .all()
        .await
        .unwrap();
    let want: Vec<Ticket> = p1.iter().filter(|t| t.due < day(28)).cloned().collect();
    assert_eq!(got, want);
    // One range on the first sort field.
    for (query, keep) in [
        (
            Ticket::gsi1("core", "open").gt(9),
            (|t: &Ticket| t.priority > 9) as fn(&Ticket) -> bool,
        ),
        (Ticket::gsi1("core", "open").ge(10), |t| t.priority >= 10),
        (Ticket::gsi1("core", "open").lt(3), |t| t.priority < 3),
        (Ticket::gsi1("core", "open").le(3), |t| t.priority <= 3),
        (Ticket::gsi1("core", "open").between(4, 10), |t| {
            (4..=10).contains(&t.priority)
        }),
    ] {
        let got = table.query(query).all().await.unwrap();
        let want: Vec<Ticket> = open.iter().filter(|t| keep(t)).cloned().collect();
        assert!(!want.is_empty());
        assert_eq!(got, want);
    }
    // Equalities on every sort field, then `list`.
    let one = &open[3];
    let got = table
        .query(
            Ticket::by_queue("core", "open")
                .eq(one.priority)
                .eq(one.due)
                .list(),
        )
        .all()
        .await
        .unwrap();
    assert!(got.contains(one));
    assert!(got
        .iter()
        .all(|t| t.priority == one.priority && t.due == one.due));
    // A backward range matches nothing, without a request DynamoDB would refuse.
    let none = table
        .query(Ticket::gsi1("core", "open").between(10, 4))
        .all()
        .await
        .unwrap();
    assert!(none.is_empty());
    // The plan says what is sent.
    let plan = Ticket::by_queue("core", "open")
        .eq(2)
        .ge(day(3))
        .plan()
        .unwrap();
    let request = plan.request("t").build().unwrap();
    let names = request.expression_attribute_names().unwrap();
    let condition = request.key_condition_expression().unwrap();
    let mut rendered = condition.to_owned();
    for (k, v) in names {
        rendered = rendered.replace(k.as_str(), v);
    }
    assert!(
        rendered.starts_with("team = :v") && rendered.contains("status = :v"),
        "{rendered}"
    );
    assert!(
        rendered.contains("priority = :v") && rendered.contains("due >= :v"),
        "{rendered}"
    );
    table.delete_table().await.unwrap();
}

async fn pages_cursors_first_reverse_filters_projections_counts() {
    let (table, tickets) = seeded().await;
    let open = open_in_order(&tickets);
    // Pages of 4 with cursors walk the whole partition, once each.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut q = Ticket::by_queue("core", "open").list().limit(4);
        if let Some(c) = cursor.take() {
            q = q.cursor(c);
        }
        let page = table.query(q).await.unwrap();
        assert!(page.records.len() <= 4);
        seen.extend(page.records);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, open);
    // A cursor of another partition is refused.
    let page = table
        .query(Ticket::by_queue("core", "open").list().limit(2))
        .await
        .unwrap();
    let foreign = table
        .query(
            Ticket::by_queue("core", "closed")
                .list()
                .cursor(page.cursor.unwrap()),
        )
        .await;
    assert!(matches!(foreign, Err(Error::Cursor(_))), "{foreign:?}");
    // first, reverse.
    let first = table
        .query(Ticket::by_queue("core", "open").list().first())
        .await
        .unwrap();
    assert_eq!(first.as_ref(), open.first());
    let last = table
        .query(Ticket::by_queue("core", "open").list().reverse().first())
        .await
        .unwrap();
    assert_eq!(last.as_ref(), open.last());
    // A filter on a non-key attribute.
    let f = Ticket::fields();
    let got = table
        .query(
            Ticket::by_queue("core", "open")
                .ge(5)
                .filter(f.title.begins_with("ticket 1")),
        )
        .all()
        .await
        .unwrap();
    let want: Vec<Ticket> = open
        .iter()
        .filter(|t| t.priority >= 5 && t.title.starts_with("ticket 1"))
        .cloned()
        .collect();
    assert_eq!(got, want);
    // A filter on a key attribute is refused before sending: DynamoDB refuses it.
    let refused = table
        .query(
            Ticket::by_queue("core", "open")
                .list()
                .filter(f.priority.eq(3)),
        )
        .all()
        .await;
    assert!(
        matches!(&refused, Err(Error::InvalidRequest(m)) if m.contains("`priority`")),
        "{refused:?}"
    );
    // A projection, paged by its cursor.
    let titles = table
        .query(
            Ticket::by_queue("core", "open")
                .lt(4)
                .select::<TicketTitle>(),
        )
        .all()
        .await
        .unwrap();
    let want: Vec<String> = open
        .iter()
        .filter(|t| t.priority < 4)
        .map(|t| t.title.clone())
        .collect();
    assert_eq!(
        titles.iter().map(|t| t.title.clone()).collect::<Vec<_>>(),
        want
    );
    // Counts: the tickets only, not the incident in the same partition.
    let count = table
        .count(Ticket::by_queue("core", "open").list())
        .await
        .unwrap();
    assert_eq!(count, open.len() as u64);
    let count = table
        .count(Incident::gsi1("core", "open").eq(1).list())
        .await
        .unwrap();
    assert_eq!(count, 1);
    // A scan of the native index, paged by its cursors on one and on four segments.
    for segments in [1, 4] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = table
                .scan::<Ticket>()
                .index("GSI1")
                .segments(segments)
                .limit(7)
                .cursor(cursor.clone())
                .await
                .unwrap();
            seen.extend(page.records);
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
        }
        let mut ids: Vec<String> = seen.iter().map(|t| t.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), tickets.len(), "{segments} segments: each once");
    }
    table.delete_table().await.unwrap();
}

async fn collections_and_ordered_searches_read_native_partitions() {
    let (table, tickets) = seeded().await;
    let open = open_in_order(&tickets);
    // The partition holds both facets; the collection reads both, in the index's order.
    let queue = table
        .collection::<Queue>(Ticket::by_queue("core", "open"))
        .all()
        .await
        .unwrap();
    assert_eq!(queue.len(), open.len() + 1);
    assert!(matches!(&queue[0], Queue::Incident(_) | Queue::Ticket(_)));
    let mut priorities = Vec::new();
    for item in &queue {
        priorities.push(match item {
            Queue::Ticket(t) => t.priority,
            Queue::Incident(i) => i.priority,
        });
    }
    assert!(
        priorities.windows(2).all(|w| w[0] <= w[1]),
        "{priorities:?}"
    );
    // With the equalities given, paged by its cursor.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut run = table
            .collection::<Queue>(Ticket::by_queue("core", "open").eq(1))
            .limit(1);
        if let Some(c) = cursor.take() {
            run = run.cursor(c);
        }
        let page = run.await.unwrap();
        seen.extend(page.records);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    let p1 = open.iter().filter(|t| t.priority == 1).count();
    assert_eq!(
        seen.len(),
        p1 + 1,
        "the priority-1 tickets and the incident"
    );
    // A search over two native partitions, merged by their first sort field: each source
    // is sorted by it, so the merge is too, each ticket once.
    let f = Ticket::fields();
    let merged = table
        .search(Ticket::by_queue("core", "open").list())
        .or(Ticket::by_queue("core", "closed").list())
        .order_by(f.priority)
        .all()
        .await
        .unwrap();
    assert!(merged.windows(2).all(|w| w[0].priority <= w[1].priority));
    let mut ids: Vec<&str> = merged.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), tickets.len());
    table.delete_table().await.unwrap();
}

/// A native key of binary values (`B`), through a type of the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Digest([u8; 4]);

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes: serde_bytes_like::Bytes = Deserialize::deserialize(d)?;
        let array: [u8; 4] = bytes
            .0
            .try_into()
            .map_err(|_| serde::de::Error::custom("a digest is 4 bytes"))?;
        Ok(Digest(array))
    }
}

impl faceteer::key::KeyScalar for Digest {
    const TYPE: faceteer::schema::ScalarType = faceteer::schema::ScalarType::B;
}

/// Bytes, deserialized from a byte string or a sequence.
mod serde_bytes_like {
    pub struct Bytes(pub Vec<u8>);

    impl<'de> serde::Deserialize<'de> for Bytes {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Bytes;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                    Ok(Bytes(v.to_vec()))
                }
                fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Bytes, E> {
                    Ok(Bytes(v))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut a: A,
                ) -> Result<Bytes, A::Error> {
                    let mut out = Vec::new();
                    while let Some(b) = a.next_element()? {
                        out.push(b);
                    }
                    Ok(Bytes(out))
                }
            }
            d.deserialize_byte_buf(Visit)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "BLOB",
    gsi(n = 3, native, pk(fields(digest)), sk(fields(size)))
)]
struct Blob {
    #[pk(prefix = "#BLOB")]
    #[sk(prefix = "#BLOB")]
    id: String,
    digest: Digest,
    size: u64,
}

faceteer::table! {
    struct Blobs { Blob }
}

async fn binary_keys_are_typed_b() {
    let table = fresh_table::<Blobs>("native-keys-binary").await;
    let description = crate::common::describe(&table).await;
    let digest_type = description
        .attribute_definitions()
        .iter()
        .find(|a| a.attribute_name == "digest")
        .map(|a| a.attribute_type.as_str().to_owned());
    assert_eq!(digest_type.as_deref(), Some("B"));
    let d = Digest([0xde, 0xad, 0xbe, 0xef]);
    for (i, size) in [(1, 300u64), (2, 20), (3, 1000)] {
        let blob = Blob {
            id: format!("b{i}"),
            digest: if i == 3 { Digest([1, 2, 3, 4]) } else { d },
            size,
        };
        table.put(&blob).await.unwrap();
    }
    let same = table.query(Blob::gsi3(d).list()).all().await.unwrap();
    let sizes: Vec<u64> = same.iter().map(|b| b.size).collect();
    assert_eq!(sizes, [20, 300], "numbers sort as numbers");
    let big = table.query(Blob::gsi3(d).gt(100u64)).all().await.unwrap();
    assert_eq!(big.len(), 1);
    table.delete_table().await.unwrap();
}

async fn an_update_of_one_key_field_moves_the_record_and_presence_decides_membership() {
    let (table, tickets) = seeded().await;
    let f = Ticket::fields();
    let t = tickets
        .iter()
        .find(|t| t.status == "open" && t.priority == 2)
        .unwrap();
    let key = Ticket::key(&t.team, &t.id).unwrap();
    // One key field alone: no other field's value is needed, nothing derived is written.
    table.update(&key, f.priority.set(12)).await.unwrap();
    let p12 = table
        .query(Ticket::by_queue("core", "open").eq(12).list())
        .all()
        .await
        .unwrap();
    assert!(p12.iter().any(|x| x.id == t.id && x.priority == 12));
    let p2 = table
        .query(Ticket::by_queue("core", "open").eq(2).list())
        .all()
        .await
        .unwrap();
    assert!(p2.iter().all(|x| x.id != t.id));
    // The status is a partition field: the record moves to the other partition.
    table
        .update(&key, f.status.set("closed".to_owned()))
        .await
        .unwrap();
    let closed = table
        .query(Ticket::by_queue("core", "closed").list())
        .all()
        .await
        .unwrap();
    assert!(closed.iter().any(|x| x.id == t.id));
    // An optional key field: absent, the record is not in GSI2; set, it is; removed, out.
    let lone = tickets.iter().find(|t| t.assignee.is_none()).unwrap();
    let by = |who: &'static str| Ticket::gsi2(who.to_owned()).list();
    assert!(table.query(by("zoe")).all().await.unwrap().is_empty());
    let lone_key = Ticket::key(&lone.team, &lone.id).unwrap();
    table
        .update(&lone_key, f.assignee.set("zoe".to_owned()))
        .await
        .unwrap();
    let zoe = table.query(by("zoe")).all().await.unwrap();
    assert_eq!(
        zoe.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        [lone.id.as_str()]
    );
    table.update(&lone_key, f.assignee.remove()).await.unwrap();
    assert!(table.query(by("zoe")).all().await.unwrap().is_empty());
    // GSI2's sort key is an epoch number through its codec: ordered by time.
    let user0 = table.query(by("user0")).all().await.unwrap();
    assert!(user0.len() > 2);
    assert!(user0.windows(2).all(|w| w[0].opened <= w[1].opened));
    table.delete_table().await.unwrap();
}

async fn a_key_of_the_wrong_type_or_empty_is_refused_before_sending() {
    let table = fresh_table::<Support>("native-keys-refused").await;
    let mut t = ticket(1);
    t.status = String::new();
    let refused = table.put(&t).await;
    assert!(
        matches!(&refused, Err(Error::Item(e)) if e.to_string().contains("`status` is empty")),
        "{refused:?}"
    );
    // An update setting a key field empty is refused the same way, before sending.
    let stored = ticket(2);
    table.put(&stored).await.unwrap();
    let f = Ticket::fields();
    let key = Ticket::key(&stored.team, &stored.id).unwrap();
    let refused = table.update(&key, f.status.set(String::new())).await;
    assert!(
        matches!(&refused, Err(Error::Item(e)) if e.to_string().contains("`status` is empty")),
        "{refused:?}"
    );
    let long = "x".repeat(2049);
    let refused = table.update(&key, f.assignee.set(long.clone())).await;
    assert!(
        matches!(&refused, Err(Error::Item(e)) if e.to_string().contains("assignee")),
        "a partition key of GSI2 over 2048 bytes is refused: {refused:?}"
    );
    let read: Ticket = table.get(&key).await.unwrap().unwrap();
    assert_eq!(read, stored, "nothing was written");
    // Queries DynamoDB would refuse: an empty key value matches nothing, without a
    // request; `begins_with` on a number is an error.
    let none = table
        .query(Ticket::by_queue("core", "").list())
        .all()
        .await
        .unwrap();
    assert!(none.is_empty());
    let refused = table
        .query(Ticket::by_queue("core", "open").begins_with(1))
        .all()
        .await;
    assert!(matches!(refused, Err(Error::Key(_))), "{refused:?}");
    // A native index has no one key text to merge a search by: order it by a field.
    let refused = table
        .search(Ticket::by_queue("core", "open").list())
        .limit(5)
        .await;
    assert!(
        matches!(&refused, Err(Error::InvalidRequest(m)) if m.contains("order_by")),
        "{refused:?}"
    );
    // The table holds only the record put whole.
    let all = table
        .query(Ticket::query("core").list())
        .all()
        .await
        .unwrap();
    assert_eq!(all, [stored]);
    table.delete_table().await.unwrap();
}

async fn verify_reports_a_native_key_of_another_type() {
    let table = fresh_table::<Support>("native-keys-verify").await;
    let client = table.client().clone();
    // Another table, its GSI1 keyed by `priority` as a string.
    let other = format!("{}-other", table.name());
    client
        .create_table()
        .table_name(&other)
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .set_attribute_definitions(Some(
            [
                ("PK", "S"),
                ("SK", "S"),
                ("team", "S"),
                ("status", "S"),
                ("priority", "S"),
                ("due", "S"),
            ]
            .map(|(n, t)| {
                aws_sdk_dynamodb::types::AttributeDefinition::builder()
                    .attribute_name(n)
                    .attribute_type(t.into())
                    .build()
                    .unwrap()
            })
            .to_vec(),
        ))
        .set_key_schema(Some(key_schema(&[("PK", "HASH"), ("SK", "RANGE")])))
        .global_secondary_indexes(
            aws_sdk_dynamodb::types::GlobalSecondaryIndex::builder()
                .index_name("GSI1")
                .set_key_schema(Some(key_schema(&[
                    ("team", "HASH"),
                    ("status", "HASH"),
                    ("priority", "RANGE"),
                    ("due", "RANGE"),
                ])))
                .projection(
                    aws_sdk_dynamodb::types::Projection::builder()
                        .projection_type(aws_sdk_dynamodb::types::ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let live = Table::declared::<Support>(client.clone(), other.clone());
    let v = live.verify().await.unwrap();
    assert!(
        v.differences.contains(&Difference::AttributeType {
            attribute: "priority".into(),
            expected: "N".into(),
            found: "S".into(),
        }),
        "{:?}",
        v.differences
    );
    assert!(v
        .differences
        .iter()
        .any(|d| matches!(d, Difference::MissingIndex { index, .. } if index == "GSI2")));
    live.delete_table().await.unwrap();
    table.delete_table().await.unwrap();
}

fn key_schema(keys: &[(&str, &str)]) -> Vec<aws_sdk_dynamodb::types::KeySchemaElement> {
    keys.iter()
        .map(|(n, t)| {
            aws_sdk_dynamodb::types::KeySchemaElement::builder()
                .attribute_name(*n)
                .key_type((*t).into())
                .build()
                .unwrap()
        })
        .collect()
}

/// The design exports spell multi-attribute keys as DynamoDB's templates do: every `HASH`
/// then every `RANGE` element in CloudFormation, `key_schema` blocks in Terraform, typed
/// attribute definitions, and the attributes with their types on the pages.
#[test]
fn designs_show_multi_attribute_keys() {
    use faceteer::design::{self, WorkbenchMetadata};
    use faceteer::TableSchema;
    let d = Support::design("support");
    let cfn: serde_json::Value = serde_json::from_str(&design::cloudformation(&d)).unwrap();
    let table = &cfn["Resources"]["Support"]["Properties"];
    let gsi1 = table["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["IndexName"] == "GSI1")
        .unwrap();
    let keys: Vec<(String, String)> = gsi1["KeySchema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["AttributeName"].as_str().unwrap().to_owned(),
                k["KeyType"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("team", "HASH"),
            ("status", "HASH"),
            ("priority", "RANGE"),
            ("due", "RANGE")
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    let definitions = table["AttributeDefinitions"].as_array().unwrap();
    let type_of = |name: &str| {
        definitions
            .iter()
            .find(|a| a["AttributeName"] == name)
            .map(|a| a["AttributeType"].as_str().unwrap().to_owned())
    };
    assert_eq!(type_of("priority").as_deref(), Some("N"));
    assert_eq!(type_of("opened").as_deref(), Some("N"));
    assert_eq!(type_of("due").as_deref(), Some("S"));
    assert_eq!(
        type_of("GSI1PK"),
        None,
        "no written key attribute for a native index"
    );
    let tf = design::terraform(&d);
    assert!(tf.contains("key_schema {"), "{tf}");
    assert!(tf.contains(r#"attribute_name = "priority""#), "{tf}");
    assert!(tf.contains(r#"key_type       = "RANGE""#), "{tf}");
    assert!(!tf.contains(r#"hash_key = "GSI1PK""#), "{tf}");
    let md = design::access_patterns_markdown(&d);
    assert!(md.contains("team (S), status (S)"), "{md}");
    assert!(md.contains("priority (N), due (S)"), "{md}");
    let html = design::access_patterns_html(&d);
    assert!(html.contains("priority (N), due (S)"));
    let meta = WorkbenchMetadata {
        author: "faceteer",
        created: "2026-11-26",
        modified: "2026-11-26",
        description: "support",
    };
    let wb: serde_json::Value = serde_json::from_str(&design::workbench(&d, &meta)).unwrap();
    let attributes = wb["DataModel"][0]["KeyAttributes"].clone();
    assert_eq!(attributes["PartitionKey"]["AttributeName"], "PK");
    let gsi1 = wb["DataModel"][0]["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["IndexName"] == "GSI1")
        .cloned()
        .unwrap();
    assert_eq!(gsi1["KeyAttributes"]["SortKey"]["AttributeType"], "N");
}

faceteer_suite::engines!(
    collections_and_ordered_searches_read_native_partitions,
    binary_keys_are_typed_b,
    the_table_has_typed_multi_attribute_keys_and_puts_write_none,
    queries_follow_the_key_rules_with_numbers_as_numbers,
    pages_cursors_first_reverse_filters_projections_counts,
    an_update_of_one_key_field_moves_the_record_and_presence_decides_membership,
    a_key_of_the_wrong_type_or_empty_is_refused_before_sending,
    verify_reports_a_native_key_of_another_type,
);
