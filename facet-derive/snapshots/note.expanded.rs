///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
#[derive(Debug)]
struct NoteFields {
    ///The `book` attribute.
    pub book: ::faceteer::__private_0_1_0::Field<
        Note,
        String,
        String,
        ::faceteer::__private_0_1_0::PartOfThePrimaryKey,
    >,
    ///The `note_id` attribute.
    pub note_id: ::faceteer::__private_0_1_0::Field<
        Note,
        String,
        String,
        ::faceteer::__private_0_1_0::PartOfThePrimaryKey,
    >,
    ///The `body` attribute.
    pub body: ::faceteer::__private_0_1_0::Field<
        Note,
        String,
        String,
        ::faceteer::__private_0_1_0::Attribute,
    >,
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
impl ::faceteer::__private_0_1_0::Facet for Note {
    const SCHEMA: &'static ::faceteer::__private_0_1_0::FacetSchema = &::faceteer::__private_0_1_0::FacetSchema::new(
        "NOTE",
        "_",
        ::faceteer::__private_0_1_0::KeySchema::new(
            "PK",
            "#BOOK",
            false,
            &["book"],
            &[false],
        ),
        ::faceteer::__private_0_1_0::KeySchema::new(
            "SK",
            "#NOTE",
            false,
            &["note_id"],
            &[false],
        ),
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
    ) -> ::core::result::Result<
        ::faceteer::__private_0_1_0::Key<Self>,
        ::faceteer::__private_0_1_0::KeyError,
    > {
        ::faceteer::__private_0_1_0::Key::try_from_parts(
            ::faceteer::__private_0_1_0::write_key(
                "#BOOK",
                "_",
                false,
                ::core::option::Option::None,
                &["book"],
                &[::faceteer::__private_0_1_0::key_part::<String>(&self.book)],
            )?,
            ::faceteer::__private_0_1_0::write_key(
                "#NOTE",
                "_",
                false,
                ::core::option::Option::None,
                &["note_id"],
                &[::faceteer::__private_0_1_0::key_part::<String>(&self.note_id)],
            )?,
        )
    }
    #[inline]
    fn write_index_keys(
        &self,
        __item: &mut ::faceteer::__private_0_1_0::Item,
        __keys: &mut ::faceteer::__private_0_1_0::KeyLengths,
    ) -> ::core::result::Result<(), ::faceteer::__private_0_1_0::KeyError> {
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
    ) -> ::core::option::Option<::faceteer::__private_0_1_0::FieldWriter> {
        #[allow(unused_imports)]
        use ::faceteer::__private_0_1_0::{ByPlain as _, BySerde as _, Value as __V};
        let mut __w = ::faceteer::__private_0_1_0::FieldWriter::with_capacity(
            3usize + __room,
        );
        (&&__V(&self.book)).put_in(&mut __w, "book");
        (&&__V(&self.note_id)).put_in(&mut __w, "note_id");
        (&&__V(&self.body)).put_in(&mut __w, "body");
        ::core::option::Option::Some(__w)
    }
    const ATTRIBUTES: &'static [&'static str] = &["book", "note_id", "body"];
    const FIELDS: &'static [::faceteer::__private_0_1_0::FieldSchema] = &[
        ::faceteer::__private_0_1_0::FieldSchema::new(
            "book",
            "book",
            "String",
            true,
            false,
            false,
        ),
        ::faceteer::__private_0_1_0::FieldSchema::new(
            "note_id",
            "note_id",
            "String",
            true,
            false,
            false,
        ),
        ::faceteer::__private_0_1_0::FieldSchema::new(
            "body",
            "body",
            "String",
            true,
            false,
            false,
        ),
    ];
}
#[automatically_derived]
impl ::faceteer::__private_0_1_0::BatchDeletable for Note {}
#[automatically_derived]
impl ::faceteer::__private_0_1_0::BatchWritable for Note {}
#[automatically_derived]
impl Note {
    ///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
    #[inline]
    pub const fn fields() -> NoteFields {
        NoteFields {
            book: ::faceteer::__private_0_1_0::Field::numbered("book", 0u16),
            note_id: ::faceteer::__private_0_1_0::Field::numbered("note_id", 1u16),
            body: ::faceteer::__private_0_1_0::Field::numbered("body", 2u16),
        }
    }
    /**The key of the `NOTE` record identified by `book`, `note_id`.

Fails with `Error::Key` when a key value contains the delimiter where it would make the key ambiguous, or when the partition key would start with `$unique`, the partition of the guard items of unique values.*/
    #[inline]
    pub fn key(
        book: impl ::faceteer::__private_0_1_0::KeyArg<String>,
        note_id: impl ::faceteer::__private_0_1_0::KeyArg<String>,
    ) -> ::core::result::Result<
        ::faceteer::__private_0_1_0::Key<Self>,
        ::faceteer::__private_0_1_0::Error,
    > {
        ::core::result::Result::Ok(
            ::faceteer::__private_0_1_0::Key::try_from_parts(
                ::faceteer::__private_0_1_0::write_key(
                    "#BOOK",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["book"],
                    &[&::faceteer::__private_0_1_0::KeyArg::<String>::key_part(&book)],
                )?,
                ::faceteer::__private_0_1_0::write_key(
                    "#NOTE",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["note_id"],
                    &[&::faceteer::__private_0_1_0::KeyArg::<String>::key_part(&note_id)],
                )?,
            )?,
        )
    }
    /**Query the base table in the partition given by `book`.

Sort-key arguments of the operators are the sort-key field(s): `note_id`.*/
    #[inline]
    pub fn query(
        book: impl ::faceteer::__private_0_1_0::KeyArg<String>,
    ) -> ::faceteer::__private_0_1_0::PartitionQuery<
        Self,
        ::faceteer::__private_0_1_0::One<String>,
        ::faceteer::__private_0_1_0::BaseTable,
    > {
        ::faceteer::__private_0_1_0::PartitionQuery::new(
            ::core::option::Option::None,
            ::core::option::Option::Some(
                &<Self as ::faceteer::__private_0_1_0::Facet>::SCHEMA.sk,
            ),
            ::faceteer::__private_0_1_0::PartitionKey::new(
                "PK",
                "#BOOK",
                "_",
                ::faceteer::__private_0_1_0::ShardChoice::Unsharded,
                ::faceteer::__private_0_1_0::write_key(
                    "",
                    "_",
                    false,
                    ::core::option::Option::None,
                    &["book"],
                    &[&::faceteer::__private_0_1_0::KeyArg::<String>::key_part(&book)],
                ),
            ),
        )
    }
}
