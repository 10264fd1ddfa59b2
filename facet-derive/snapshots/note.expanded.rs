///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
#[derive(Debug, Clone, Copy)]
struct NoteFields {
    ///The `book` attribute.
    pub book: ::faceteer::__private::Field<
        Note,
        String,
        String,
        ::faceteer::__private::PartOfThePrimaryKey,
    >,
    ///The `note_id` attribute.
    pub note_id: ::faceteer::__private::Field<
        Note,
        String,
        String,
        ::faceteer::__private::PartOfThePrimaryKey,
    >,
    ///The `body` attribute.
    pub body: ::faceteer::__private::Field<
        Note,
        String,
        String,
        ::faceteer::__private::Attribute,
    >,
}
#[automatically_derived]
impl ::faceteer::__private::Facet for Note {
    const SCHEMA: &'static ::faceteer::__private::FacetSchema = &::faceteer::__private::FacetSchema {
        name: "NOTE",
        delimiter: "_",
        pk: ::faceteer::__private::KeySchema {
            attribute: "PK",
            prefix: "#BOOK",
            no_prefix: false,
            fields: &["book"],
            optional: &[false],
            shard: ::core::option::Option::None,
        },
        sk: ::faceteer::__private::KeySchema {
            attribute: "SK",
            prefix: "#NOTE",
            no_prefix: false,
            fields: &["note_id"],
            optional: &[false],
            shard: ::core::option::Option::None,
        },
        indexes: &[],
        ttl_field: ::core::option::Option::None,
        unique: &[],
    };
    const VALIDATE_ON_WRITE: bool = false;
    type Fields = NoteFields;
    fn fields() -> NoteFields {
        Note::fields()
    }
    fn primary_key(
        &self,
    ) -> ::core::result::Result<
        ::faceteer::__private::Key<Self>,
        ::faceteer::__private::KeyError,
    > {
        ::faceteer::__private::Key::try_from_parts(
            Self::__faceteer_pk(
                "#BOOK",
                ::core::option::Option::None,
                ::faceteer::__private::key_part::<String>(&self.book),
            )?,
            Self::__faceteer_sk(
                "#NOTE",
                ::core::option::Option::None,
                ::faceteer::__private::key_part::<String>(&self.note_id),
            )?,
        )
    }
    fn write_index_keys(
        &self,
        __item: &mut ::faceteer::__private::Item,
        __keys: &mut ::faceteer::__private::KeyLengths,
    ) -> ::core::result::Result<(), ::faceteer::__private::KeyError> {
        let _ = (__item, __keys);
        ::core::result::Result::Ok(())
    }
    fn ttl_seconds(&self) -> ::core::option::Option<i64> {
        ::core::option::Option::None
    }
    const ATTRIBUTES: &'static [&'static str] = &["book", "note_id", "body"];
}
#[automatically_derived]
impl ::faceteer::__private::BatchDeletable for Note {}
#[automatically_derived]
impl ::faceteer::__private::BatchWritable for Note {}
#[automatically_derived]
impl Note {
    ///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
    pub const fn fields() -> NoteFields {
        NoteFields {
            book: ::faceteer::__private::Field::numbered("book", 0u16),
            note_id: ::faceteer::__private::Field::numbered("note_id", 1u16),
            body: ::faceteer::__private::Field::numbered("body", 2u16),
        }
    }
    /**The key of the `NOTE` record identified by `book`, `note_id`.

Fails with `Error::Key` when a key value contains the delimiter where it would make the key ambiguous, or when the partition key would start with `$unique`, the partition of the guard items of unique values.*/
    pub fn key(
        book: impl ::faceteer::__private::KeyArg<String>,
        note_id: impl ::faceteer::__private::KeyArg<String>,
    ) -> ::core::result::Result<
        ::faceteer::__private::Key<Self>,
        ::faceteer::__private::Error,
    > {
        ::core::result::Result::Ok(
            ::faceteer::__private::Key::try_from_parts(
                Self::__faceteer_pk(
                    "#BOOK",
                    ::core::option::Option::None,
                    &::faceteer::__private::KeyArg::<String>::key_part(&book),
                )?,
                Self::__faceteer_sk(
                    "#NOTE",
                    ::core::option::Option::None,
                    &::faceteer::__private::KeyArg::<String>::key_part(&note_id),
                )?,
            )?,
        )
    }
    /**Query the base table in the partition given by `book`.

Sort-key arguments of the operators are the sort-key field(s): `note_id`.*/
    pub fn query(
        book: impl ::faceteer::__private::KeyArg<String>,
    ) -> ::faceteer::__private::PartitionQuery<
        Self,
        ::faceteer::__private::One<String>,
        ::faceteer::__private::BaseTable,
    > {
        ::faceteer::__private::PartitionQuery::new(
            ::core::option::Option::None,
            ::core::option::Option::Some(
                &<Self as ::faceteer::__private::Facet>::SCHEMA.sk,
            ),
            ::faceteer::__private::PartitionKey::new(
                "PK",
                "#BOOK",
                "_",
                ::faceteer::__private::ShardChoice::Unsharded,
                Self::__faceteer_pk(
                    "",
                    ::core::option::Option::None,
                    &::faceteer::__private::KeyArg::<String>::key_part(&book),
                ),
            ),
        )
    }
    fn __faceteer_pk(
        __prefix: &str,
        __shard: ::core::option::Option<&str>,
        book: &dyn ::faceteer::__private::KeyPart,
    ) -> ::core::result::Result<::std::string::String, ::faceteer::__private::KeyError> {
        let _ = __prefix;
        let mut __w = ::faceteer::__private::KeyWriter::new(__prefix, "_");
        if let ::core::option::Option::Some(__id) = __shard {
            __w.shard(__id);
        }
        __w.part("book", book);
        __w.finish()
    }
    fn __faceteer_sk(
        __prefix: &str,
        __shard: ::core::option::Option<&str>,
        note_id: &dyn ::faceteer::__private::KeyPart,
    ) -> ::core::result::Result<::std::string::String, ::faceteer::__private::KeyError> {
        let _ = __prefix;
        let mut __w = ::faceteer::__private::KeyWriter::new(__prefix, "_");
        if let ::core::option::Option::Some(__id) = __shard {
            __w.shard(__id);
        }
        __w.part("note_id", note_id);
        __w.finish()
    }
}
