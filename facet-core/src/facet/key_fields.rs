//! How the schema-driven key writer ([`crate::key_writer`]) reads one key field of a facet: from a
//! record, from a value an update gives, and back from a key's text. `#[derive(Facet)]`
//! generates one [`RequiredKey`] or [`OptionalKey`] per field the facet's keys are built
//! from ([`crate::Facet::KEY_FIELDS`]); the key writer does the rest from the schema.

use std::any::Any;
use std::sync::Arc;

use crate::crypto::BeaconSpec;
use crate::key::{KeyPart, Sortable, SortableText};

/// A value read back from a key's text, typed as its field ([`crate::expr::KeyValue`]).
pub type KeyText = Arc<dyn Any + Send + Sync>;

/// One key field of facet `F`, as the key writer reads it.
pub trait KeyField<F>: Sync {
    /// What the key writer knows of the field: where it is, whether it is optional, its
    /// masking and its beacon.
    fn info(&self) -> &KeyFieldInfo;
    /// The field's value in `record` (an absent optional value writes nothing).
    fn of_record<'a>(&self, record: &'a F) -> &'a dyn KeyPart;
    /// The field's value in `record`, `None` when absent.
    fn present<'a>(&self, record: &'a F) -> Option<&'a dyn KeyPart>;
    /// A value an update gives for the field (held as its type without `Option`); `None`
    /// when it holds another type.
    fn of_value<'a>(&self, value: &'a (dyn Any + Send + Sync)) -> Option<&'a dyn KeyPart>;
    /// The value whose key text `text` is, when the derive made the field readable back
    /// from its key ([`RequiredKey::parsed`]); checked by writing the key again.
    fn parse(&self, text: &str) -> Option<KeyText>;
}

/// What the key writer knows of a key field besides its value.
#[derive(Debug, Clone, Copy)]
pub struct KeyFieldInfo {
    /// The field's position among the facet's fields ([`crate::Facet::FIELDS`]).
    pub position: u16,
    /// The field is an `Option`.
    pub optional: bool,
    /// Registers the facet for masking, for a `#[sensitive]` field.
    pub register: Option<fn()>,
    /// The field's beacon, for a `#[beacon]` field: its keys hold the beacon of its text.
    pub beacon: Option<&'static BeaconSpec>,
}

impl KeyFieldInfo {
    /// Whether the field's value is written as it is: not masked, not beaconed.
    pub fn plain(&self) -> bool {
        self.register.is_none() && self.beacon.is_none()
    }
}

/// What a required and an optional key field share: what the writer knows of it, and how
/// its text is read back.
struct Common {
    info: KeyFieldInfo,
    parse: Option<fn(&str) -> Option<KeyText>>,
}

impl Common {
    const fn new(position: u16, optional: bool) -> Self {
        Common {
            info: KeyFieldInfo {
                position,
                optional,
                register: None,
                beacon: None,
            },
            parse: None,
        }
    }
}

/// A key field of type `T` of facet `F`, read by `get`.
pub struct RequiredKey<F, T> {
    get: for<'a> fn(&'a F) -> &'a T,
    /// `T` as a key part (only [`RequiredKey::new`] requires `T: KeyPart`, so that a field
    /// of another type is reported once, there).
    part: for<'a> fn(&'a T) -> &'a dyn KeyPart,
    common: Common,
}

/// A key field of type `Option<T>` of facet `F`, read by `get`.
pub struct OptionalKey<F, T> {
    get: for<'a> fn(&'a F) -> &'a Option<T>,
    /// `Option<T>` and `T` as key parts.
    part: for<'a> fn(&'a Option<T>) -> &'a dyn KeyPart,
    inner: for<'a> fn(&'a T) -> &'a dyn KeyPart,
    common: Common,
}

/// The value of type `T` whose key text `text` is, typed as held by an update.
fn parse_plain<T>(text: &str) -> Option<KeyText>
where
    T: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    crate::expr::from_key_text::<T>(text).map(|v| Arc::new(v) as KeyText)
}

/// The integer of type `T` whose sortable key text `text` is.
fn parse_sortable<T>(text: &str) -> Option<KeyText>
where
    T: SortableText + Send + Sync + 'static,
{
    T::from_sortable_text(text).map(|v| Arc::new(v) as KeyText)
}

/// The builders both key field kinds have: a field read back from its key, written
/// `sortable`, `#[sensitive]` or `#[beacon]`.
macro_rules! builders {
    ($ty:ident) => {
        impl<F, T: 'static> $ty<F, T> {
            /// The field read back from its key's text (a table key field an index key or
            /// the TTL is built from: an update changing another field of such a key needs
            /// no read for it).
            pub const fn parsed(mut self) -> Self
            where
                T: serde::de::DeserializeOwned + Send + Sync,
            {
                self.common.parse = Some(parse_plain::<T>);
                self
            }

            /// [`Self::parsed`] for a field written `sortable` in the key it is read from.
            pub const fn parsed_sortable(mut self) -> Self
            where
                T: SortableText + Send + Sync,
            {
                self.common.parse = Some(parse_sortable::<T>);
                self
            }

            /// The field is written `sortable` in a key: only an integer can be.
            pub const fn sortable(self) -> Self
            where
                Sortable<T>: KeyPart,
            {
                self
            }

            /// A `#[sensitive]` field: writing it calls `register` (the facet's
            /// `register_sensitive`), so that the keys it is written into print masked.
            pub const fn sensitive(mut self, register: fn()) -> Self {
                self.common.info.register = Some(register);
                self
            }

            /// A `#[beacon]` field: its keys hold the beacon `spec` of its key text.
            pub const fn beacon(mut self, spec: &'static BeaconSpec) -> Self {
                self.common.info.beacon = Some(spec);
                self
            }
        }
    };
}
builders!(RequiredKey);
builders!(OptionalKey);

impl<F, T> RequiredKey<F, T> {
    /// The field at `position`, read from a record by `get`.
    pub const fn new(position: u16, get: for<'a> fn(&'a F) -> &'a T) -> Self
    where
        T: KeyPart,
    {
        RequiredKey {
            get,
            part: crate::key::key_part::<T>,
            common: Common::new(position, false),
        }
    }
}

impl<F, T> OptionalKey<F, T> {
    /// The optional field at `position`, read from a record by `get`.
    pub const fn new(position: u16, get: for<'a> fn(&'a F) -> &'a Option<T>) -> Self
    where
        T: KeyPart,
    {
        OptionalKey {
            get,
            part: crate::key::key_part::<Option<T>>,
            inner: crate::key::key_part::<T>,
            common: Common::new(position, true),
        }
    }
}

/// The [`KeyField`] methods both kinds share (all but reading a record).
macro_rules! shared {
    () => {
        fn info(&self) -> &KeyFieldInfo {
            &self.common.info
        }
        fn of_value<'a>(&self, value: &'a (dyn Any + Send + Sync)) -> Option<&'a dyn KeyPart> {
            value.downcast_ref::<T>().map(self.inner_part())
        }
        fn parse(&self, text: &str) -> Option<KeyText> {
            self.common.parse.and_then(|parse| parse(text))
        }
    };
}

impl<F, T> RequiredKey<F, T> {
    fn inner_part(&self) -> for<'a> fn(&'a T) -> &'a dyn KeyPart {
        self.part
    }
}

impl<F, T> OptionalKey<F, T> {
    fn inner_part(&self) -> for<'a> fn(&'a T) -> &'a dyn KeyPart {
        self.inner
    }
}

impl<F, T: 'static> KeyField<F> for RequiredKey<F, T> {
    shared!();
    fn of_record<'a>(&self, record: &'a F) -> &'a dyn KeyPart {
        (self.part)((self.get)(record))
    }
    fn present<'a>(&self, record: &'a F) -> Option<&'a dyn KeyPart> {
        Some((self.part)((self.get)(record)))
    }
}

impl<F, T: 'static> KeyField<F> for OptionalKey<F, T> {
    shared!();
    fn of_record<'a>(&self, record: &'a F) -> &'a dyn KeyPart {
        (self.part)((self.get)(record))
    }
    fn present<'a>(&self, record: &'a F) -> Option<&'a dyn KeyPart> {
        (self.get)(record).as_ref().map(self.inner)
    }
}

/// One value of a key as the key writer writes it: the field's value (a record's, or one an
/// update gives; `None` for an optional field without one), `sortable` or not, masked and
/// beaconed as its field is. What the derive's generated code once wrote per key part.
#[derive(Clone, Copy)]
pub(crate) struct PartView<'a> {
    /// The value; `None`: an optional field without one (writes nothing).
    pub value: Option<&'a dyn KeyPart>,
    /// The field is optional.
    pub optional: bool,
    /// Written with the order-preserving integer encoding.
    pub sortable: bool,
    /// Registers the facet for masking (a `#[sensitive]` field).
    pub register: Option<fn()>,
    /// The facet's name and the field's beacon (a `#[beacon]` field).
    pub beacon: Option<(&'static str, &'static BeaconSpec)>,
}

impl PartView<'_> {
    /// A placeholder filling unused room.
    pub const EMPTY: PartView<'static> = PartView {
        value: None,
        optional: true,
        sortable: false,
        register: None,
        beacon: None,
    };

    fn write_text(&self, out: &mut String) -> Result<(), String> {
        let Some(value) = self.value else {
            return Ok(());
        };
        if let Some(register) = self.register {
            register();
        }
        if self.sortable {
            value.write_sortable(out)
        } else {
            value.write_key(out)
        }
    }
}

impl KeyPart for PartView<'_> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        match self.beacon {
            None => self.write_text(out),
            Some((facet, spec)) => crate::crypto::Beaconed {
                facet,
                beacon: spec,
                value: &Text(self),
            }
            .write_key(out),
        }
    }

    fn is_present(&self) -> bool {
        self.value.is_some_and(KeyPart::is_present)
    }

    fn is_optional(&self) -> bool {
        self.optional || self.value.is_some_and(KeyPart::is_optional)
    }

    fn is_sensitive(&self) -> bool {
        self.register.is_some()
    }
}

/// A [`PartView`]'s text before its beacon.
struct Text<'v, 'a>(&'v PartView<'a>);

impl KeyPart for Text<'_, '_> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        self.0.write_text(out)
    }
    fn is_present(&self) -> bool {
        self.0.is_present()
    }
    fn is_optional(&self) -> bool {
        self.0.is_optional()
    }
    fn is_sensitive(&self) -> bool {
        self.0.is_sensitive()
    }
}
