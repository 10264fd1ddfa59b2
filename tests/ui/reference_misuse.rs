use chrono::{DateTime, Utc};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Task {
    #[pk(prefix = "#TEAM")]
    team: String,
    #[sk(prefix = "#TASK")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#USER")]
    user: String,
    #[gsi(n = 1, sk, prefix = "#DUE")]
    due: DateTime<Utc>,
    created: DateTime<Utc>,
    title: String,
    points: u64,
}

#[derive(Facet, Serialize, Deserialize)]
struct Other {
    #[pk(prefix = "#O")]
    #[sk(prefix = "#O")]
    id: String,
    points: u64,
}

fn main() {
    let f = Task::fields();
    // Fine: same facet, same type.
    let _fine = f.created.lt(f.due) & f.points.gt(3);
    let _sum = f.points.set(f.points + 1);
    // A date compared with a number.
    let _date_number = f.created.lt(f.points);
    // Another facet's field.
    let _other = f.points.eq(Other::fields().points);
    // Sums are of numbers.
    let _text_sum = f.title.set(f.title + f.title);
    // An index key's field takes a value, not another attribute.
    let _keyed = f.due.set(f.created);
    // Conditions compare with values or attributes, not sums.
    let _cond_sum = f.points.eq(f.points + 1);
}
