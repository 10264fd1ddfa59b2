//! What a comparison or an assignment takes on its right: a value, or a reference to another
//! attribute of the same record (`f.updated.gt(f.created)`), and for `set`, sums of them
//! (`f.balance.set(f.balance + f.pending)`), all typed by the field's value type.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::{Add, Sub};

use super::error::ExprError;
use super::field::{Attribute, Field, NestedAttribute, Numeric, Value};
use super::member::Member;
use super::path::Path;

/// A right-hand side of type `T`: a value, an attribute path (with the text of the
/// serializer it is stored by), or a sum of two.
#[doc(hidden)]
pub enum Rhs<T> {
    /// A value, encoded by the field it is compared with or assigned to.
    Value(T),
    /// Another attribute, stored by the codec named.
    Path(Path, &'static str),
    /// `if_not_exists(path, value)`.
    IfAbsent(Path, &'static str, T),
    /// `a + b` (`'+'`) or `a - b` (`'-'`).
    Sum(Box<Rhs<T>>, char, Box<Rhs<T>>),
}

/// The rendering-ready form of a right-hand side: values encoded, paths checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Side {
    Value(Value),
    Path(Path),
    IfAbsent(Path, Value),
    Sum(Box<Side>, char, Box<Side>),
}

impl Side {
    /// The paths the side reads.
    pub(crate) fn paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Side::Value(_) => {}
            Side::Path(p) | Side::IfAbsent(p, _) => out.push(p),
            Side::Sum(a, _, b) => {
                a.paths(out);
                b.paths(out);
            }
        }
    }
}

impl<T> Rhs<T> {
    /// Encode the values with `encode` (the target's own encoding) and check that every path
    /// is stored as the target is (`codec`, the target's serializer text).
    pub(crate) fn resolve(
        self,
        target: &Path,
        codec: &'static str,
        encode: &dyn Fn(T) -> Value,
    ) -> Side {
        let same = |path: &Path, other: &'static str| -> Result<(), ExprError> {
            if same_codec(codec, other) {
                Ok(())
            } else {
                Err(ExprError::CodecMismatch {
                    left: target.to_string(),
                    left_codec: codec_name(codec),
                    right: path.to_string(),
                    right_codec: codec_name(other),
                })
            }
        };
        match self {
            Rhs::Value(v) => Side::Value(encode(v)),
            Rhs::Path(path, other) => match same(&path, other) {
                Ok(()) => Side::Path(path),
                Err(e) => Side::Value(Err(e)),
            },
            Rhs::IfAbsent(path, other, v) => match same(&path, other) {
                Ok(()) => Side::IfAbsent(path, encode(v)),
                Err(e) => Side::Value(Err(e)),
            },
            Rhs::Sum(a, op, b) => Side::Sum(
                Box::new(a.resolve(target, codec, encode)),
                op,
                Box::new(b.resolve(target, codec, encode)),
            ),
        }
    }
}

/// Whether two serializer texts store values alike (`x::option` and `x_option` store as `x`).
fn same_codec(a: &str, b: &str) -> bool {
    fn base(c: &str) -> &str {
        // `with = "m"` serializes with `m::serialize`.
        let c = c.strip_suffix("::serialize").unwrap_or(c);
        let c = c.strip_suffix("::option").unwrap_or(c);
        c.strip_suffix("_option").unwrap_or(c)
    }
    base(a) == base(b)
}

fn codec_name(codec: &'static str) -> &'static str {
    if codec.is_empty() {
        "faceteer's marshalling"
    } else {
        codec
    }
}

/// What a field holding `T` values of facet `F` can be compared with: a `T` value (a plain
/// integer literal takes the field's integer type: `f.version.eq(3)`), a reference to one,
/// `&str` or `Cow<str>` for a `String` field, or another field or member of `F` holding `T`
/// values (`f.updated.gt(f.created)`: compared on the server, attribute with attribute).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be compared with a `{T}` field of `{F}`",
    label = "expected a `{T}` value, or a field of `{F}` holding `{T}` values",
    note = "a reference to another attribute must hold the same type, in the same facet"
)]
pub trait Operand<F, T> {
    /// The right-hand side.
    #[doc(hidden)]
    fn into_rhs(self) -> Rhs<T>;
}

/// What a field holding `T` values of facet `F`, of kind `K`, can be set to: every
/// [`Operand`], and on a plain attribute or a nested member, a sum (`f.a + f.b`, `f.a - 1`)
/// or an `if_not_exists` (`f.a.or(0)`).
///
/// A field that index keys or the TTL are built from takes values only: its new value must
/// be known so that the update rebuilds those keys.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be assigned to this `{T}` field of `{F}` (it is `{K}`)",
    label = "expected a `{T}` value",
    note = "a field index keys or the TTL are built from must be set to a value (the update \
            rebuilds the keys from it): read the record, and `set(value)`",
    note = "a reference must be to a field of the same facet holding the same type"
)]
pub trait SetValue<F, T, K> {
    /// The right-hand side.
    #[doc(hidden)]
    fn into_rhs(self) -> Rhs<T>;
}

/// What a sum takes on each side: a value, a field or member, or an `if_not_exists`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added to a `{T}` field of `{F}`",
    label = "expected a `{T}` value, or a field of `{F}` holding `{T}` values"
)]
pub trait Term<F, T> {
    /// The right-hand side.
    #[doc(hidden)]
    fn into_rhs(self) -> Rhs<T>;
}

/// The values every trait takes.
macro_rules! values {
    ($tr:ident $(, $k:ident)?) => {
        impl<F, T $(, $k)?> $tr<F, T $(, $k)?> for T {
            fn into_rhs(self) -> Rhs<T> {
                Rhs::Value(self)
            }
        }
        impl<F, T: Clone $(, $k)?> $tr<F, T $(, $k)?> for &T {
            fn into_rhs(self) -> Rhs<T> {
                Rhs::Value(self.clone())
            }
        }
    };
}
values!(Operand);
values!(SetValue, K);
values!(Term);

macro_rules! strings {
    ($tr:ident $(, $k:ident)?) => {
        impl<F $(, $k)?> $tr<F, String $(, $k)?> for &str {
            fn into_rhs(self) -> Rhs<String> {
                Rhs::Value(self.to_owned())
            }
        }
        impl<F $(, $k)?> $tr<F, String $(, $k)?> for Cow<'_, str> {
            fn into_rhs(self) -> Rhs<String> {
                Rhs::Value(self.into_owned())
            }
        }
    };
}
strings!(Operand);
strings!(SetValue, K);

impl<F, T, S, K: super::field::Comparable> Operand<F, T> for Field<F, T, S, K> {
    fn into_rhs(self) -> Rhs<T> {
        Rhs::Path(self.path(), self.codec())
    }
}

impl<F, T> Operand<F, T> for Member<F, T> {
    fn into_rhs(self) -> Rhs<T> {
        Rhs::Path(self.path().clone(), self.codec_text())
    }
}

impl<F, T, S, K: super::field::Comparable> Term<F, T> for Field<F, T, S, K> {
    fn into_rhs(self) -> Rhs<T> {
        Operand::into_rhs(self)
    }
}

impl<F, T> Term<F, T> for Member<F, T> {
    fn into_rhs(self) -> Rhs<T> {
        Operand::into_rhs(self)
    }
}

impl<F, T> Term<F, T> for IfAbsent<F, T> {
    fn into_rhs(self) -> Rhs<T> {
        Rhs::IfAbsent(self.path, self.codec, self.value)
    }
}

/// References, sums and `if_not_exists` assign to plain attributes and nested members only.
macro_rules! assignable {
    ($($k:ty),*) => {$(
        impl<F, T, S, K2: super::field::Comparable> SetValue<F, T, $k> for Field<F, T, S, K2> {
            fn into_rhs(self) -> Rhs<T> {
                Operand::into_rhs(self)
            }
        }
        impl<F, T> SetValue<F, T, $k> for Member<F, T> {
            fn into_rhs(self) -> Rhs<T> {
                Operand::into_rhs(self)
            }
        }
        impl<F, T> SetValue<F, T, $k> for IfAbsent<F, T> {
            fn into_rhs(self) -> Rhs<T> {
                Term::into_rhs(self)
            }
        }
        impl<F, T> SetValue<F, T, $k> for Sum<F, T> {
            fn into_rhs(self) -> Rhs<T> {
                self.rhs
            }
        }
    )*};
}
assignable!(Attribute, NestedAttribute);

/// `a + b` or `a - b` of two numeric operands (DynamoDB allows one `+` or `-` per value of a
/// `SET`): what `f.balance + f.pending` gives, for `set`.
pub struct Sum<F, T> {
    rhs: Rhs<T>,
    _facet: PhantomData<fn() -> F>,
}

/// `if_not_exists(path, value)`: the attribute's value, or `value` when it has none
/// (`f.balance.or(0)`), in a sum or a `set`.
pub struct IfAbsent<F, T> {
    path: Path,
    codec: &'static str,
    value: T,
    _facet: PhantomData<fn() -> F>,
}

impl<F, T> IfAbsent<F, T> {
    pub(crate) fn new(path: Path, codec: &'static str, value: T) -> Self {
        IfAbsent {
            path,
            codec,
            value,
            _facet: PhantomData,
        }
    }
}

fn sum<F, T>(a: Rhs<T>, op: char, b: Rhs<T>) -> Sum<F, T> {
    Sum {
        rhs: Rhs::Sum(Box::new(a), op, Box::new(b)),
        _facet: PhantomData,
    }
}

/// `+` and `-` on a numeric operand.
macro_rules! arithmetic {
    ([$($g:tt)*] $ty:ty, $t:ident) => {
        impl<$($g)*, R: Term<F, $t>> Add<R> for $ty
        where
            $t: Numeric,
        {
            type Output = Sum<F, $t>;
            fn add(self, rhs: R) -> Sum<F, $t> {
                sum(Term::into_rhs(self), '+', rhs.into_rhs())
            }
        }
        impl<$($g)*, R: Term<F, $t>> Sub<R> for $ty
        where
            $t: Numeric,
        {
            type Output = Sum<F, $t>;
            fn sub(self, rhs: R) -> Sum<F, $t> {
                sum(Term::into_rhs(self), '-', rhs.into_rhs())
            }
        }
    };
}
arithmetic!([F, T, S, K: super::field::Comparable] Field<F, T, S, K>, T);
arithmetic!([F, T] Member<F, T>, T);
arithmetic!([F, T] IfAbsent<F, T>, T);
