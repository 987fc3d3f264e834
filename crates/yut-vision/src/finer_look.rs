//! The finer look: a second look at a throw whose sticks were found in
//! pieces, or too few, with the foreground opened by a smaller disc
//! ([`crate::sticks::FINER_SPECK_DISC`]), taken only at a station whose own
//! referee's calls showed it right (ADR 0127).
//!
//! A black lacquered round face shows the camera little more than the thin
//! highlight along its crest. The usual opening breaks that line, and the
//! throw goes to the referee for its count of sticks, throw after throw: no
//! face reader can learn that away. The smaller disc keeps the line whole,
//! but the appearance models learned their sticks as the usual disc leaves
//! them, so it cannot be every station's look. Each throw the usual look
//! refers for its count ([`wanted`]) is a trial instead: when the referee
//! calls it, the finer look's call on the same frame is compared with the
//! referee's ([`FinerLook::learn`]). Once it has agreed [`AGREED_TO_TAKE`]
//! times, never disagreeing, the station takes it on such throws, and calls
//! what it calls. One disagreement ends it, taken or not: a correction of a
//! call it made, or of one it would have made. Nothing here reads pixels;
//! `crate::Detector` takes the look.

use crate::verdict::{Reason, ThrowReading};
use serde::{Deserialize, Serialize};
use yut_rules::yut::ThrowResult;

/// How many of the referee's calls the finer look must have called the same,
/// never differing, before the station takes it. A station whose round
/// faces the usual look finds whole never refers for the count often enough
/// to get there by chance: 1 400 297 refers half its throws for it.
pub const AGREED_TO_TAKE: u32 = 3;

/// The finer look's record against one station's referee: kept with the
/// station's taught set (`crate::profile::Taught::finer_look`), shown and
/// forgotten with what the station learned from the calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinerLook {
    /// The referee called what the finer look called.
    pub agreed: u32,
    /// The referee called otherwise.
    pub disagreed: u32,
}

impl FinerLook {
    /// Whether the station takes the finer look at a throw the usual look
    /// refers for its count of sticks.
    pub fn taken(&self) -> bool {
        self.disagreed == 0 && self.agreed >= AGREED_TO_TAKE
    }

    /// Whether a throw the usual look refers for its count is still a trial
    /// of it: not taken yet, and never disagreed with.
    pub fn on_trial(&self) -> bool {
        self.disagreed == 0 && !self.taken()
    }

    /// Nothing was learned yet (a profile keeps no record then).
    pub fn is_untried(&self) -> bool {
        *self == FinerLook::default()
    }

    /// The referee called `called` at a throw where the finer look called
    /// `finer` (`None`: it was not looked at, or referred the throw too,
    /// and nothing is learned).
    pub fn learn(&mut self, finer: Option<ThrowResult>, called: ThrowResult) {
        match finer {
            Some(r) if r == called => self.agreed += 1,
            Some(_) => self.disagreed += 1,
            None => {}
        }
    }
}

impl std::fmt::Display for FinerLook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, d) = (self.agreed, self.disagreed);
        if d > 0 {
            write!(
                f,
                "given up: the referee called otherwise {d} times (and as it did {a})"
            )
        } else if self.taken() {
            write!(
                f,
                "taken: the referee called as it did {a} times, never otherwise"
            )
        } else if a > 0 {
            write!(
                f,
                "on trial: the referee called as it did {a} times of the {AGREED_TO_TAKE} it needs"
            )
        } else {
            write!(f, "not tried yet")
        }
    }
}

/// Whether the finer look has anything to add to `usual`, the usual look's
/// reading: it referred the throw for its count of sticks alone. Where it
/// also saw a stick on its edge, leaning, on the line or unclear, that
/// stays the referee's: taken at every referral, the finer look made two
/// silent errors before the referee's calls stopped it (looks 1 400 718
/// and 1 400 728), and called a throw with a stick on its edge.
pub fn wanted(usual: &ThrowReading) -> bool {
    usual.result.is_none()
        && !usual.reasons.is_empty()
        && usual.reasons.iter().all(|r| *r == Reason::StickCount)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ThrowResult::*;

    #[test]
    fn it_is_taken_only_after_agreeing_and_never_once_disagreeing() {
        let mut f = FinerLook::default();
        assert!(f.is_untried());
        f.learn(None, Gae);
        assert!(f.is_untried(), "a look that referred too learns nothing");
        for _ in 0..AGREED_TO_TAKE - 1 {
            f.learn(Some(Gae), Gae);
            assert!(!f.taken());
        }
        assert!(f.on_trial());
        f.learn(Some(Do), Do);
        assert!(f.taken());
        assert!(!f.on_trial());
        f.learn(Some(Geol), Gae);
        assert!(!f.taken(), "one correction ends it");
        assert!(!f.on_trial(), "and the trial");
        for _ in 0..10 {
            f.learn(Some(Yut), Yut);
        }
        assert!(!f.taken(), "agreeing again does not bring it back");
    }

    #[test]
    fn only_a_throw_referred_for_its_count_alone_wants_it() {
        let reading = |result, reasons: Vec<Reason>| ThrowReading {
            result,
            best_guess: Gae,
            confidence: 0.5,
            reasons,
            sticks: Vec::new(),
        };
        assert!(wanted(&reading(None, vec![Reason::StickCount])));
        assert!(!wanted(&reading(
            None,
            vec![Reason::OnEdge, Reason::StickCount]
        )));
        assert!(!wanted(&reading(None, vec![Reason::OnEdge])));
        assert!(!wanted(&reading(None, vec![])));
        assert!(!wanted(&reading(Some(Gae), vec![])));
    }
}
