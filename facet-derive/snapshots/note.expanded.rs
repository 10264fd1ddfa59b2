use ::faceteer::__private_0_1_0 as __faceteer_Note;
///Typed handles on the attributes of `Note`, for conditions and filters (`Note::fields()`).
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
    pub body: __faceteer_Note::Field<Note, String>,
}
#[automatically_derived]
impl ::core::fmt::Debug for NoteFields {
    #[inline]
    fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        __faceteer_Note::debug_handles::<Note>(__f, "NoteFields")
    }
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
    type Fields = NoteFields;
    #[inline]
    fn fields() -> NoteFields {
        Note::fields()
    }
    const KEY_FIELDS: &'static [&'static dyn __faceteer_Note::KeyField<Self>] = &[
        &__faceteer_Note::RequiredKey::<Self, String>::new(0u16, |__r| &__r.book),
        &__faceteer_Note::RequiredKey::<Self, String>::new(1u16, |__r| &__r.note_id),
    ];
    const KEY_LAYOUT: &'static [__faceteer_Note::KeyLayout] = &[
        __faceteer_Note::KeyLayout::of(&[(0u16, false)]),
        __faceteer_Note::KeyLayout::of(&[(1u16, false)]),
    ];
    const KEY_WRITER: __faceteer_Note::Option<
        &'static dyn __faceteer_Note::WriteKeys<Self>,
    > = __faceteer_Note::Some(&__faceteer_Note::SchemaKeys);
    #[inline]
    fn own_attributes(
        &self,
        __room: usize,
    ) -> __faceteer_Note::Option<__faceteer_Note::FieldWriter> {
        #[allow(unused_imports)]
        use __faceteer_Note::{ByPlain as _, BySerde as _, Value as __V};
        let mut __w = __faceteer_Note::FieldWriter::with_capacity(3usize + __room);
        (&&__V(&self.book)).put_in(&mut __w, "book");
        (&&__V(&self.note_id)).put_in(&mut __w, "note_id");
        (&&__V(&self.body)).put_in(&mut __w, "body");
        __faceteer_Note::Some(__w)
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
    ) -> __faceteer_Note::Result<__faceteer_Note::Key<Self>, __faceteer_Note::Error> {
        __faceteer_Note::Ok(
            __faceteer_Note::schema_key::<
                Self,
            >(
                &[
                    (0u16, &__faceteer_Note::key_arg(&book)),
                    (1u16, &__faceteer_Note::key_arg(&note_id)),
                ],
            )?,
        )
    }
    /**Query the base table in the partition given by `book`.

Sort-key arguments of the operators are the sort-key field(s): `note_id`.*/
    pub fn query(
        book: impl __faceteer_Note::KeyArg<String>,
    ) -> __faceteer_Note::PartitionQuery<Self, __faceteer_Note::One<String>> {
        __faceteer_Note::PartitionQuery::of(
            __faceteer_Note::None,
            &[&__faceteer_Note::key_arg(&book)],
        )
    }
}
