//! The struct's fields: their stored names (after serde's renaming), their types, and
//! their key attributes still to assemble.

use crate::case::rename_field;
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::Field;
use crate::parse::{field_attrs, FieldAttrs, FieldInput};
use crate::serde_attrs::SerdeContainer;
use crate::types::strip_option;

/// Each field of the struct with its parsed attributes, checked one by one.
pub fn fields(
    raw: Vec<FieldInput>,
    serde: &SerdeContainer,
    cx: &Ctxt,
) -> (Vec<Field>, Vec<FieldAttrs>) {
    let mut fields = Vec::with_capacity(raw.len());
    let mut attrs = Vec::with_capacity(raw.len());
    for f in raw {
        let parsed = field_attrs(&f.attrs, cx);
        let field = field(f, &parsed, serde);
        check::stored_name_is_not_reserved(cx, &field);
        check::nullable_reads_absent(cx, &field, &parsed.serde, serde);
        check::no_wide_integers(cx, &field, &parsed.serde);
        check::nested_holds_a_plain_struct(cx, &field);
        check::crypto_attributes_agree(cx, &field, &parsed);
        fields.push(field);
        attrs.push(parsed);
    }
    (fields, attrs)
}

/// One field, renamed as serde renames it.
pub fn field(f: FieldInput, attrs: &FieldAttrs, serde: &SerdeContainer) -> Field {
    let ident = f.ident.expect("named fields");
    let name = match &attrs.serde.rename {
        Some(n) => n.clone(),
        None => rename_field(&ident.to_string(), serde.rename_all),
    };
    let inner = strip_option(&f.ty);
    Field {
        ident,
        optional: inner.is_some(),
        inner: inner.unwrap_or_else(|| f.ty.clone()),
        ty: f.ty,
        name,
        is_attribute: !attrs.serde.not_an_attribute,
        serializer: attrs.serde.serializer.clone(),
        skip_if: attrs.serde.skip_if.clone(),
        epoch: attrs.epoch,
        default: attrs.serde.default || serde.default,
        codec: attrs.serde.codec.clone(),
        nested: attrs.nested,
        crypto: crypto(attrs),
        sensitive: attrs.sensitive.is_some(),
    }
}

/// The field's `#[encrypt]` / `#[sign_only]` / `#[beacon]`, as one model (a beacon without
/// `#[encrypt]` is reported by [`check::crypto_attributes_agree`]).
fn crypto(attrs: &FieldAttrs) -> Option<crate::model::Crypto> {
    let beacon = attrs.beacon.as_ref().map(|(b, span)| crate::model::Beacon {
        length: *b.length,
        distinct: b.distinct.as_ref().map(|d| **d),
        span: *span,
    });
    match (attrs.encrypt, attrs.sign_only) {
        (Some(span), _) => Some(crate::model::Crypto {
            encrypted: true,
            span,
            beacon,
        }),
        (None, Some(span)) => Some(crate::model::Crypto {
            encrypted: false,
            span,
            beacon: None,
        }),
        (None, None) => None,
    }
}
