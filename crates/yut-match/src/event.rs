//! The inputs of the match machine. Every event carries the time it happened
//! (milliseconds on a clock the shell chooses and keeps monotonic); the machine has
//! no clock of its own.

use serde::{Deserialize, Serialize};
use std::fmt;
use yut_rules::yut::{Move, ThrowResult};

/// Milliseconds on the shell's clock.
pub type Millis = u64;

/// 1-based number of a physical throw within a game, as the referee refers to it.
pub type ThrowNo = u32;

/// Team index: 0 throws first.
pub type TeamIx = usize;

/// A piece of evidence (an image) by its SHA-256 content hash, lowercase hex. The
/// blob itself lives in the journal's evidence folder.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EvidenceRef(String);

impl EvidenceRef {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for EvidenceRef {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            Ok(EvidenceRef(s))
        } else {
            Err(format!(
                "evidence reference `{s}` is not a SHA-256 hash (64 lowercase hex digits)"
            ))
        }
    }
}

impl From<EvidenceRef> for String {
    fn from(r: EvidenceRef) -> String {
        r.0
    }
}

impl fmt::Display for EvidenceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the station observed for one throw. Entered by hand for now; later the
/// camera's verdict with its evidence and confidence.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// What the sticks read as, or the station's proposal; `None` when it cannot
    /// tell (a stick on edge, on the line, resting on another).
    pub result: Option<ThrowResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceRef>,
    /// Reasons the referee must decide (a height violation, low confidence, ...).
    /// A verdict with flags is never called automatically.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// The throw's apex measured by the height sensor, mm above the floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_mm: Option<u32>,
    /// Entered by the referee (the camera did not call it): its call is the
    /// referee's manual entry, never an automatic one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub manual: bool,
    /// How the camera read each stick (none for a throw entered by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sticks: Option<SticksRead>,
    /// The throw from release to rest as a short video, an evidence blob by hash
    /// beside the still. Unlike the stills, clips may be pruned once exported: the
    /// reference stays, the file may be gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<EvidenceRef>,
}

/// How the camera read the sticks of one throw, kept for the stick-fairness
/// statistics: which stick set on which mat (as the station names them), and one
/// letter per stick found, in the order found: `M` the marked stick flat face up,
/// `F` another stick flat face up, `R` a stick round face up (a marked stick round
/// face up shows no mark: it reads `R`), `?` a face not read, `X` off the mat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SticksRead {
    pub set: String,
    pub mat: String,
    pub faces: String,
}

/// The faces of a throw whose four sticks were all read on the mat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FacesUp {
    /// Plain (unmarked) sticks flat face up, 0 to 3.
    pub plain: u8,
    /// Whether the marked stick lies flat face up.
    pub marked: bool,
}

impl FacesUp {
    /// What these faces read as (`docs/yut-rules.md`, "Reading a throw").
    pub fn result(self) -> ThrowResult {
        ThrowResult::from_sticks(self.plain + u8::from(self.marked), self.marked)
            .expect("at most four sticks")
    }
}

impl SticksRead {
    /// The faces, when exactly four sticks were found, each on the mat with its
    /// face read, and at most one of them marked; `None` otherwise (such a throw
    /// says nothing sure about the sticks).
    pub fn faces_up(&self) -> Option<FacesUp> {
        let (mut plain, mut marked, mut sticks) = (0u8, 0u8, 0u8);
        for face in self.faces.chars() {
            match face {
                'M' => marked += 1,
                'F' => plain += 1,
                'R' => {}
                _ => return None,
            }
            sticks += 1;
        }
        (sticks == 4 && marked <= 1).then_some(FacesUp {
            plain,
            marked: marked == 1,
        })
    }
}

impl Verdict {
    /// A clear reading with no flags, called automatically (as the camera calls a
    /// clear throw; synthetic journals and tests use it).
    pub fn entered(result: ThrowResult) -> Verdict {
        Verdict {
            result: Some(result),
            ..Verdict::default()
        }
    }

    /// A throw the referee entered by hand: it counts at once, as the referee's
    /// manual entry.
    pub fn manual(result: ThrowResult) -> Verdict {
        Verdict {
            result: Some(result),
            manual: true,
            ..Verdict::default()
        }
    }

    /// An ambiguous verdict: the referee must call it.
    pub fn ambiguous(flag: &str) -> Verdict {
        Verdict {
            result: None,
            flags: vec![flag.to_string()],
            ..Verdict::default()
        }
    }

    /// The automatic call, if this verdict allows one.
    pub fn automatic_call(&self) -> Option<ThrowResult> {
        if self.flags.is_empty() {
            self.result
        } else {
            None
        }
    }
}

/// One thing that happened at the mat, at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchEvent {
    pub at_ms: Millis,
    pub action: Action,
    /// Who entered it (the name given at the console's login); `None` for the
    /// station's own events (a camera call). Journaled, not used by the rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Why, in the referee's words (the reason for a 낙, a manual throw, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl MatchEvent {
    pub fn new(at_ms: Millis, action: Action) -> MatchEvent {
        MatchEvent {
            at_ms,
            action,
            by: None,
            note: None,
        }
    }
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// The referee starts the game: the game clock and the first throw clock run.
    Start,
    /// A physical throw by the team in turn, with what was observed. The thrower is
    /// the next one in the rotation; a confident verdict is called automatically,
    /// anything else waits for the referee's [`Action::Call`].
    Throw { verdict: Verdict },
    /// The referee calls a throw: the first call of a throw that waits for one, or
    /// an override of an earlier call (the game is then recomputed).
    Call { throw: ThrowNo, result: ThrowResult },
    /// The referee marks a throw as made by the wrong player (it becomes 낙), or
    /// lifts that mark.
    WrongPlayer { throw: ThrowNo, wrong: bool },
    /// The placer uses a pending result.
    Move(Move),
    /// Take back the last move.
    Undo,
    /// A substitution requested by the coach: two registered players of the team
    /// swap places (thrower slots, or a thrower and the placer, which moves the
    /// coach role).
    Substitute {
        team: TeamIx,
        requested_by: String,
        swap: [String; 2],
    },
    /// The coach calls a timeout (작전타임).
    TimeoutStart { team: TeamIx },
    /// The timeout ends before its full length (otherwise it ends by itself).
    TimeoutEnd,
    /// A player protests a call. From the coach it is a protest; from anyone else
    /// it earns a warning (경고).
    Protest {
        team: TeamIx,
        by: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        throw: Option<ThrowNo>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        note: String,
    },
}
