//! What a single-item write or a transaction does when its answer is lost
//! ([`Table::with_lost_answers`](crate::Table::with_lost_answers)).

/// What a single-item write or a transaction does when the answer to a try is lost (a
/// timeout, a reset connection, a 5xx) and the try may have been applied.
///
/// Whatever the choice, a write returns `Ok` only when it was applied exactly once, a
/// "not applied" error only when it certainly was not, and otherwise
/// [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) — whatever other writers do to the
/// same record meanwhile. The choice trades requests and capacity for fewer unknown outcomes.
/// Neither stores anything in the record: a table written either way holds exactly what a
/// Faceteer put of the record holds.
///
/// | | [`Report`](LostAnswers::Report) (default) | [`Resend`](LostAnswers::Resend) |
/// |---|---|---|
/// | a try answered (applied, condition failed) | its answer | its answer |
/// | a try throttled, or canceled by a conflicting transaction | sent again (certainly not applied) | the same |
/// | a try whose answer is lost | `OutcomeUnknown` at once | sent again with the same token, up to [`BatchOptions::write_attempts`](crate::BatchOptions::write_attempts) tries within the call's deadline |
/// | put, delete, update (without a returned record) | `PutItem` / `DeleteItem` / `UpdateItem`, 1 write unit per KB | a one-step `TransactWriteItems` with a `ClientRequestToken`: 2 write units per KB |
/// | update returning the record (`returning_new` / `returning_old`) | `UpdateItem` | `UpdateItem`; a lost answer is `OutcomeUnknown` (a transaction returns no record) |
/// | transaction | `TransactWriteItems`, `OutcomeUnknown` on a lost answer | sent again with its `ClientRequestToken` |
/// | servers | any | those that keep `ClientRequestToken`s for 10 minutes: DynamoDB, the embedded engine; **not moto** |
///
/// Why not resend a write whose answer is lost without a token? Because another writer may
/// act in between: an `append` sent again after another writer's `append` applies twice, a
/// `put().if_not_exists()` sent again after another writer deleted the record brings it
/// back, and a request delayed in the network may land after its own resend. No condition on
/// the record can tell an earlier try from another writer's write without storing a token in
/// the record, which strict readers refuse.
///
/// With `Resend`, after a try whose answer was lost, any answer but success is reported as
/// `OutcomeUnknown` too: the lost try may still be in the network and land later. DynamoDB
/// forgets a token 10 minutes after its first use; keep [`Timeouts::call`](crate::Timeouts)
/// well under that (the default is 45 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum LostAnswers {
    /// A try that may have been applied is never sent again: the write fails with
    /// `OutcomeUnknown`. A try that certainly was not applied and may pass another time
    /// (throttled, canceled by a conflicting transaction, never sent) is sent again. The
    /// cheapest choice, exact on every server.
    #[default]
    Report,
    /// Writes are sent so that a server keeping `ClientRequestToken`s applies them once
    /// however often they are sent: a try whose answer is lost is sent again. Twice the write
    /// capacity of a plain write.
    Resend,
}
