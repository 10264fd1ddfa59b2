//! Where a backfill stands: one cursor per segment of its parallel scan.

use serde::{Deserialize, Serialize};

/// How far a backfill has gone: for each segment of its parallel scan, whether it has
/// started, the key of the last item it finished, or that it is done.
///
/// Every progress report carries one ([`Progress::checkpoint`](super::Progress)); store it
/// (as [`Checkpoint::to_text`] or with serde) and pass it to
/// [`Backfill::resume_from`](super::Backfill::resume_from) to go on after a crash or a stop
/// without scanning finished segments again. A page is recorded once every item of it is
/// settled, so a resumed backfill reads at most one page per segment again; rewrites are
/// conditional and find those items already right. Items that failed before the checkpoint
/// are in the stopped run's progress and reports, not in the checkpoint: a later run from
/// the start (not resumed) finds them again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    segments: Vec<Segment>,
}

/// One segment of a backfill's parallel scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Segment {
    /// Not started.
    Start,
    /// Scanned up to and including the item under this key (`PK`, `SK`).
    After {
        /// The partition key of the last item finished.
        pk: String,
        /// Its sort key.
        sk: String,
    },
    /// Scanned to the end.
    Done,
}

/// A checkpoint's text that does not read as one.
#[derive(Debug, thiserror::Error)]
#[error("not a backfill checkpoint: {0}")]
pub struct CheckpointError(String);

impl Checkpoint {
    /// A backfill that has not started, over `segments` segments.
    pub fn start(segments: u32) -> Checkpoint {
        Checkpoint {
            segments: vec![Segment::Start; segments.max(1) as usize],
        }
    }

    /// The segments, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Whether every segment is done.
    pub fn is_done(&self) -> bool {
        self.segments.iter().all(|s| *s == Segment::Done)
    }

    /// How many segments are done.
    pub fn segments_done(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| **s == Segment::Done)
            .count()
    }

    pub(crate) fn set(&mut self, segment: usize, state: Segment) {
        if let Some(s) = self.segments.get_mut(segment) {
            *s = state;
        }
    }

    /// The checkpoint as URL-safe text (CBOR, base64), to store anywhere.
    pub fn to_text(&self) -> String {
        crate::codec::to_text(self)
    }

    /// Read a checkpoint written by [`Checkpoint::to_text`].
    pub fn from_text(text: &str) -> Result<Checkpoint, CheckpointError> {
        let checkpoint: Checkpoint = crate::codec::from_text(text).map_err(CheckpointError)?;
        if checkpoint.segments.is_empty() {
            return Err(CheckpointError("it has no segments".into()));
        }
        Ok(checkpoint)
    }
}

impl std::fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl std::str::FromStr for Checkpoint {
    type Err = CheckpointError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Checkpoint::from_text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_garbage_is_refused() {
        let mut c = Checkpoint::start(3);
        c.set(
            1,
            Segment::After {
                pk: "#USER_1".into(),
                sk: "#ID_a".into(),
            },
        );
        c.set(2, Segment::Done);
        let back: Checkpoint = c.to_text().parse().unwrap();
        assert_eq!(back, c);
        assert_eq!(back.segments_done(), 1);
        assert!(!back.is_done());
        assert!(Checkpoint::from_text("not a checkpoint!").is_err());
        assert!(Checkpoint::from_text("").is_err());
    }
}
