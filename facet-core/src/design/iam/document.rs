//! A policy document before its ARNs are written: statements naming resources of the
//! design (the table, an index, the stream), rendered with concrete ARNs or with
//! CloudFormation's.

use serde_json::{json, Map, Value};

use super::actions::{LEADING_KEYS, ON_INDEX};
use super::glob::{escape, Glob};
use super::options::IamTarget;

/// A resource of the designed table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    /// The table (`table/<name>`).
    Table,
    /// A secondary or vector index, by the table's name (`table/<name>/index/<index>`).
    Index(&'static str),
    /// Every stream of the table (`table/<name>/stream/*`).
    Stream,
    /// A KMS key, by its ARN (the table's customer-managed key).
    Key(&'static str),
}

impl Resource {
    /// The resource in an error message: `table `app``, `index `GSI1``.
    pub(crate) fn describe(&self, table: &str) -> String {
        match self {
            Resource::Table => format!("table `{table}`"),
            Resource::Index(name) => format!("index `{name}`"),
            Resource::Stream => format!("the stream of `{table}`"),
            Resource::Key(arn) => format!("KMS key `{arn}`"),
        }
    }

    /// What follows the table's ARN: nothing, `/index/<index>` or `/stream/*`.
    pub(crate) fn suffix(&self) -> String {
        match self {
            Resource::Table => String::new(),
            Resource::Index(name) => format!("/index/{name}"),
            Resource::Stream => "/stream/*".to_owned(),
            Resource::Key(_) => String::new(),
        }
    }

    /// The resource's ARN in `target`'s partition, region and account.
    pub(crate) fn arn(&self, table: &str, target: &IamTarget<'_>) -> String {
        if let Resource::Key(arn) = self {
            return (*arn).to_owned();
        }
        format!(
            "arn:{}:dynamodb:{}:{}:table/{table}{}",
            target.partition,
            target.region,
            target.account,
            self.suffix()
        )
    }
}

/// Whether a statement allows or denies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    Allow,
    Deny,
}

/// A statement's condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Condition {
    /// Every partition key the request names (`dynamodb:LeadingKeys`) matches one of the
    /// patterns; the request names keys and the principal has every tag the patterns
    /// name (`Null` guards: `ForAllValues` holds when there are no keys at all).
    Leading {
        /// The patterns, in order.
        globs: Vec<Glob>,
        /// Each tag with the delimiter of a key it is a value of.
        tags: Vec<(String, &'static str)>,
    },
    /// Boolean condition key `key` is true (`Bool`): `kms:GrantIsForAWSResource`, so a
    /// grant can only be created for an AWS service using the key on the caller's behalf.
    IsTrue {
        /// The condition key.
        key: &'static str,
    },
    /// The principal's tag `tag` is like one of `patterns` (`StringLike`).
    TagLike {
        /// The tag.
        tag: String,
        /// The `StringLike` values.
        patterns: Vec<String>,
    },
}

impl Condition {
    fn render(&self) -> Value {
        match self {
            Condition::Leading { globs, tags } => {
                let mut patterns: Vec<String> = Vec::new();
                for glob in globs {
                    let text = glob.render();
                    if !patterns.contains(&text) {
                        patterns.push(text);
                    }
                }
                let mut present = Map::new();
                present.insert("dynamodb:LeadingKeys".into(), "false".into());
                for (tag, _) in tags {
                    present.insert(format!("aws:PrincipalTag/{tag}"), "false".into());
                }
                json!({
                    "ForAllValues:StringLike": { "dynamodb:LeadingKeys": patterns },
                    "Null": present,
                })
            }
            Condition::TagLike { tag, patterns } => {
                json!({ "StringLike": { format!("aws:PrincipalTag/{tag}"): patterns } })
            }
            Condition::IsTrue { key } => json!({ "Bool": { *key: "true" } }),
        }
    }
}

/// One statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Statement {
    /// Its id: letters and digits, unique in its document.
    pub(crate) sid: String,
    pub(crate) effect: Effect,
    /// DynamoDB action names (`GetItem`), sorted, each once.
    pub(crate) actions: Vec<&'static str>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) condition: Option<Condition>,
}

impl Statement {
    /// An `Allow` of `actions` on `resources`, without a condition.
    pub(crate) fn allow(sid: &str, actions: &[&'static str], resources: Vec<Resource>) -> Self {
        Statement::new(sid, Effect::Allow, actions, resources)
    }

    /// A `Deny` of `actions` on `resources`, without a condition.
    pub(crate) fn deny(sid: &str, actions: &[&'static str], resources: Vec<Resource>) -> Self {
        Statement::new(sid, Effect::Deny, actions, resources)
    }

    /// A statement of `actions` on `resources`: an index only with actions IAM grants on
    /// an index.
    fn new(sid: &str, effect: Effect, actions: &[&'static str], resources: Vec<Resource>) -> Self {
        let mut actions = actions.to_vec();
        actions.sort_unstable();
        actions.dedup();
        debug_assert!(
            !resources.iter().any(|r| matches!(r, Resource::Index(_)))
                || actions.iter().all(|a| ON_INDEX.contains(a)),
            "{actions:?} on an index"
        );
        Statement {
            sid: sid.to_owned(),
            effect,
            actions,
            resources,
            condition: None,
        }
    }

    /// The same statement with `condition`: a `dynamodb:LeadingKeys` condition only on
    /// actions IAM evaluates it on.
    pub(crate) fn when(mut self, condition: Condition) -> Self {
        if let Condition::Leading { .. } = condition {
            debug_assert!(
                self.actions.iter().all(|a| LEADING_KEYS.contains(a)),
                "{:?} conditioned on dynamodb:LeadingKeys",
                self.actions
            );
        }
        self.condition = Some(condition);
        self
    }

    fn render(&self, arn: &dyn Fn(&Resource) -> Value) -> Value {
        let actions: Vec<String> = self
            .actions
            .iter()
            .map(|a| {
                if a.contains(':') {
                    (*a).to_owned()
                } else {
                    format!("dynamodb:{a}")
                }
            })
            .collect();
        let resources: Vec<Value> = self.resources.iter().map(arn).collect();
        let mut out = Map::new();
        out.insert("Sid".into(), self.sid.clone().into());
        let effect = match self.effect {
            Effect::Allow => "Allow",
            Effect::Deny => "Deny",
        };
        out.insert("Effect".into(), effect.into());
        out.insert("Action".into(), actions.into());
        out.insert("Resource".into(), resources.into());
        if let Some(condition) = &self.condition {
            out.insert("Condition".into(), condition.render());
        }
        Value::Object(out)
    }
}

/// A policy document: its statements, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Document {
    pub(crate) statements: Vec<Statement>,
}

impl Document {
    /// Add `statement`, its id made unique in the document (a number appended).
    pub(crate) fn push(&mut self, mut statement: Statement) {
        let base = statement.sid.clone();
        let mut n = 1;
        while self.statements.iter().any(|s| s.sid == statement.sid) {
            n += 1;
            statement.sid = format!("{base}{n}");
        }
        self.statements.push(statement);
    }

    /// For each statement conditioned on principal tags, and each of its tags, a statement
    /// denying what it allows when the tag's value could match another value's partitions:
    /// when it holds a delimiter of a key it is a value of, ends with the start of a
    /// multi-character one, or holds a wildcard (`*`, `?`).
    pub(crate) fn deny_unsafe_tags(&mut self) {
        let mut denies = Vec::new();
        for s in &self.statements {
            let Some(Condition::Leading { tags, .. }) = &s.condition else {
                continue;
            };
            let mut names: Vec<&str> = Vec::new();
            for (tag, _) in tags {
                if !names.contains(&tag.as_str()) {
                    names.push(tag);
                }
            }
            for tag in names {
                let delimiters: Vec<&str> = tags
                    .iter()
                    .filter(|(t, _)| t == tag)
                    .map(|(_, d)| *d)
                    .collect();
                let sid = format!("DenyUnsafe{}Tag{}", super::names::pascal(tag), s.sid);
                let deny = Statement::deny(&sid, &s.actions, s.resources.clone()).when(
                    Condition::TagLike {
                        tag: tag.to_owned(),
                        patterns: unsafe_tag_patterns(&delimiters),
                    },
                );
                denies.push(deny);
            }
        }
        for deny in denies {
            self.push(deny);
        }
    }

    /// The document, each resource written by `arn`.
    pub(crate) fn render(&self, arn: &dyn Fn(&Resource) -> Value) -> Value {
        let statements: Vec<Value> = self.statements.iter().map(|s| s.render(arn)).collect();
        json!({ "Version": "2012-10-17", "Statement": statements })
    }
}

/// The `StringLike` patterns of tag values that could match another value's partitions,
/// for keys with `delimiters`: holding a delimiter, ending with the start of a
/// multi-character one (`x:` before `::`), holding `*` or `?`.
pub(crate) fn unsafe_tag_patterns(delimiters: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |p: String| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    for d in delimiters {
        add(format!("*{}*", escape(d)));
        for (end, _) in d.char_indices().skip(1) {
            add(format!("*{}", escape(&d[..end])));
        }
    }
    add("*${*}*".to_owned());
    add("*${?}*".to_owned());
    // An empty tag value would reach the partitions of records whose scope field is empty.
    add(String::new());
    out
}

/// IAM's largest managed policy, in characters without white space.
pub const MAX_POLICY_CHARS: usize = 6144;

/// How long IAM counts `document`: its characters but white space.
pub(crate) fn policy_chars(document: &Value) -> usize {
    let text = serde_json::to_string(document).expect("a document serializes");
    text.chars().filter(|c| !c.is_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_tags_hold_a_delimiter_its_start_or_a_wildcard() {
        assert_eq!(unsafe_tag_patterns(&["_"]), ["*_*", "*${*}*", "*${?}*", ""]);
        assert_eq!(
            unsafe_tag_patterns(&["#", "::", "*"]),
            ["*#*", "*::*", "*:", "*${*}*", "*${?}*", ""]
        );
    }

    #[test]
    fn sids_are_unique_and_arns_concrete() {
        let mut doc = Document::default();
        doc.push(Statement::allow(
            "Read",
            &["Query", "GetItem", "Query"],
            vec![Resource::Table],
        ));
        doc.push(Statement::allow(
            "Read",
            &["Scan"],
            vec![Resource::Index("GSI1")],
        ));
        assert_eq!(doc.statements[1].sid, "Read2");
        assert_eq!(doc.statements[0].actions, ["GetItem", "Query"]);
        let target = IamTarget::new()
            .in_region("eu-west-1")
            .in_account("123456789012");
        let value = doc.render(&|r| r.arn("app", &target).into());
        assert_eq!(
            value["Statement"][1]["Resource"],
            json!(["arn:aws:dynamodb:eu-west-1:123456789012:table/app/index/GSI1"])
        );
        assert_eq!(
            Resource::Stream.arn("app", &IamTarget::new()),
            "arn:aws:dynamodb:*:*:table/app/stream/*"
        );
        assert_eq!(policy_chars(&json!({"a b": " x "})), 10);
    }
}
