//! The policies of a design: planned (roles, then patterns), then written with ARNs.

use super::document::{self, MAX_POLICY_CHARS};
use super::error::IamError;
use super::options::{IamOptions, IamPolicy};
use super::planned::Planned;
use super::{names, patterns, reach, roles, scope};
use crate::design::model::TableDesign;

/// Every policy of `design` before its ARNs are written: the roles, then the patterns.
pub(crate) fn plan(
    design: &TableDesign<'_>,
    options: &IamOptions<'_>,
) -> Result<Vec<Planned>, IamError> {
    scope::check_scopes(design, options.scopes)?;
    let reaches = reach::Reaches::of(design, options.scopes)?;
    let mut out = roles::roles(design, &reaches);
    out.extend(patterns::patterns(design, &reaches));
    let mut names: Vec<String> = out.iter().map(|p| p.name.clone()).collect();
    names::unique(&mut names);
    for (p, name) in out.iter_mut().zip(names) {
        p.name = name;
    }
    Ok(out)
}

/// The policy documents of `design`: the roles ([`Role`](super::Role) order), then each facet's access
/// patterns (declaration order), scoped by `options.scopes` (see the
/// [module docs](super)), with ARNs in `options.target`.
///
/// Fails when a scope cannot be applied as asked, or a document would be longer than IAM
/// allows ([`MAX_POLICY_CHARS`]); the [`IamError`] names the facet, index or policy.
pub fn iam_policies(
    design: &TableDesign<'_>,
    options: &IamOptions<'_>,
) -> Result<Vec<IamPolicy>, IamError> {
    plan(design, options)?
        .into_iter()
        .map(|p| {
            let arn = |r: &document::Resource| r.arn(design.table, &options.target).into();
            let document = p.document.render(&arn);
            let chars = document::policy_chars(&document);
            if chars > MAX_POLICY_CHARS {
                return Err(IamError::TooLarge {
                    policy: p.name,
                    chars,
                    limit: MAX_POLICY_CHARS,
                });
            }
            Ok(IamPolicy {
                name: p.name,
                kind: p.kind,
                description: p.description,
                notes: p.notes,
                document,
            })
        })
        .collect()
}
