//! What a throw of the four sticks reads as.
//!
//! Pure.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The call for one throw. Ids are the ASCII names of `docs/yut-rules.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThrowResult {
    /// 도: one flat face up, not the marked stick. +1.
    Do,
    /// 개: two flat faces up. +2.
    Gae,
    /// 걸: three flat faces up. +3.
    Geol,
    /// 윷: four flat faces up. +4 and another throw.
    Yut,
    /// 모: no flat face up. +5 and another throw.
    Mo,
    /// 뒷도: only the marked stick flat face up. One station back.
    Backdo,
    /// 낙: a stick off the mat, the wrong thrower, or ruled void. Nothing.
    Nak,
}

impl ThrowResult {
    /// Every result, in the order used for sorting and display.
    pub const ALL: [ThrowResult; 7] = [
        ThrowResult::Do,
        ThrowResult::Gae,
        ThrowResult::Geol,
        ThrowResult::Yut,
        ThrowResult::Mo,
        ThrowResult::Backdo,
        ThrowResult::Nak,
    ];

    /// The stable ASCII id.
    pub const fn id(self) -> &'static str {
        match self {
            ThrowResult::Do => "do",
            ThrowResult::Gae => "gae",
            ThrowResult::Geol => "geol",
            ThrowResult::Yut => "yut",
            ThrowResult::Mo => "mo",
            ThrowResult::Backdo => "backdo",
            ThrowResult::Nak => "nak",
        }
    }

    /// The Korean name people see.
    pub fn korean(self) -> &'static str {
        match self {
            ThrowResult::Do => "도",
            ThrowResult::Gae => "개",
            ThrowResult::Geol => "걸",
            ThrowResult::Yut => "윷",
            ThrowResult::Mo => "모",
            ThrowResult::Backdo => "뒷도",
            ThrowResult::Nak => "낙",
        }
    }

    /// Forward steps for a forward result; `None` for 뒷도 and 낙.
    pub fn forward_steps(self) -> Option<u8> {
        match self {
            ThrowResult::Do => Some(1),
            ThrowResult::Gae => Some(2),
            ThrowResult::Geol => Some(3),
            ThrowResult::Yut => Some(4),
            ThrowResult::Mo => Some(5),
            ThrowResult::Backdo | ThrowResult::Nak => None,
        }
    }

    /// 윷 and 모 earn another throw at once.
    pub fn earns_extra_throw(self) -> bool {
        matches!(self, ThrowResult::Yut | ThrowResult::Mo)
    }

    /// Read the sticks: how many lie flat face up, and whether the marked stick is
    /// one of them. This is the table of `docs/yut-rules.md` "Reading a throw"; a
    /// stick off the mat is the caller's business (it makes the throw 낙).
    pub fn from_sticks(fronts_up: u8, marked_is_up: bool) -> Option<ThrowResult> {
        Some(match (fronts_up, marked_is_up) {
            (0, _) => ThrowResult::Mo,
            (1, true) => ThrowResult::Backdo,
            (1, false) => ThrowResult::Do,
            (2, _) => ThrowResult::Gae,
            (3, _) => ThrowResult::Geol,
            (4, _) => ThrowResult::Yut,
            _ => return None,
        })
    }
}

impl fmt::Display for ThrowResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// An unknown result id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown result `{0}` (expected one of do gae geol yut mo backdo nak)")]
pub struct UnknownResult(pub String);

impl FromStr for ThrowResult {
    type Err = UnknownResult;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ThrowResult::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| UnknownResult(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for r in ThrowResult::ALL {
            assert_eq!(r.id().parse::<ThrowResult>().unwrap(), r);
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", r.id())
            );
        }
        assert!("bak".parse::<ThrowResult>().is_err());
    }

    #[test]
    fn reading_the_sticks() {
        assert_eq!(ThrowResult::from_sticks(0, false), Some(ThrowResult::Mo));
        assert_eq!(ThrowResult::from_sticks(1, false), Some(ThrowResult::Do));
        assert_eq!(ThrowResult::from_sticks(1, true), Some(ThrowResult::Backdo));
        assert_eq!(ThrowResult::from_sticks(2, true), Some(ThrowResult::Gae));
        assert_eq!(ThrowResult::from_sticks(3, false), Some(ThrowResult::Geol));
        assert_eq!(ThrowResult::from_sticks(4, true), Some(ThrowResult::Yut));
        assert_eq!(ThrowResult::from_sticks(5, false), None);
    }
}
