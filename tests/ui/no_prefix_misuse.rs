use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Loose {
    #[pk(no_prefix)]
    id: String,
    #[sk(prefix = "#LOOSE")]
    at: u64,
}

#[derive(Facet, Serialize, Deserialize)]
struct Both {
    #[pk(prefix = "#BOTH")]
    id: String,
    #[sk(prefix = "#AT", no_prefix)]
    at: u64,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "Post", delimiter = "#")]
struct Post {
    #[pk(prefix = "Blog")]
    blog: String,
    #[sk(no_prefix)]
    id: String,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "Profile", delimiter = "#")]
struct Profile {
    #[pk(prefix = "Blog")]
    blog: String,
    #[sk(prefix = "Profile")]
    owner: String,
}

faceteer::table! {
    struct Blogs { Post, Profile }
}

fn main() {}
