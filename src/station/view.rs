//! What every page and API client is sent: the station state as one JSON document
//! (`docs/station-api.md`, "State"). Pure: built from the folded journal, the time
//! and the station's health.

use serde::Serialize;
use yut_match::MatchLog;
use yut_match::{CallSource, MatchState, Millis, TeamIx, ThrowNo, ThrowRecord};
use yut_rules::yut::ThrowResult;

/// The station's parts, one short line each, for the status bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Health {
    pub camera: String,
    pub sensor: String,
    pub vision: String,
    pub journal: String,
    /// Things a person should know (a journal problem at start, a refused camera
    /// call, sticks picked up before the call), newest last, at most a few.
    pub problems: Vec<String>,
    /// The link to the tournament office, when the station plays in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentLink>,
    /// Set while the camera no longer sees the mat as the profile says: the
    /// station makes no automatic call until a re-check at `/calibrate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera_moved: Option<CameraMoved>,
    /// The live camera's controls (exposure, white balance, focus): whether
    /// each is locked, left automatic, or missing on this camera.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<ControlState>,
}

/// When the station noticed the camera moved, and why it thinks so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CameraMoved {
    pub at_ms: Millis,
    pub reason: String,
}

/// One of the camera's controls as `/calibrate` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlState {
    /// `exposure`, `white balance` or `focus`.
    pub name: String,
    /// `locked`, `automatic`, or `missing` (the camera has no such control).
    pub state: String,
    /// In words, for the crew.
    pub detail: String,
}

/// The station's link to the tournament office, for the console
/// (`docs/tournament.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TournamentLink {
    pub mat: u32,
    /// `connected`, or `cut off: …` (judging and journaling go on).
    pub broker: String,
    /// Entries the office has not acknowledged yet.
    pub unacknowledged: i64,
    /// The office's next match for this mat, for the referee to accept (its setup
    /// is what `new_game` is sent with).
    pub next: Option<yut_match::MatchSetup>,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            camera: "none".into(),
            sensor: "none".into(),
            vision: "off".into(),
            journal: "ok".into(),
            problems: vec![],
            tournament: None,
            camera_moved: None,
            controls: vec![],
        }
    }
}

impl Health {
    /// Keep the newest problems only: the journal keeps everything.
    pub fn problem(&mut self, line: String) {
        self.problems.push(line);
        let n = self.problems.len();
        if n > 5 {
            self.problems.drain(..n - 5);
        }
    }
}

/// The newest throw and its call, as the display shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallView {
    pub throw: ThrowNo,
    pub team: TeamIx,
    pub thrower: String,
    /// The result the game uses; `None` while it waits for the referee.
    pub result: Option<ThrowResult>,
    pub korean: Option<&'static str>,
    /// `automatic` (the camera), `referee` (a call or override), `manual` (a throw
    /// the referee entered), or `waiting`.
    pub source: &'static str,
    pub best_guess: Option<ThrowResult>,
    pub confidence: Option<f32>,
    pub flags: Vec<String>,
    pub evidence: Vec<String>,
    pub height_mm: Option<u32>,
    pub wrong_player: bool,
    pub at_ms: Millis,
}

impl CallView {
    pub fn of(t: &ThrowRecord) -> CallView {
        let result = t.effective();
        CallView {
            throw: t.number,
            team: t.team,
            thrower: t.thrower.clone(),
            result,
            korean: result.map(|r| r.korean()),
            source: match t.call.map(|c| c.by) {
                None => "waiting",
                Some(CallSource::Automatic) => "automatic",
                Some(CallSource::Referee) => "referee",
                Some(CallSource::Manual) => "manual",
            },
            best_guess: t.verdict.result,
            confidence: t.verdict.confidence,
            flags: t.verdict.flags.clone(),
            evidence: t
                .verdict
                .evidence
                .iter()
                .map(|e| e.as_str().to_string())
                .collect(),
            height_mm: t.verdict.height_mm,
            wrong_player: t.wrong_player,
            at_ms: t.call.map(|c| c.at_ms).unwrap_or(t.at_ms),
        }
    }
}

/// The call the display shows: the throw whose call (or, while it waits for the
/// referee, whose landing) is the most recent, so an override of an earlier throw
/// is shown as it happens.
pub fn last_call(game: &MatchState) -> Option<CallView> {
    game.throws()
        .enumerate()
        .max_by_key(|(i, t)| (t.call.map(|c| c.at_ms).unwrap_or(t.at_ms), *i))
        .map(|(_, t)| CallView::of(t))
}

/// The chance each team wins, as the insight task last worked it out
/// (`station::insight`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinView {
    pub game: u32,
    /// The position it is of (`station::insight::position_key`).
    pub key: String,
    /// Whether it is of the position the state shows (else of an earlier one: the
    /// newer is being worked out).
    pub current: bool,
    /// By team index.
    pub chances: [f64; 2],
    pub std_error: f64,
    pub playouts: u32,
    /// How long it took, ms on one core.
    pub ms: f64,
    /// The stick shares the playouts used.
    pub shares: yut_insight::StickShares,
}

#[derive(Serialize)]
struct StateView<'a> {
    now_ms: Millis,
    seq: u64,
    game_number: u32,
    setup: Option<&'a yut_match::MatchSetup>,
    #[serde(rename = "match")]
    current: Option<yut_match::Snapshot>,
    last_call: Option<CallView>,
    station: &'a Health,
    #[serde(skip_serializing_if = "Option::is_none")]
    win_chances: Option<&'a WinView>,
}

/// The state document at `now`.
pub fn state_json(station: &MatchLog, now: Millis, seq: u64, health: &Health) -> String {
    state_json_with(station, now, seq, health, None)
}

/// The state document at `now`, with the win chances when known.
pub fn state_json_with(
    station: &MatchLog,
    now: Millis,
    seq: u64,
    health: &Health,
    win_chances: Option<&WinView>,
) -> String {
    let game = station.current();
    let view = StateView {
        now_ms: now,
        seq,
        game_number: station.game_number(),
        setup: game.map(|g| g.setup()),
        current: game.map(|g| g.snapshot(now.max(g.last_at()))),
        last_call: game.and_then(last_call),
        station: health,
        win_chances,
    };
    serde_json::to_string(&view).expect("the state always serialises")
}
