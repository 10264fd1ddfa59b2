//! From the parsed input to the [model](crate::model): the fields renamed as serde
//! renames them, the keys and indexes assembled from their attributes, and the rules of
//! [`check`](crate::check) applied along the way, every error going to the one
//! [`Ctxt`].

mod assembly;
pub mod fields;
mod indexes;
mod key_acc;
mod vectors;

use self::assembly::{Assembly, Parts};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{FacetModel, Field, PickValidatorModel, SchemaVersion};
use crate::parse::FacetInput;
use crate::serde_attrs;

/// The model of a facet. Its errors go to `cx`: the model is only to be expanded when
/// `cx` holds none.
pub fn build(mut input: FacetInput, cx: &Ctxt) -> FacetModel {
    check::no_generics(cx, &input.generics);
    let serde = serde_attrs::container(&input.attrs, cx);
    let (fields, attrs) = fields::fields(input.take_fields(), &serde, cx);
    let mut assembly = Assembly::default();
    assembly.struct_keys(&input, &fields, cx);
    for (i, field_attrs) in attrs.iter().enumerate() {
        assembly.field(&input, i, field_attrs, &fields, cx);
    }
    let vectors = attrs
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let (attr, span) = a.vector.as_ref()?;
            vectors::vector(i, attr, *span, &fields, cx)
        })
        .collect();
    let parts = assembly.finish(&input, &fields, cx);
    let field_by_field = !serde.unfollowed && attrs.iter().all(|a| !a.serde.unfollowed);
    let mut model = facet(input, fields, parts, cx);
    model.vectors = vectors;
    model.field_by_field = field_by_field;
    check::facet(cx, &model);
    model
}

/// The model, from the struct's options, its fields and its assembled parts.
fn facet(input: FacetInput, fields: Vec<Field>, parts: Parts, cx: &Ctxt) -> FacetModel {
    let ident_span = input.ident.span();
    let upgrades_span = input.upgrade.as_ref().map(|u| u.span());
    let upgrades = input.upgrade.map(|u| u.into_inner().0);
    if let Some(old) = &input.version {
        cx.error_at(
            old.span(),
            "the schema version is `#[facet(schema_version = N)]` (written to \
             `_facet_version`); `version` is not an option of `#[facet(..)]`, and `#[version]` \
             on a field is the optimistic-locking counter",
        );
    }
    let schema_version = match (input.schema_version, upgrades) {
        (Some(v), upgrades) => Some(SchemaVersion {
            version: *v,
            span: v.span(),
            upgrades_span: upgrades_span.unwrap_or(v.span()),
            upgrades: upgrades.unwrap_or_default(),
        }),
        // Refused by `check::facet` (`upgrades_have_a_version`).
        (None, Some(upgrades)) => Some(SchemaVersion {
            version: 0,
            span: upgrades_span.unwrap_or(ident_span),
            upgrades_span: upgrades_span.unwrap_or(ident_span),
            upgrades,
        }),
        (None, None) => None,
    };
    FacetModel {
        name: input
            .name
            .as_ref()
            .map_or_else(|| input.ident.to_string(), |n| n.to_string()),
        delimiter: input
            .delimiter
            .as_ref()
            .map_or("_".into(), |d| d.to_string()),
        delimiter_span: input.delimiter.as_ref().map_or(ident_span, |d| d.span()),
        vis: input.vis,
        krate: input.krate.unwrap_or_else(|| syn::parse_quote!(::faceteer)),
        private: std::cell::OnceCell::new(),
        ident: input.ident,
        validator: input.validator,
        validate_on_write: input.validate_on_write,
        pick_validator: input.pick_validator.map(|p| {
            if p.is_ident("trust") {
                PickValidatorModel::Trust
            } else {
                PickValidatorModel::Path(p)
            }
        }),
        fields,
        pk: parts.pk,
        sk: parts.sk,
        indexes: parts.indexes,
        ttl: parts.ttl,
        version: parts.version,
        unique: parts.unique,
        created: parts.created,
        updated: parts.updated,
        schema_version,
        vectors: Vec::new(),
        field_by_field: false,
    }
}
