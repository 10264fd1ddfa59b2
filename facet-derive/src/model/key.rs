//! Keys: which fields a key is written from, its prefix and its shard.

/// Which key of a table or index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRole {
    /// The partition key (`PK`, `GSInPK`).
    Partition,
    /// The sort key (`SK`, `GSInSK`).
    Sort,
}

impl KeyRole {
    /// Both roles, partition first.
    pub const BOTH: [KeyRole; 2] = [KeyRole::Partition, KeyRole::Sort];

    /// `pk` or `sk`: the attribute declaring the key (`#[pk]`, `#[facet(sk(..))]`).
    pub fn attr(self) -> &'static str {
        match self {
            KeyRole::Partition => "pk",
            KeyRole::Sort => "sk",
        }
    }

    /// `the partition key` or `the sort key`, for messages.
    pub fn what(self) -> &'static str {
        match self {
            KeyRole::Partition => "the partition key",
            KeyRole::Sort => "the sort key",
        }
    }

    /// `PK` or `SK`: the suffix of the stored key attribute.
    pub fn attribute(self) -> &'static str {
        match self {
            KeyRole::Partition => "PK",
            KeyRole::Sort => "SK",
        }
    }
}

/// One field of a key.
#[derive(Clone, Copy)]
pub struct KeyPartRef {
    /// The field's position.
    pub field: usize,
    /// Written with the order-preserving integer encoding.
    pub sortable: bool,
}

/// The shard of a partition key.
#[derive(Clone)]
pub struct ShardModel {
    /// The shard count (the first period's, when there is a schedule).
    pub count: u32,
    /// The fields hashed into the shard id.
    pub fields: Vec<usize>,
    /// Later counts: (from, epoch seconds; count).
    pub schedule: Vec<(i64, u32)>,
    /// The time field choosing a record's period.
    pub time: Option<usize>,
}

impl ShardModel {
    /// The fields the shard id is computed from: the hashed fields, then the time field.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.fields.iter().copied().chain(self.time)
    }
}

/// One key: `PK`, `SK`, `GSInPK`, `GSInSK` or `LSInSK`.
#[derive(Clone)]
pub struct KeyModel {
    /// Partition or sort key.
    pub role: KeyRole,
    /// The stored attribute (`PK`, `GSI1SK`, …).
    pub attribute: String,
    /// The key's constant prefix (empty with `no_prefix`).
    pub prefix: String,
    /// `no_prefix`: the key is its values alone, joined by the delimiter.
    pub no_prefix: bool,
    /// The fields written after the prefix, in order.
    pub parts: Vec<KeyPartRef>,
    /// The shard, for a sharded partition key.
    pub shard: Option<ShardModel>,
}

impl KeyModel {
    /// Whether field `i` is one of the key's fields (its parts or shard inputs).
    pub fn uses(&self, i: usize) -> bool {
        self.inputs().any(|f| f == i)
    }

    /// The fields the key is built from: its parts, then its shard inputs.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.parts
            .iter()
            .map(|p| p.field)
            .chain(self.shard.iter().flat_map(|s| s.inputs()))
    }
}
