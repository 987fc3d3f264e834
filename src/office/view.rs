//! What the hall screen and the office console are sent: the tournament folded from
//! the office's journal (bracket, groups, standings), every mat live (its game as
//! the office folded it from the station's entries, the station's presence and
//! summary) and the office's own link, as one JSON document
//! (`docs/tournament.md`, "The board's state"). Pure: built from values and the
//! time passed in.

use serde::Serialize;
use std::collections::BTreeMap;
use yut_tournament::wire::MatSummary;
use yut_tournament::{MatNo, Tournament};

/// What the office knows of a mat beyond its journal: presence and summary.
#[derive(Debug, Clone, Default)]
pub struct MatLive {
    /// The station's retained presence: `None` before it has spoken.
    pub online: Option<bool>,
    /// When the presence last changed (Unix ms).
    pub since_unix_ms: u64,
    pub summary: Option<MatSummary>,
    pub summary_unix_ms: u64,
}

/// Publish-to-journaled times of recent station entries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    pub count: usize,
    pub median_ms: u32,
    pub p99_ms: u32,
    pub max_ms: u32,
}

impl Latency {
    pub fn of(samples: &mut [u32]) -> Latency {
        if samples.is_empty() {
            return Latency::default();
        }
        samples.sort_unstable();
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        Latency {
            count: samples.len(),
            median_ms: at(0.5),
            p99_ms: at(0.99),
            max_ms: *samples.last().expect("not empty"),
        }
    }
}

/// The office's live state beside its journal.
#[derive(Debug, Clone, Default)]
pub struct Live {
    pub mats: BTreeMap<MatNo, MatLive>,
    /// The office's own link: `connected` or `cut off: …`.
    pub broker: String,
    pub broker_lost_since: Option<u64>,
    pub problems: Vec<String>,
    /// Station entries recorded, and duplicates ignored, since the office started.
    pub received: u64,
    pub duplicates: u64,
    pub latency: Latency,
}

impl Live {
    pub fn problem(&mut self, line: String) {
        self.problems.push(line);
        let n = self.problems.len();
        if n > 8 {
            self.problems.drain(..n - 8);
        }
    }
}

#[derive(Serialize)]
struct MatView {
    mat: MatNo,
    /// `online`, `cut off`, `unknown` (never heard from), or `no broker` (the office
    /// has lost the broker, so it cannot tell).
    presence: &'static str,
    /// Seconds since the presence last changed.
    presence_for_s: u64,
    /// The fixture the office has on this mat.
    assigned: Option<String>,
    fixture: Option<String>,
    game: u32,
    teams: Option<[String; 2]>,
    home: [u8; 2],
    pieces_per_team: u8,
    turn: Option<usize>,
    started: bool,
    over: bool,
    winner: Option<usize>,
    last_call: Option<String>,
    /// The game clock as the station last reported it.
    clock_ms: u64,
    health: Option<String>,
    /// Pieces on the board: per team, station id → count.
    board: [BTreeMap<String, u8>; 2],
    /// Entries the office holds for this mat, and the station's newest.
    office_last_id: i64,
    station_last_id: Option<i64>,
    problems: Vec<String>,
}

#[derive(Serialize)]
struct View<'a> {
    v: u32,
    seq: u64,
    now_unix_ms: u64,
    broker: &'a str,
    broker_lost_for_s: Option<u64>,
    registered: usize,
    format: Option<yut_tournament::Format>,
    drawn: bool,
    complete: bool,
    mats: Vec<MatView>,
    bracket: Vec<yut_tournament::FixtureView>,
    groups: Vec<yut_tournament::GroupTable>,
    standings: Vec<yut_tournament::Standing>,
    received: u64,
    duplicates: u64,
    latency: &'a Latency,
    problems: &'a [String],
}

/// The board's state at `now_unix_ms`.
pub fn view_json(t: &Tournament, live: &Live, seq: u64, now_unix_ms: u64) -> String {
    let busy = t.busy_mats();
    let mut mats: Vec<MatNo> = live.mats.keys().chain(t.mats.keys()).copied().collect();
    mats.sort_unstable();
    mats.dedup();
    let mats = mats
        .into_iter()
        .map(|mat| {
            let l = live.mats.get(&mat).cloned().unwrap_or_default();
            let feed = t.mats.get(&mat);
            let game = feed.and_then(|f| f.log.current());
            let summary = game.map(|g| g.game().summary());
            let board = summary
                .as_ref()
                .map(|s| {
                    [
                        s.teams[0].board.clone(),
                        s.teams.get(1).map(|t| t.board.clone()).unwrap_or_default(),
                    ]
                })
                .unwrap_or_default();
            MatView {
                mat,
                presence: match l.online {
                    // The office itself cannot see the mats while it has no broker.
                    _ if live.broker != "connected" => "no broker",
                    Some(true) => "online",
                    Some(false) => "cut off",
                    None => "unknown",
                },
                presence_for_s: now_unix_ms.saturating_sub(l.since_unix_ms) / 1000,
                assigned: busy.get(&mat).cloned(),
                fixture: game.and_then(|g| g.setup().fixture.clone()),
                game: feed.map_or(0, |f| f.log.game_number()),
                teams: game.map(|g| [g.team_name(0).to_string(), g.team_name(1).to_string()]),
                home: game
                    .map(|g| [g.game().teams()[0].finished, g.game().teams()[1].finished])
                    .unwrap_or_default(),
                pieces_per_team: game.map_or(0, |g| g.game().pieces_per_team()),
                turn: game
                    .filter(|g| g.started() && !g.is_over())
                    .map(|g| g.game().turn()),
                started: game.is_some_and(|g| g.started()),
                over: game.is_some_and(|g| g.is_over()),
                winner: game.and_then(|g| g.game().winner()),
                last_call: game.and_then(yut_tournament::wire::last_call_line),
                clock_ms: l.summary.as_ref().map_or(0, |s| s.game_clock_ms),
                health: l.summary.as_ref().map(|s| s.health.clone()),
                board,
                office_last_id: feed.map_or(0, |f| f.last_id),
                station_last_id: l.summary.as_ref().map(|s| s.last_id),
                problems: feed.map(|f| f.problems.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let view = View {
        v: yut_tournament::wire::VERSION,
        seq,
        now_unix_ms,
        broker: &live.broker,
        broker_lost_for_s: live
            .broker_lost_since
            .map(|s| now_unix_ms.saturating_sub(s) / 1000),
        registered: t.teams.len(),
        format: t.format,
        drawn: t.draw.is_some(),
        complete: t.is_complete(),
        mats,
        bracket: t.bracket(),
        groups: t.group_tables(),
        standings: t.standings(),
        received: live.received,
        duplicates: live.duplicates,
        latency: &live.latency,
        problems: &live.problems,
    };
    serde_json::to_string(&view).expect("the view serialises")
}
