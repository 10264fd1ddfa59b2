//! Handles below a field reached at run time: a list element (`f.tags.at(0)`), a map entry
//! (`f.scores.key("a")`), or a member named by a string (`f.profile.member::<u32>("visits")`).
//! Their values are encoded as the field that holds them stores them.

use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;

use super::error::ExprError;
use super::field::{at, only_member, operand_at, Encoder, Value};
use super::path::Path;

/// How a member's values are stored.
enum Encoding<T> {
    /// Its own encoder (a map member: faceteer's marshalling of the value).
    Plain(Encoder<T>),
    /// As an element of the list field whose encoder this is.
    Element(Encoder<Vec<T>>),
    /// Through a function of the field that holds it (a map entry, encoded as a map of one).
    Via(Arc<dyn Fn(T) -> Value + Send + Sync>),
}

impl<T> Clone for Encoding<T> {
    fn clone(&self) -> Self {
        match self {
            Encoding::Plain(e) => Encoding::Plain(*e),
            Encoding::Element(e) => Encoding::Element(*e),
            Encoding::Via(e) => Encoding::Via(e.clone()),
        }
    }
}

/// A nested path below a field: a map member, a map entry or a list element, typed by what it
/// holds. It has the comparisons of a [`Field`](super::Field) (for conditions and filters)
/// and its update operations.
pub struct Member<F, T> {
    path: Path,
    encoding: Encoding<T>,
    codec: &'static str,
    _facet: PhantomData<fn() -> F>,
}

impl<F, T> Clone for Member<F, T> {
    fn clone(&self) -> Self {
        Member {
            path: self.path.clone(),
            encoding: self.encoding.clone(),
            codec: self.codec,
            _facet: PhantomData,
        }
    }
}

impl<F, T> std::fmt::Debug for Member<F, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Member({})", self.path)
    }
}

impl<F, T> Member<F, T> {
    /// A member stored by `encode`.
    pub(crate) fn plain(path: Path, encode: Encoder<T>) -> Self {
        Member::with(path, Encoding::Plain(encode), "")
    }

    /// An element of a list field stored by `encode` (the field's codec `codec`).
    pub(crate) fn element(path: Path, encode: Encoder<Vec<T>>, codec: &'static str) -> Self {
        Member::with(path, Encoding::Element(encode), codec)
    }

    /// A member whose values `encode` stores.
    pub(crate) fn via(
        path: Path,
        encode: Arc<dyn Fn(T) -> Value + Send + Sync>,
        codec: &'static str,
    ) -> Self {
        Member::with(path, Encoding::Via(encode), codec)
    }

    fn with(path: Path, encoding: Encoding<T>, codec: &'static str) -> Self {
        Member {
            path,
            encoding,
            codec,
            _facet: PhantomData,
        }
    }

    /// The document path of the member.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The serializer text of the field that holds it.
    pub(crate) fn codec_text(&self) -> &'static str {
        self.codec
    }

    /// `value` as stored here (an absent value is an error).
    pub(crate) fn operand(&self, value: T) -> Value {
        match &self.encoding {
            Encoding::Plain(encode) => operand_at(&self.path, *encode, value),
            Encoding::Element(encode) => only_member(
                self.path.root(),
                operand_at(&self.path, *encode, vec![value]),
            ),
            Encoding::Via(encode) => encode(value).map_err(|e| at(&self.path, e)),
        }
    }
}

/// The value of the one entry of a map, as an attribute value: how an entry of a map field
/// is stored (encoded as a map of one through the field's encoder).
pub(crate) fn only_entry(field: &'static str, map: Value) -> Value {
    if let AttributeValue::M(m) = map? {
        if m.len() == 1 {
            if let Some(v) = m.into_values().next() {
                return Ok(v);
            }
        }
    }
    Err(ExprError::Value {
        field,
        reason: "an entry is stored as a map member, but the field's serialization of a map \
                 of one entry is not a map of one member"
            .into(),
    })
}
