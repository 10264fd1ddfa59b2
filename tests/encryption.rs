//! Encrypted fields (`faceteer::encryption`, AWS's Database Encryption SDK with a raw AES
//! keyring) on a real DynamoDB-API server: ciphertext at rest, plaintext keys that hold only
//! beacons, typed queries by a beacon, batches, updates of plain fields, and refusals of
//! what cannot work (tampered or plaintext items, partial writes of signed items).

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::encryption::{BeaconKey, Encryption};
use faceteer::error::ItemError;
use faceteer::{Error, Facet, Key};
use serde::{Deserialize, Serialize};

use crate::common::{get_raw, patient};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "PATIENT")]
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

faceteer::table! {
    /// A clinic's patients.
    pub struct Clinic { Patient }
}

/// The process's cipher, installed once for every test of the binary.
pub async fn install_test_cipher() {
    static INSTALLED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    INSTALLED
        .get_or_init(|| async {
            let keyring = Encryption::raw_aes_keyring("faceteer-tests", "key-1", &[42u8; 32])
                .await
                .expect("a raw AES keyring");
            Encryption::new("faceteer-tests", keyring)
                .beacon_key(BeaconKey::from_bytes([7u8; 32]))
                .install()
                .expect("the first install");
        })
        .await;
}

fn patient_record(id: u32, email: &str) -> Patient {
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

    let got = table.get(&key(&p)).await.unwrap();
    assert_eq!(got, Some(p.clone()));
    let found = table
        .query(Patient::by_email("ann@example.com").list())
        .all()
        .await
        .unwrap();
    assert_eq!(found, vec![p.clone()]);
    let none = table
        .query(Patient::by_email("bob@example.com").list())
        .all()
        .await
        .unwrap();
    assert!(none.iter().all(|r| r.email == "bob@example.com"));
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
    patient(&table)
        .put_item()
        .table_name(table.name())
        .set_item(Some(faceteer::to_item(&plain).unwrap()))
        .send()
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

faceteer_suite::engines!(
    encrypted_fields_are_ciphertext_at_rest_and_read_back,
    batches_and_plain_updates_keep_items_readable,
    tampered_and_plaintext_items_are_refused,
    partial_writes_of_signed_items_are_refused,
);
