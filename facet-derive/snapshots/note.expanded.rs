use ::faceteer::__private_0_1_0 as __faceteer_Note;
///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
#[derive(Debug)]
struct NoteFields {
    ///The `book` attribute.
    pub book: __faceteer_Note::Field<
        Note,
        String,
        String,
        __faceteer_Note::PartOfThePrimaryKey,
    >,
    ///The `note_id` attribute.
    pub note_id: __faceteer_Note::Field<
        Note,
        String,
        String,
        __faceteer_Note::PartOfThePrimaryKey,
    >,
    ///The `body` attribute.
    pub body: __faceteer_Note::Field<Note, String, String, __faceteer_Note::Attribute>,
}
#[automatically_derived]
impl ::core::marker::Copy for NoteFields {}
#[automatically_derived]
impl ::core::clone::Clone for NoteFields {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
#[automatically_derived]
impl __faceteer_Note::Facet for Note {
    const SCHEMA: &'static __faceteer_Note::FacetSchema = &__faceteer_Note::FacetSchema::new(
        "NOTE",
        "_",
        __faceteer_Note::KeySchema::new("PK", "#BOOK", false, &["book"], &[false]),
        __faceteer_Note::KeySchema::new("SK", "#NOTE", false, &["note_id"], &[false]),
        &[],
    );
    const VALIDATE_ON_WRITE: bool = false;
    type Fields = NoteFields;
    #[inline]
    fn fields() -> NoteFields {
        Note::fields()
    }
    #[inline]
    fn primary_key(
        &self,
    ) -> ::core::result::Result<__faceteer_Note::Key<Self>, __faceteer_Note::KeyError> {
        __faceteer_Note::Key::try_from_parts(
            __faceteer_Note::write_key(
                "#BOOK",
                "_",
                false,
                ::core::option::Option::None,
                &["book"],
                &[__faceteer_Note::key_part::<String>(&self.book)],
            )?,
            __faceteer_Note::write_key(
                "#NOTE",
                "_",
                false,
                ::core::option::Option::None,
                &["note_id"],
                &[__faceteer_Note::key_part::<String>(&self.note_id)],
            )?,
        )
    }
    #[inline]
    fn write_index_keys(
        &self,
        __item: &mut __faceteer_Note::Item,
        __keys: &mut __faceteer_Note::KeyLengths,
    ) -> ::core::result::Result<(), __faceteer_Note::KeyError> {
        let _ = (__item, __keys);
        ::core::result::Result::Ok(())
    }
    #[inline]
    fn ttl_seconds(&self) -> ::core::option::Option<i64> {
        ::core::option::Option::None
    }
    #[inline]
    fn own_attributes(
        &self,
        __room: usize,
    ) -> ::core::option::Option<__faceteer_Note::FieldWriter> {
        #[allow(unused_imports)]
        use __faceteer_Note::{ByPlain as _, BySerde as _, Value as __V};
        let mut __w = __faceteer_Note::FieldWriter::with_capacity(3usize + __room);
        (&&__V(&self.book)).put_in(&mut __w, "book");
        (&&__V(&self.note_id)).put_in(&mut __w, "note_id");
        (&&__V(&self.body)).put_in(&mut __w, "body");
        ::core::option::Option::Some(__w)
    }
    const ATTRIBUTES: &'static [&'static str] = &["book", "note_id", "body"];
    const FIELDS: &'static [__faceteer_Note::FieldSchema] = &[
        __faceteer_Note::FieldSchema::new("book", "book", "String", true, false, false),
        __faceteer_Note::FieldSchema::new(
            "note_id",
            "note_id",
            "String",
            true,
            false,
            false,
        ),
        __faceteer_Note::FieldSchema::new("body", "body", "String", true, false, false),
    ];
}
#[automatically_derived]
impl __faceteer_Note::BatchDeletable for Note {}
#[automatically_derived]
impl __faceteer_Note::BatchWritable for Note {}
impl Note {
    ///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
    #[inline]
    pub const fn fields() -> NoteFields {
        NoteFields {
            book: __faceteer_Note::Field::numbered("book", 0u16),
            note_id: __faceteer_Note::Field::numbered("note_id", 1u16),
            body: __faceteer_Note::Field::numbered("body", 2u16),
        }
    }
    /**The key of the `NOTE` record identified by `book`, `note_id`.

Fails with `Error::Key` when a key value contains the delimiter where it would make the key ambiguous, or when the partition key would start with `$unique`, the partition of the guard items of unique values.*/
    #[inline]
    pub fn key(
        book: impl __faceteer_Note::KeyArg<String>,
        note_id: impl __faceteer_Note::KeyArg<String>,
    ) -> ::core::result::Result<__faceteer_Note::Key<Self>, __faceteer_Note::Error> {
        ::core::result::Result::Ok(
            __faceteer_Note::Key::try_from_parts(
                __faceteer_Note::write_key(
                    "#BOOK",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["book"],
                    &[&__faceteer_Note::KeyArg::<String>::key_part(&book)],
                )?,
                __faceteer_Note::write_key(
                    "#NOTE",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["note_id"],
                    &[&__faceteer_Note::KeyArg::<String>::key_part(&note_id)],
                )?,
            )?,
        )
    }
    /**Query the base table in the partition given by `book`.

Sort-key arguments of the operators are the sort-key field(s): `note_id`.*/
    #[inline]
    pub fn query(
        book: impl __faceteer_Note::KeyArg<String>,
    ) -> __faceteer_Note::PartitionQuery<
        Self,
        __faceteer_Note::One<String>,
        __faceteer_Note::BaseTable,
    > {
        __faceteer_Note::PartitionQuery::new(
            ::core::option::Option::None,
            ::core::option::Option::Some(&<Self as __faceteer_Note::Facet>::SCHEMA.sk),
            __faceteer_Note::PartitionKey::new(
                "PK",
                "#BOOK",
                "_",
                __faceteer_Note::ShardChoice::Unsharded,
                __faceteer_Note::write_key(
                    "",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["book"],
                    &[&__faceteer_Note::KeyArg::<String>::key_part(&book)],
                ),
            ),
        )
    }
}
