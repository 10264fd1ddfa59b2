//! Encrypted fields (`faceteer::encryption`, AWS's Database Encryption SDK with a raw AES
//! keyring) on a real DynamoDB-API server: ciphertext at rest, plaintext keys that hold only
//! beacons, typed queries by a beacon, batches, updates of plain fields, and refusals of
//! what cannot work (tampered or plaintext items, partial writes of signed items).

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::encryption::{BeaconKey, Encryption};
use faceteer::error::ItemError;
use faceteer::{Error, Facet, Key, ReadPath};
use serde::{Deserialize, Serialize};

use crate::common::{get_raw, patient, put_raw};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "PATIENT", pick_validator = trust)]
pub struct Patient {
    #[pk(prefix = "#CLINIC")]
    pub clinic: String,
    #[sk(prefix = "#PATIENT")]
    #[gsi(n = 1, sk, prefix = "#PATIENT")]
    pub id: String,
    #[encrypt]
    #[beacon(length = 16)]
    #[gsi(n = 1, alias = "Email", pk, prefix = "#EMAIL")]
    pub email: String,
    #[encrypt]
    pub diagnosis: String,
    #[encrypt]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[sign_only]
    pub plan: String,
    pub visits: u32,
}

/// A projection of an encrypted field: refused when read (so its field is never read).
#[derive(Debug, faceteer::Pick)]
#[pick(facet = Patient)]
#[allow(dead_code)]
pub struct Diagnosis {
    pub diagnosis: String,
}

/// A projection of plain fields: read as usual.
#[derive(Debug, faceteer::Pick)]
#[pick(facet = Patient)]
pub struct Visits {
    pub visits: u32,
}

/// A facet whose beacon keeps 2 bits: four beacon values, so colors collide all the time.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "BADGE")]
pub struct Badge {
    #[pk(prefix = "#BADGE")]
    pub id: String,
    #[sk(prefix = "#BADGE")]
    #[gsi(n = 2, sk, prefix = "#BADGE")]
    pub owner: String,
    #[encrypt]
    #[beacon(length = 2)]
    #[gsi(n = 2, alias = "Color", pk, prefix = "#COLOR")]
    pub color: String,
}

/// A facet stored in plaintext by an older release, encrypted by a backfill.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CARD")]
pub struct Card {
    #[pk(prefix = "#CARD")]
    pub holder: String,
    #[sk(prefix = "#CARD")]
    #[gsi(n = 3, sk, prefix = "#CARD")]
    pub id: String,
    #[encrypt]
    #[beacon(length = 20)]
    #[gsi(n = 3, alias = "Number", pk, prefix = "#NUMBER")]
    pub number: String,
    pub label: String,
}

/// A record many writers change at once: plain counters beside an encrypted field.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LEDGER")]
pub struct Ledger {
    #[pk(prefix = "#LEDGER")]
    #[sk(prefix = "#LEDGER")]
    pub id: String,
    pub elements: Vec<u64>,
    pub count: i64,
    /// The element of the last whole write, encrypted.
    #[encrypt]
    pub secret: String,
    #[version]
    pub version: u64,
}

faceteer::table! {
    /// A clinic's patients.
    pub struct Clinic { Patient, Badge, Card, Ledger }
}

/// The process's cipher, installed once for every test of the binary.
pub async fn install_test_cipher() {
    static INSTALLED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    INSTALLED
        .get_or_init(|| async {
            let keyring = Encryption::raw_aes_keyring("faceteer-tests", "key-1", &[42u8; 32])
                .await
                .expect("a raw AES keyring");
            settings(keyring).install().expect("the first install");
        })
        .await;
}

/// The test cipher's settings over `keyring`: one beacon key, plaintext reads of `Card`
/// only (its migration).
fn settings(keyring: faceteer::encryption::Keyring) -> Encryption {
    Encryption::new("faceteer-tests", keyring)
        .beacon_key(BeaconKey::from_bytes([7u8; 32]))
        .allow_plaintext_reads::<Card>()
}

/// Whether a raw item's header names the raw AES key `name` (its encrypted data key's
/// provider information holds the key name).
fn encrypted_under(item: &faceteer::Item, name: &str) -> bool {
    match item.get("aws_dbe_head") {
        Some(AttributeValue::B(head)) => head
            .as_ref()
            .windows(name.len())
            .any(|w| w == name.as_bytes()),
        _ => false,
    }
}

pub fn patient_record(id: u32, email: &str) -> Patient {
    Patient {
        clinic: "north".into(),
        id: format!("p{id:03}"),
        email: email.into(),
        diagnosis: format!("diagnosis of {id}"),
        notes: id.is_multiple_of(2).then(|| format!("notes on {id}")),
        plan: format!("plan-{}", id % 3),
        visits: id,
    }
}

fn key(p: &Patient) -> Key<Patient> {
    Patient::key(&p.clinic, &p.id).unwrap()
}

/// The attribute `name` of a raw item as text, whatever its type.
fn text(item: &faceteer::Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

async fn encrypted_fields_are_ciphertext_at_rest_and_read_back() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted").await;
    let p = patient_record(2, "ann@example.com");
    table.put(&p).await.unwrap();

    let raw = get_raw(&table, key(&p).to_item()).await.expect("stored");
    for encrypted in ["email", "diagnosis", "notes"] {
        assert!(
            matches!(raw.get(encrypted), Some(AttributeValue::B(_))),
            "{encrypted} is ciphertext: {:?}",
            raw.get(encrypted)
        );
    }
    assert!(matches!(
        raw.get("aws_dbe_head"),
        Some(AttributeValue::B(_))
    ));
    assert!(matches!(
        raw.get("aws_dbe_foot"),
        Some(AttributeValue::B(_))
    ));
    assert_eq!(text(&raw, "plan"), "plan-2", "signed only: readable");
    assert_eq!(raw.get("visits"), Some(&AttributeValue::N("2".into())));
    // Keys are plaintext and hold the beacon, never the value.
    let index_pk = text(&raw, "GSI1PK");
    assert!(index_pk.starts_with("#EMAIL_"), "{index_pk}");
    let beacon = index_pk.trim_start_matches("#EMAIL_");
    assert_eq!(beacon.len(), 4, "16 bits: 4 hex digits ({index_pk})");
    assert!(u32::from_str_radix(beacon, 16).is_ok());
    let everything = format!("{raw:?}");
    assert!(!everything.contains("ann@example.com"));
    assert!(!everything.contains("diagnosis of"));

    // Both read paths verify and decrypt: straight from the answer's JSON (the default),
    // and through the SDK's decoder.
    for path in [ReadPath::Direct, ReadPath::Sdk] {
        let table = table.clone().with_read_path(path);
        let got = table.get(&key(&p)).await.unwrap();
        assert_eq!(got, Some(p.clone()), "{path:?}");
        let found = table
            .query(Patient::by_email("ann@example.com").list())
            .all()
            .await
            .unwrap();
        assert_eq!(found, vec![p.clone()], "{path:?}");
        let many = table.get_many(vec![key(&p)]).await;
        assert_eq!(many.found, vec![p.clone()], "{path:?}");
    }
    let none = table
        .query(Patient::by_email("bob@example.com").list())
        .all()
        .await
        .unwrap();
    assert!(none.iter().all(|r| r.email == "bob@example.com"));
}

async fn projections_read_plain_fields_only() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-projections").await;
    let p = patient_record(4, "pick@example.com");
    table.put(&p).await.unwrap();
    let visits = table
        .get(&key(&p))
        .select::<Visits>()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(visits.fields.visits, 4);
    match table.get(&key(&p)).select::<Diagnosis>().await {
        Err(Error::Item(ItemError::Encryption { source, .. })) => assert!(
            matches!(
                source,
                faceteer::crypto::CipherError::Projection {
                    attribute: "diagnosis",
                    ..
                }
            ),
            "{source}"
        ),
        other => panic!("a projection of an encrypted field is refused, got {other:?}"),
    }
}

async fn batches_and_plain_updates_keep_items_readable() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-batch").await;
    let patients: Vec<Patient> = (0..40)
        .map(|i| patient_record(i, &format!("user{i}@example.com")))
        .collect();
    let put = table.put_many(patients.clone()).await;
    assert!(put.is_complete(), "{:?}", put.failed.first());
    assert_eq!(put.written.len(), 40);
    let keys: Vec<Key<Patient>> = patients.iter().map(key).collect();
    let got = table.get_many(keys.clone()).await;
    assert!(got.is_complete());
    assert_eq!(got.found, patients);
    let listed = table
        .query(Patient::query("north").list())
        .all()
        .await
        .unwrap();
    assert_eq!(listed, patients);

    // An update of a plain field leaves the signed item as it was: it still verifies.
    let f = Patient::fields();
    table.update(&keys[3], f.visits.add(5)).await.unwrap();
    let mut expected = patients[3].clone();
    expected.visits += 5;
    assert_eq!(table.get(&keys[3]).await.unwrap(), Some(expected.clone()));
}

async fn transactions_encrypt_and_decrypt() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-transactions").await;
    let a = patient_record(11, "tx-a@example.com");
    let b = patient_record(12, "tx-b@example.com");
    let f = Patient::fields();
    table
        .transact_write()
        .put(table.put(&a).if_not_exists())
        .put(table.put(&b).if_not_exists())
        .await
        .unwrap();
    // An update step of a plain field, conditioned on a signed-only one.
    table
        .transact_write()
        .update(
            table
                .update(&key(&a), f.visits.add(1))
                .when(f.plan.eq(a.plan.clone())),
        )
        .await
        .unwrap();
    let raw = get_raw(&table, key(&b).to_item()).await.unwrap();
    assert!(matches!(raw.get("diagnosis"), Some(AttributeValue::B(_))));
    let mut tx = table.transact_get();
    let ha = tx.get(&key(&a));
    let hb = tx.get(&key(&b));
    let mut got = tx.await.unwrap();
    let mut a2 = a.clone();
    a2.visits += 1;
    assert_eq!(got.take(ha).unwrap(), Some(a2));
    assert_eq!(got.take(hb).unwrap(), Some(b));
}

async fn tampered_and_plaintext_items_are_refused() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-refused").await;
    let p = patient_record(1, "cy@example.com");
    table.put(&p).await.unwrap();

    // Another writer changes a signed attribute behind the library's back.
    patient(&table)
        .update_item()
        .table_name(table.name())
        .set_key(Some(key(&p).to_item()))
        .update_expression("SET #p = :p")
        .expression_attribute_names("#p", "plan")
        .expression_attribute_values(":p", AttributeValue::S("plan-forged".into()))
        .send()
        .await
        .unwrap();
    match table.get(&key(&p)).await {
        Err(Error::Item(ItemError::Encryption { facet, .. })) => assert_eq!(facet, "PATIENT"),
        other => panic!("a forged signed attribute is refused, got {other:?}"),
    }

    // A plaintext item of the encrypted facet (written before it was encrypted).
    let plain = patient_record(3, "dee@example.com");
    put_raw(&table, faceteer::to_item(&plain).unwrap())
        .await
        .unwrap();
    match table.get(&key(&plain)).await {
        Err(Error::Item(ItemError::Encryption { source, .. })) => assert!(
            matches!(source, faceteer::crypto::CipherError::Plaintext { .. }),
            "{source}"
        ),
        other => panic!("a plaintext item is refused, got {other:?}"),
    }
}

async fn partial_writes_of_signed_items_are_refused() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-partial").await;
    let p = patient_record(5, "eve@example.com");
    match table.upsert(&p).await {
        Err(Error::InvalidRequest(why)) => assert!(why.contains("encrypted"), "{why}"),
        other => panic!("an upsert is refused, got {other:?}"),
    }
    assert!(
        get_raw(&table, key(&p).to_item()).await.is_none(),
        "nothing sent"
    );
    table.put(&p).await.unwrap();
    let mut after = p.clone();
    after.diagnosis = "changed".into();
    match table.save(&p, &after).await {
        Err(Error::InvalidRequest(why)) => assert!(why.contains("modify"), "{why}"),
        other => panic!("a save is refused, got {other:?}"),
    }
    assert_eq!(table.get(&key(&p)).await.unwrap(), Some(p));
}

async fn colliding_beacons_are_dropped_after_decryption() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-collisions").await;
    let badges: Vec<Badge> = (0..24)
        .map(|i| Badge {
            id: format!("b{i:02}"),
            owner: format!("o{i:02}"),
            color: format!("color-{}", i % 12),
        })
        .collect();
    for b in &badges {
        table.put(b).await.unwrap();
    }
    for color in ["color-0", "color-5", "color-11"] {
        let asked: Vec<Badge> = badges
            .iter()
            .filter(|b| b.color == color)
            .cloned()
            .collect();
        let found = table
            .query(Badge::by_color(color).list())
            .all()
            .await
            .unwrap();
        assert_eq!(found, asked, "only the records of {color}");
        // The index partition itself holds every badge whose 2-bit beacon collides.
        let partition = {
            let raw = faceteer::to_item(&asked[0]).unwrap();
            text(&raw, "GSI2PK")
        };
        let stored = patient(&table)
            .query()
            .table_name(table.name())
            .index_name("GSI2")
            .key_condition_expression("GSI2PK = :p")
            .expression_attribute_values(":p", AttributeValue::S(partition))
            .send()
            .await
            .unwrap();
        assert!(
            stored.count() as usize > asked.len(),
            "12 colors over 4 beacon values collide: {} items under {color}'s beacon",
            stored.count()
        );
    }
    // The first record by a beacon reads on past the records whose beacon only collides.
    for color in ["color-1", "color-6", "color-10"] {
        let first = table
            .query(Badge::by_color(color).list().first())
            .await
            .unwrap()
            .expect("a badge of the color");
        assert_eq!(first.color, color);
    }
    // A count cannot tell collisions apart: refused, nothing counted.
    match table.count(Badge::by_color("color-0").list()).await {
        Err(Error::InvalidRequest(why)) => assert!(why.contains("beacon"), "{why}"),
        other => panic!("a count by a beacon is refused, got {other:?}"),
    }
}

async fn a_plaintext_facet_is_encrypted_by_a_backfill() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-migration").await;
    let cards: Vec<Card> = (0..30)
        .map(|i| Card {
            holder: format!("h{}", i % 3),
            id: format!("c{i:02}"),
            number: format!("4111-0000-{i:04}"),
            label: format!("card {i}"),
        })
        .collect();
    // As the release before `#[encrypt]` stored them: plaintext, the number in the key.
    for c in &cards {
        let mut item = faceteer::to_item(c).unwrap();
        item.insert(
            "GSI3PK".into(),
            AttributeValue::S(format!("#NUMBER_{}", c.number)),
        );
        put_raw(&table, item).await.unwrap();
    }
    // Readable while plaintext reads of the facet are allowed.
    let k = Card::key(&cards[4].holder, &cards[4].id).unwrap();
    assert_eq!(table.get(&k).await.unwrap(), Some(cards[4].clone()));

    let report = table.backfill::<Card>().await.unwrap();
    assert!(report.is_complete(), "{report}");
    assert_eq!(report.totals.rewritten, 30, "{report}");
    for c in &cards {
        let k = Card::key(&c.holder, &c.id).unwrap();
        let raw = get_raw(&table, k.to_item()).await.unwrap();
        assert!(encrypted_under(&raw, "key-"), "encrypted: {raw:?}");
        assert!(
            !format!("{raw:?}").contains(&c.number),
            "no plaintext number left"
        );
        assert_eq!(table.get(&k).await.unwrap(), Some(c.clone()));
    }
    let found = table
        .query(Card::by_number(&cards[7].number).list())
        .all()
        .await
        .unwrap();
    assert_eq!(
        found,
        vec![cards[7].clone()],
        "found by the beacon the backfill wrote"
    );
}

async fn keys_rotate_by_a_backfill() {
    install_test_cipher().await;
    let table = faceteer_suite::fresh_table::<Clinic>("encrypted-rotation").await;
    let patients: Vec<Patient> = (0..12)
        .map(|i| patient_record(i, &format!("rot{i}@example.com")))
        .collect();
    let put = table.put_many(patients.clone()).await;
    assert!(put.is_complete());
    // The rotation's deploy: the new key encrypts, the old one still decrypts. Every test
    // of the binary keeps working under it (their items are under key-1 or key-2).
    let old = Encryption::raw_aes_keyring("faceteer-tests", "key-1", &[42u8; 32])
        .await
        .unwrap();
    let new = Encryption::raw_aes_keyring("faceteer-tests", "key-2", &[43u8; 32])
        .await
        .unwrap();
    settings(new).decrypt_also(old).replace().unwrap();

    let report = table.backfill::<Patient>().await.unwrap();
    assert!(report.is_complete(), "{report}");
    assert_eq!(report.totals.rewritten, 12, "{report}");
    for p in &patients {
        let raw = get_raw(&table, key(p).to_item()).await.unwrap();
        assert!(encrypted_under(&raw, "key-2"), "under the new key");
        assert!(
            !encrypted_under(&raw, "key-1"),
            "no longer under the old key"
        );
        assert_eq!(table.get(&key(p)).await.unwrap(), Some(p.clone()));
    }
    let found = table
        .query(Patient::by_email("rot5@example.com").list())
        .all()
        .await
        .unwrap();
    assert_eq!(found, vec![patients[5].clone()]);
}

faceteer_suite::engines!(
    projections_read_plain_fields_only,
    transactions_encrypt_and_decrypt,
    a_plaintext_facet_is_encrypted_by_a_backfill,
    keys_rotate_by_a_backfill,
    colliding_beacons_are_dropped_after_decryption,
    encrypted_fields_are_ciphertext_at_rest_and_read_back,
    batches_and_plain_updates_keep_items_readable,
    tampered_and_plaintext_items_are_refused,
    partial_writes_of_signed_items_are_refused,
);
