use ::faceteer::__private_0_1_0 as __faceteer_Task;
///Typed handles on the attributes of `Task`, for conditions and filters (`Task::fields()`).
pub struct TaskFields {
    ///The `teamId` attribute.
    pub team_id: __faceteer_Task::Field<
        Task,
        String,
        String,
        __faceteer_Task::PartOfThePrimaryKey,
    >,
    ///The `taskId` attribute.
    pub task_id: __faceteer_Task::Field<
        Task,
        String,
        String,
        __faceteer_Task::PartOfThePrimaryKey,
    >,
    ///The `dueDay` attribute.
    pub due_day: __faceteer_Task::Field<
        Task,
        u32,
        u32,
        __faceteer_Task::PartOfAnIndexKeyOrTheTtl,
    >,
    ///The `assignedUserId` attribute.
    pub assigned_user_id: __faceteer_Task::Field<
        Task,
        String,
        Option<String>,
        __faceteer_Task::PartOfAnIndexKeyOrTheTtl,
    >,
    ///The `status` attribute.
    pub status: __faceteer_Task::Field<
        Task,
        String,
        String,
        __faceteer_Task::PartOfAnIndexKeyOrTheTtl,
    >,
    ///The `title` attribute.
    pub title: __faceteer_Task::Field<Task, String>,
}
#[automatically_derived]
impl ::core::fmt::Debug for TaskFields {
    #[inline]
    fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        __faceteer_Task::debug_handles::<Task>(__f, "TaskFields")
    }
}
#[automatically_derived]
impl ::core::marker::Copy for TaskFields {}
#[automatically_derived]
impl ::core::clone::Clone for TaskFields {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
///The base key fields of a `Task` record, as held by projections (`.key()` gives its key).
#[derive(Debug, Clone)]
#[allow(dead_code)]
pub struct TaskKeys {
    ///The `teamId` key field.
    pub team_id: String,
    ///The `taskId` key field.
    pub task_id: String,
}
#[automatically_derived]
impl __faceteer_Task::FromPicked for TaskKeys {
    const ATTRIBUTES: &'static [&'static str] = &["teamId", "taskId"];
    #[inline]
    fn from_picked(
        __item: &__faceteer_Task::Item,
    ) -> __faceteer_Task::Result<Self, __faceteer_Task::DynamoError> {
        __faceteer_Task::Ok(TaskKeys {
            team_id: __faceteer_Task::read_attribute(__item, "teamId")?,
            task_id: __faceteer_Task::read_attribute(__item, "taskId")?,
        })
    }
}
#[automatically_derived]
impl __faceteer_Task::KeyFields for TaskKeys {}
impl TaskKeys {
    /// The base-table key of the record whose key fields these are.
    #[inline]
    pub fn key(
        &self,
    ) -> __faceteer_Task::Result<__faceteer_Task::Key<Task>, __faceteer_Task::Error> {
        __faceteer_Task::Ok(<Task as __faceteer_Task::PickValidator>::keys_to_key(self)?)
    }
}
#[automatically_derived]
impl __faceteer_Task::PickValidator for Task {
    type Keys = TaskKeys;
    #[inline]
    fn keys_to_key(
        __k: &TaskKeys,
    ) -> __faceteer_Task::Result<__faceteer_Task::Key<Self>, __faceteer_Task::KeyError> {
        __faceteer_Task::schema_key::<
            Self,
        >(
            &[
                (0u16, __faceteer_Task::key_part::<String>(&__k.team_id)),
                (1u16, __faceteer_Task::key_part::<String>(&__k.task_id)),
            ],
        )
    }
    #[inline]
    fn validate_pick(
        __item: &__faceteer_Task::Item,
        __attributes: &[&'static str],
    ) -> __faceteer_Task::Result<(), ::std::string::String> {
        __faceteer_Task::Ok(())
    }
}
///The key fields of index `GSI1` of `Task`, as held by projections read through it.
#[derive(Debug, Clone)]
#[allow(dead_code)]
pub struct TaskGsi1Keys {
    ///The `teamId` key field.
    pub team_id: String,
    ///The `dueDay` key field.
    pub due_day: u32,
}
#[automatically_derived]
impl __faceteer_Task::FromPicked for TaskGsi1Keys {
    const ATTRIBUTES: &'static [&'static str] = &["teamId", "dueDay"];
    #[inline]
    fn from_picked(
        __item: &__faceteer_Task::Item,
    ) -> __faceteer_Task::Result<Self, __faceteer_Task::DynamoError> {
        __faceteer_Task::Ok(TaskGsi1Keys {
            team_id: __faceteer_Task::read_attribute(__item, "teamId")?,
            due_day: __faceteer_Task::read_attribute(__item, "dueDay")?,
        })
    }
}
#[automatically_derived]
impl __faceteer_Task::KeyFields for TaskGsi1Keys {}
#[automatically_derived]
impl<const N: usize> __faceteer_Task::IndexProjects<__faceteer_Task::FieldAt<Task, N>>
for TaskGsi1Keys {}
#[automatically_derived]
impl __faceteer_Task::WholeRecords for TaskGsi1Keys {}
///The key fields of index `GSI2` of `Task`, as held by projections read through it.
#[derive(Debug, Clone)]
#[allow(dead_code)]
pub struct TaskGsi2Keys {
    ///The `assignedUserId` key field.
    pub assigned_user_id: Option<String>,
    ///The `status` key field.
    pub status: String,
}
#[automatically_derived]
impl __faceteer_Task::FromPicked for TaskGsi2Keys {
    const ATTRIBUTES: &'static [&'static str] = &["assignedUserId", "status"];
    #[inline]
    fn from_picked(
        __item: &__faceteer_Task::Item,
    ) -> __faceteer_Task::Result<Self, __faceteer_Task::DynamoError> {
        __faceteer_Task::Ok(TaskGsi2Keys {
            assigned_user_id: __faceteer_Task::read_attribute(__item, "assignedUserId")?,
            status: __faceteer_Task::read_attribute(__item, "status")?,
        })
    }
}
#[automatically_derived]
impl __faceteer_Task::KeyFields for TaskGsi2Keys {}
#[automatically_derived]
impl<const N: usize> __faceteer_Task::IndexProjects<__faceteer_Task::FieldAt<Task, N>>
for TaskGsi2Keys {}
#[automatically_derived]
impl __faceteer_Task::WholeRecords for TaskGsi2Keys {}
#[automatically_derived]
impl __faceteer_Task::Facet for Task {
    const SCHEMA: &'static __faceteer_Task::FacetSchema = &__faceteer_Task::FacetSchema::new(
        "TASK",
        "_",
        __faceteer_Task::KeySchema::new("PK", "#TEAM", false, &["teamId"], &[false]),
        __faceteer_Task::KeySchema::new("SK", "#TASK", false, &["taskId"], &[false]),
        &[
            __faceteer_Task::IndexSchema::new(
                    __faceteer_Task::IndexKind::Global,
                    1u8,
                    "GSI1",
                    __faceteer_Task::KeySchema::new(
                        "GSI1PK",
                        "#TEAM",
                        false,
                        &["teamId"],
                        &[false],
                    ),
                )
                .sorted(
                    __faceteer_Task::KeySchema::new(
                        "GSI1SK",
                        "#DUE",
                        false,
                        &["dueDay"],
                        &[false],
                    ),
                )
                .alias("TeamDueDate"),
            __faceteer_Task::IndexSchema::new(
                    __faceteer_Task::IndexKind::Global,
                    2u8,
                    "GSI2",
                    __faceteer_Task::KeySchema::new(
                            "GSI2PK",
                            "#USER",
                            false,
                            &["assignedUserId"],
                            &[true],
                        )
                        .sharded(__faceteer_Task::ShardSchema {
                            count: 4u32,
                            fields: &["status"],
                            schedule: &[],
                            time_field: __faceteer_Task::None,
                        }),
                )
                .sorted(
                    __faceteer_Task::KeySchema::new(
                        "GSI2SK",
                        "#STATUS",
                        false,
                        &["status"],
                        &[false],
                    ),
                ),
        ],
    );
    type Fields = TaskFields;
    #[inline]
    fn fields() -> TaskFields {
        Task::fields()
    }
    const KEY_FIELDS: &'static [&'static dyn __faceteer_Task::KeyField<Self>] = &[
        &__faceteer_Task::RequiredKey::<Self, String>::new(0u16, |__r| &__r.team_id)
            .parsed(),
        &__faceteer_Task::RequiredKey::<Self, String>::new(1u16, |__r| &__r.task_id)
            .parsed(),
        &__faceteer_Task::RequiredKey::<Self, u32>::new(2u16, |__r| &__r.due_day)
            .sortable(),
        &__faceteer_Task::OptionalKey::<
            Self,
            String,
        >::new(3u16, |__r| &__r.assigned_user_id),
        &__faceteer_Task::RequiredKey::<Self, String>::new(4u16, |__r| &__r.status),
    ];
    const KEY_LAYOUT: &'static [__faceteer_Task::KeyLayout] = &[
        __faceteer_Task::KeyLayout::of(&[(0u16, false)]),
        __faceteer_Task::KeyLayout::of(&[(1u16, false)]),
        __faceteer_Task::KeyLayout::of(&[(0u16, false)]),
        __faceteer_Task::KeyLayout::of(&[(2u16, true)]),
        __faceteer_Task::KeyLayout::sharded(
            &[(3u16, false)],
            &[4u16],
            __faceteer_Task::None,
        ),
        __faceteer_Task::KeyLayout::of(&[(4u16, false)]),
    ];
    const KEY_WRITER: __faceteer_Task::Option<
        &'static dyn __faceteer_Task::WriteKeys<Self>,
    > = __faceteer_Task::Some(&__faceteer_Task::SchemaKeys);
    #[inline]
    fn own_attributes(
        &self,
        __room: usize,
    ) -> __faceteer_Task::Option<__faceteer_Task::FieldWriter> {
        #[allow(unused_imports)]
        use __faceteer_Task::{ByPlain as _, BySerde as _, Value as __V};
        let mut __w = __faceteer_Task::FieldWriter::with_capacity(
            5usize + ::core::option::Option::is_some(&self.assigned_user_id) as usize
                + __room,
        );
        (&&__V(&self.team_id)).put_in(&mut __w, "teamId");
        (&&__V(&self.task_id)).put_in(&mut __w, "taskId");
        (&&__V(&self.due_day)).put_in(&mut __w, "dueDay");
        (&&__V(&self.assigned_user_id)).put_in(&mut __w, "assignedUserId");
        (&&__V(&self.status)).put_in(&mut __w, "status");
        (&&__V(&self.title)).put_in(&mut __w, "title");
        __faceteer_Task::Some(__w)
    }
    const ATTRIBUTES: &'static [&'static str] = &[
        "teamId",
        "taskId",
        "dueDay",
        "assignedUserId",
        "status",
        "title",
    ];
    const FIELDS: &'static [__faceteer_Task::FieldSchema] = &[
        __faceteer_Task::FieldSchema::new(
            "team_id",
            "teamId",
            "String",
            true,
            false,
            false,
        ),
        __faceteer_Task::FieldSchema::new(
            "task_id",
            "taskId",
            "String",
            true,
            false,
            false,
        ),
        __faceteer_Task::FieldSchema::new("due_day", "dueDay", "u32", true, false, false)
            .sortable_in(&["GSI1SK"]),
        __faceteer_Task::FieldSchema::new(
            "assigned_user_id",
            "assignedUserId",
            "Option<String>",
            true,
            true,
            false,
        ),
        __faceteer_Task::FieldSchema::new(
            "status",
            "status",
            "String",
            true,
            false,
            false,
        ),
        __faceteer_Task::FieldSchema::new("title", "title", "String", true, false, false),
    ];
}
#[automatically_derived]
impl __faceteer_Task::BatchDeletable for Task {}
#[automatically_derived]
impl __faceteer_Task::BatchWritable for Task {}
impl Task {
    ///Typed handles on the attributes of `Task`, for conditions and filters (`Task::fields()`).
    #[inline]
    pub const fn fields() -> TaskFields {
        TaskFields {
            team_id: __faceteer_Task::Field::numbered("teamId", 0u16),
            task_id: __faceteer_Task::Field::numbered("taskId", 1u16),
            due_day: __faceteer_Task::Field::numbered("dueDay", 2u16),
            assigned_user_id: __faceteer_Task::Field::numbered("assignedUserId", 3u16),
            status: __faceteer_Task::Field::numbered("status", 4u16),
            title: __faceteer_Task::Field::numbered("title", 5u16),
        }
    }
    /**The key of the `TASK` record identified by `team_id`, `task_id`.

Fails with `Error::Key` when a key value contains the delimiter where it would make the key ambiguous, or when the partition key would start with `$unique`, the partition of the guard items of unique values.*/
    #[inline]
    pub fn key(
        team_id: impl __faceteer_Task::KeyArg<String>,
        task_id: impl __faceteer_Task::KeyArg<String>,
    ) -> __faceteer_Task::Result<__faceteer_Task::Key<Self>, __faceteer_Task::Error> {
        __faceteer_Task::Ok(
            __faceteer_Task::schema_key::<
                Self,
            >(
                &[
                    (0u16, &__faceteer_Task::key_arg(&team_id)),
                    (1u16, &__faceteer_Task::key_arg(&task_id)),
                ],
            )?,
        )
    }
    /**Query the base table in the partition given by `team_id`.

Sort-key arguments of the operators are the sort-key field(s): `task_id`.*/
    pub fn query(
        team_id: impl __faceteer_Task::KeyArg<String>,
    ) -> __faceteer_Task::PartitionQuery<Self, __faceteer_Task::One<String>> {
        __faceteer_Task::PartitionQuery::of(
            __faceteer_Task::None,
            &[&__faceteer_Task::key_arg(&team_id)],
        )
    }
    /**Query global index `GSI1` (`TeamDueDate`) in the partition given by `team_id`.

Sort-key arguments of the operators are the index's sort-key field(s): `due_day`.*/
    pub fn gsi1(
        team_id: impl __faceteer_Task::KeyArg<String>,
    ) -> __faceteer_Task::PartitionQuery<
        Self,
        __faceteer_Task::One<__faceteer_Task::Sortable<u32>>,
        TaskGsi1Keys,
    > {
        __faceteer_Task::PartitionQuery::of(
            __faceteer_Task::Some(0usize),
            &[&__faceteer_Task::key_arg(&team_id)],
        )
    }
    ///The same as [`Self::gsi1`].
    pub fn by_team_due_date(
        team_id: impl __faceteer_Task::KeyArg<String>,
    ) -> __faceteer_Task::PartitionQuery<
        Self,
        __faceteer_Task::One<__faceteer_Task::Sortable<u32>>,
        TaskGsi1Keys,
    > {
        Self::gsi1(team_id)
    }
    /**Query global index `GSI2` in the partition given by `assigned_user_id`.

Sort-key arguments of the operators are the index's sort-key field(s): `status`.*/
    #[inline]
    pub fn gsi2(
        assigned_user_id: __faceteer_Task::Option<&str>,
    ) -> __faceteer_Task::PartitionQuery<
        Self,
        __faceteer_Task::One<String>,
        TaskGsi2Keys,
    > {
        __faceteer_Task::PartitionQuery::of(
            __faceteer_Task::Some(1usize),
            &[&assigned_user_id],
        )
    }
}
