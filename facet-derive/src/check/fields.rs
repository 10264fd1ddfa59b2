//! Rules about the struct and each of its fields.

use crate::ctxt::Ctxt;
use crate::model::Field;
use crate::serde_attrs::{SerdeContainer, SerdeField};
use crate::types::{last_segment, wide_integer};

/// A facet is one concrete record type: generic structs are not supported.
pub fn no_generics(cx: &Ctxt, generics: &syn::Generics) {
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "`#[derive(Facet)]` does not support generic structs",
        );
    }
}

/// A field is not stored under a name faceteer writes itself (`PK`, `GSI1SK`, `facet`, …).
pub fn stored_name_is_not_reserved(cx: &Ctxt, field: &Field) {
    if is_reserved(&field.name) {
        cx.error_spanned_by(
            &field.ident,
            format!(
                "field `{}` is stored as `{}`, a name faceteer reserves for its own \
                 attributes (PK, SK, GSI<n>PK, GSI<n>SK, LSI<n>SK, facet, ttl, _facet_version); rename the field or \
                 give it `#[serde(rename = \"..\")]`",
                field.ident, field.name
            ),
        );
    }
}

/// A `Nullable` attribute must read a missing attribute as absent: it needs
/// `#[serde(default)]` (on the field or the struct). (A `DateTime<Utc>` needs nothing:
/// faceteer's marshalling stores it as Faceteer does, at any depth.)
pub fn nullable_reads_absent(
    cx: &Ctxt,
    field: &Field,
    serde: &SerdeField,
    container: &SerdeContainer,
) {
    let nullable = last_segment(&field.inner).as_deref() == Some("Nullable");
    if field.is_attribute && nullable && !field.optional && !serde.default && !container.default {
        cx.error_spanned_by(
            &field.ident,
            format!(
                "field `{}` is `Nullable`: add `#[serde(default)]`, so that a missing \
                 attribute reads as `Nullable::Absent` rather than `Nullable::Null`",
                field.ident
            ),
        );
    }
}

/// An attribute holding `u128`/`i128` (anywhere in its type) needs a codec of its own:
/// DynamoDB numbers have 38 digits.
pub fn no_wide_integers(cx: &Ctxt, field: &Field, serde: &SerdeField) {
    if !field.is_attribute || serde.custom_serialize {
        return;
    }
    if let Some(int) = wide_integer(&field.inner) {
        cx.error_spanned_by(
            &field.ident,
            format!(
                "field `{}` holds `{int}`, whose values reach 39 digits, but DynamoDB \
                 numbers hold at most 38 (and serde_dynamo cannot read 128-bit integers \
                 back); use `u64`/`i64`, or store it as text with \
                 `#[serde(with = \"..\")]` (for example `serde_with::DisplayFromStr`)",
                field.ident
            ),
        );
    }
}

/// `PK`, `SK`, `GSI<n>PK`, `GSI<n>SK`, `LSI<n>SK`, `facet`, `ttl`, `_faceteer_write` and
/// `_facet_version`.
fn is_reserved(name: &str) -> bool {
    if matches!(
        name,
        "PK" | "SK" | "facet" | "ttl" | "_faceteer_write" | "_facet_version"
    ) {
        return true;
    }
    if let Some(num) = name.strip_prefix("LSI").and_then(|r| r.strip_suffix("SK")) {
        return !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit());
    }
    let Some(rest) = name.strip_prefix("GSI") else {
        return false;
    };
    let Some(num) = rest.strip_suffix("PK").or_else(|| rest.strip_suffix("SK")) else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::is_reserved;

    #[test]
    fn reserved_names() {
        for n in [
            "PK",
            "SK",
            "facet",
            "ttl",
            "_faceteer_write",
            "_facet_version",
            "LSI1SK",
            "LSI5SK",
            "GSI1PK",
            "GSI20SK",
            "GSI7PK",
        ] {
            assert!(is_reserved(n), "{n}");
        }
        for n in ["pk", "GSIPK", "GSI1", "facets", "teamId", "GSI1PKX"] {
            assert!(!is_reserved(n), "{n}");
        }
    }
}
