//! Rules about `#[sensitive]` fields.

use crate::ctxt::Ctxt;
use crate::model::FacetModel;

/// A sensitive field is masked in a printed key by the key's prefix, which tells the key's
/// shape: a key without one (`no_prefix`, or an empty prefix) could not be told apart.
pub fn sensitive_keys_have_prefixes(cx: &Ctxt, m: &FacetModel) {
    for (i, f) in m.fields.iter().enumerate() {
        if !f.sensitive {
            continue;
        }
        let bare = m
            .all_keys()
            .iter()
            .any(|k| k.parts.iter().any(|p| p.field == i) && (k.no_prefix || k.prefix.is_empty()));
        if bare {
            cx.error_at(
                f.ident.span(),
                format!(
                    "`{}` is `#[sensitive]` and part of a key without a prefix: errors and \
                     events mask a sensitive value in a key by the key's prefix, and a key \
                     without one cannot be told apart. Give the key a prefix",
                    f.ident
                ),
            );
        }
    }
}
