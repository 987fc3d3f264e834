//! The MQTT topics and messages between the stations and the office, version 1
//! (`docs/tournament.md`, "Topics and messages"), and the mat summary a station
//! keeps retained. Pure: names and serde types, and the summary built from a
//! station's folded journal.

use crate::office::MatNo;
use serde::{Deserialize, Serialize};
use yut_match::{Entry, MatchLog, MatchSetup, Millis};

/// Every topic starts with this; a new major version gets a new root.
pub const ROOT: &str = "yut/v1";
/// The version number every message carries in `v`.
pub const VERSION: u32 = 1;

/// The topics of one mat.
pub fn mat_topic(mat: MatNo, leaf: &str) -> String {
    format!("{ROOT}/mat/{mat}/{leaf}")
}

/// `yut/v1/mat/{mat}/event`: station → office, QoS 1, not retained.
pub const EVENT: &str = "event";
/// `…/summary`: station → anyone, QoS 1, retained.
pub const SUMMARY: &str = "summary";
/// `…/online`: station → anyone, QoS 1, retained; the broker publishes the
/// station's last will (`online: false`) when it loses the station.
pub const ONLINE: &str = "online";
/// `…/assignment`: office → station, QoS 1, retained.
pub const ASSIGNMENT: &str = "assignment";
/// `…/ack`: office → station, QoS 1, retained.
pub const ACK: &str = "ack";
/// `yut/v1/office/online`: the office's presence (retained, last will `false`).
pub fn office_online_topic() -> String {
    format!("{ROOT}/office/online")
}

/// Which mat and leaf a topic names, if it is one of ours.
pub fn parse_mat_topic(topic: &str) -> Option<(MatNo, &str)> {
    let rest = topic.strip_prefix(ROOT)?.strip_prefix("/mat/")?;
    let (mat, leaf) = rest.split_once('/')?;
    Some((mat.parse().ok()?, leaf))
}

/// One journal entry of a station. The office records it when `prev` is the last id
/// it has for the mat, ignores it when it already has `id`, and asks again from its
/// last id otherwise: delivery is idempotent and in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventMsg {
    pub v: u32,
    pub mat: MatNo,
    /// The station's journal id.
    pub id: i64,
    /// The journal id of the station's entry before it (0 for its first).
    pub prev: i64,
    pub entry: Entry,
    /// Unix ms when it was (re)sent, for latency figures only.
    pub sent_unix_ms: u64,
}

/// The office's acknowledgement: it holds this mat's entries up to `upto` durably.
/// `resend: true` asks the station to send again everything after `upto` (after a
/// gap, or when the office has just (re)started).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckMsg {
    pub v: u32,
    pub upto: i64,
    #[serde(default)]
    pub resend: bool,
}

/// The next match for a mat, for its referee to accept (`fixture: None` clears it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssignmentMsg {
    pub v: u32,
    pub fixture: Option<String>,
    /// The game's setup (rosters in throwing order, options, the fixture id).
    pub setup: Option<MatchSetup>,
}

/// Presence, retained; the station's last will says `false`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnlineMsg {
    pub v: u32,
    pub online: bool,
}

/// A station's summary of its mat, retained so a board that starts late sees every
/// mat at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatSummary {
    pub v: u32,
    pub mat: MatNo,
    /// The station's clock (ms) when the summary was made.
    pub at_ms: Millis,
    pub game: u32,
    pub fixture: Option<String>,
    pub teams: Option<[String; 2]>,
    /// Pieces home per team.
    pub home: [u8; 2],
    pub pieces_per_team: u8,
    /// Whose turn (team index), while the game runs.
    pub turn: Option<usize>,
    pub started: bool,
    pub over: bool,
    pub winner: Option<usize>,
    /// The newest call, e.g. `throw 12 걸 (automatic)`.
    pub last_call: Option<String>,
    pub game_clock_ms: Millis,
    /// The station's health line (camera, vision, journal).
    pub health: String,
    /// The station's newest journal id.
    pub last_id: i64,
}

/// The summary of a station's folded journal at `now`.
pub fn mat_summary(
    mat: MatNo,
    log: &MatchLog,
    now: Millis,
    health: &str,
    last_id: i64,
) -> MatSummary {
    let g = log.current();
    let teams = g.map(|g| [g.team_name(0).to_string(), g.team_name(1).to_string()]);
    let home = g
        .map(|g| [g.game().teams()[0].finished, g.game().teams()[1].finished])
        .unwrap_or([0, 0]);
    MatSummary {
        v: VERSION,
        mat,
        at_ms: now,
        game: log.game_number(),
        fixture: g.and_then(|g| g.setup().fixture.clone()),
        teams,
        home,
        pieces_per_team: g.map_or(0, |g| g.game().pieces_per_team()),
        turn: g
            .filter(|g| g.started() && !g.is_over())
            .map(|g| g.game().turn()),
        started: g.is_some_and(|g| g.started()),
        over: g.is_some_and(|g| g.is_over()),
        winner: g.and_then(|g| g.game().winner()),
        last_call: g.and_then(last_call_line),
        game_clock_ms: g.map_or(0, |g| g.game_clock_ms(now.max(g.last_at()))),
        health: health.to_string(),
        last_id,
    }
}

/// The newest call of a game in a few words: `throw 12 홍 걸 (automatic)`.
pub fn last_call_line(game: &yut_match::MatchState) -> Option<String> {
    let t = game
        .throws()
        .enumerate()
        .max_by_key(|(i, t)| (t.call.map(|c| c.at_ms).unwrap_or(t.at_ms), *i))
        .map(|(_, t)| t)?;
    let result = t
        .effective()
        .map(|r| r.korean().to_string())
        .unwrap_or_else(|| "?".into());
    let source = match t.call.map(|c| c.by) {
        None => "waiting for the referee",
        Some(yut_match::CallSource::Automatic) => "automatic",
        Some(yut_match::CallSource::Referee) => "referee",
        Some(yut_match::CallSource::Manual) => "entered by hand",
    };
    Some(format!(
        "throw {} {} {result} ({source})",
        t.number,
        game.team_name(t.team)
    ))
}
