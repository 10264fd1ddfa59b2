use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "P")]
struct Patient {
    #[pk(prefix = "P")]
    id: String,
    #[sk(prefix = "P")]
    sk: String,
    #[encrypt]
    diagnosis: String,
    #[sign_only]
    plan: String,
    visits: u32,
}

fn main() {
    let f = Patient::fields();
    // The server cannot compare ciphertext.
    let _ = f.diagnosis.eq("flu".to_string());
    let _ = f.diagnosis.begins_with("f");
    // Nor change a signed item's attributes.
    let _ = f.diagnosis.set("flu".to_string());
    let _ = f.plan.set("b".to_string());
    // A signed-only field compares; a plain field updates.
    let _ = f.plan.eq("a".to_string()) & f.visits.gt(1);
    let _ = f.visits.add(1);
}
