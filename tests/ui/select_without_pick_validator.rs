use faceteer::{Facet, Pick, Table};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Task {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    title: String,
}

// The projection is refused where it is declared; its uses add at most one error, at the
// first read that returns it (not one per use).
#[derive(Pick)]
#[pick(facet = Task)]
struct Title {
    title: String,
}

async fn titles(table: &Table) -> faceteer::Result<usize> {
    let page = table.query(Task::query("t").list().select::<Title>()).await?;
    let one = table.get(&Task::key("t", "k")?).select::<Title>().await?;
    let many = table.get_many(vec![Task::key("t", "k")?]).select::<Title>().await;
    Ok(page.records.len() + usize::from(one.is_some()) + many.found.len())
}

fn main() {
    let _ = Task::query("t").list().select::<Title>();
    let _ = titles;
}
