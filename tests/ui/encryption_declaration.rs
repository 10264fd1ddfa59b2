use faceteer::Facet;
use serde::{Deserialize, Serialize};

// An encrypted key part without a beacon would show the value in the key.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "A")]
struct InKey {
    #[pk(prefix = "A")]
    #[encrypt]
    email: String,
    #[sk(prefix = "A")]
    id: String,
}

// A beacon on an unencrypted field, a bool beacon (two values), a length AWS's rule refuses
// for the declared values, a length outside 1..=63, and both actions on one field.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "B")]
struct Beacons {
    #[pk(prefix = "B")]
    id: String,
    #[sk(prefix = "B")]
    #[beacon(length = 8)]
    plain: String,
    #[encrypt]
    #[beacon(length = 1)]
    flag: bool,
    #[encrypt]
    #[beacon(length = 20, distinct = 10000)]
    zip: String,
    #[encrypt]
    #[beacon(length = 64)]
    code: String,
    #[encrypt]
    #[sign_only]
    both: String,
}

// Beacons in the table's key: two records whose values share a beacon would share a key.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "C")]
struct BeaconsAlone {
    #[pk(prefix = "C")]
    #[encrypt]
    #[beacon(length = 16)]
    email: String,
    #[sk(prefix = "C")]
    #[encrypt]
    #[beacon(length = 16)]
    phone: String,
}

// Library fields stay plaintext.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "D")]
struct Library {
    #[pk(prefix = "D")]
    id: String,
    #[sk(prefix = "D")]
    sk: String,
    #[version]
    #[encrypt]
    version: u64,
    #[unique]
    #[encrypt]
    email: String,
}

// A shard id hashes its inputs with no key.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "E")]
struct Sharded {
    #[pk(prefix = "E")]
    tenant: String,
    #[sk(prefix = "E")]
    id: String,
    #[encrypt]
    #[beacon(length = 16)]
    #[gsi(n = 1, pk, prefix = "EMAIL")]
    #[shard(count = 4, gsi = 1)]
    email: String,
}

fn main() {}
