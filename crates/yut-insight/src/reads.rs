//! The throws of a journal whose sticks the camera read: what the fairness
//! statistics and the measured shares count.
//!
//! A throw counts when its verdict kept the sticks as read (`Verdict::sticks`):
//! four sticks found, each on the mat with its face read, at most one marked.
//! Throws entered by hand have no sticks read and never count; nor does a throw
//! the referee called differently from what its sticks read as (an override or
//! a referee's call: the referee saw something the camera did not). A throw
//! marked as made by the wrong player counts for its stick set and mat but for
//! no thrower.
//!
//! The mark is read wherever the marked stick lies flat face up; at 도 and 뒷도
//! it decides the call (and a doubt sends the throw to the referee), at 개 and
//! 걸 it is the camera's reading alone, which no call checks.
//!
//! Pure.

use serde::Serialize;
use yut_match::{FacesUp, MatchLog, Millis, ThrowNo};
use yut_rules::yut::ThrowResult;

/// One throw whose sticks were read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThrowRead {
    /// 1-based game of the journal, and throw within it.
    pub game: u32,
    pub throw: ThrowNo,
    pub at_ms: Millis,
    pub set: String,
    pub mat: String,
    /// Who was due to throw; `None` when the referee marked it a wrong player.
    pub thrower: Option<String>,
    #[serde(skip)]
    pub faces: FacesUp,
}

/// How many throws the journal holds and why the others do not count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReadCount {
    pub throws: u64,
    /// Counted: four sticks read.
    pub read: u64,
    /// Entered by hand: no sticks read.
    pub by_hand: u64,
    /// Some stick not read, off the mat, or not four sticks.
    pub not_all_read: u64,
    /// Called differently from what the sticks read as.
    pub called_otherwise: u64,
    /// Throws with a result, and of them void (낙): for the share of void throws.
    pub called: u64,
    pub naks: u64,
}

/// Every read throw of the journal, in order, and the count of the rest.
pub fn throws_read(log: &MatchLog) -> (Vec<ThrowRead>, ReadCount) {
    let mut reads = Vec::new();
    let mut count = ReadCount::default();
    for (g, game) in log.games.iter().enumerate() {
        for t in game.throws() {
            count.throws += 1;
            if let Some(r) = t.effective() {
                count.called += 1;
                count.naks += u64::from(r == ThrowResult::Nak);
            }
            let Some(sticks) = &t.verdict.sticks else {
                count.by_hand += 1;
                continue;
            };
            let Some(faces) = sticks.faces_up() else {
                count.not_all_read += 1;
                continue;
            };
            if t.call.is_some_and(|c| c.result != faces.result()) {
                count.called_otherwise += 1;
                continue;
            }
            count.read += 1;
            reads.push(ThrowRead {
                game: g as u32 + 1,
                throw: t.number,
                at_ms: t.at_ms,
                set: sticks.set.clone(),
                mat: sticks.mat.clone(),
                thrower: (!t.wrong_player).then(|| t.thrower.clone()),
                faces,
            });
        }
    }
    (reads, count)
}

/// The shares the playouts use: those measured on the stick set of the latest
/// read throw (the set in play), drawn towards the prior while few; the share of
/// void throws over every called throw.
pub fn shares_in_play(reads: &[ThrowRead], count: &ReadCount) -> crate::StickShares {
    let Some(latest) = reads.last() else {
        return crate::StickShares::measured(0, 0, 0, count.called, count.naks);
    };
    let of_set: Vec<&ThrowRead> = reads.iter().filter(|r| r.set == latest.set).collect();
    crate::StickShares::measured(
        of_set.len() as u64,
        of_set.iter().filter(|r| r.faces.marked).count() as u64,
        of_set.iter().map(|r| u64::from(r.faces.plain)).sum(),
        count.called,
        count.naks,
    )
}
