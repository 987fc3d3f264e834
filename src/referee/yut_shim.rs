//! TEMPORARY stand-in for the rules engine API of `yut-api.md` until the lead's engine
//! lands on `main`; deleted at the merge. A simplified engine: the outer ring only,
//! stacking and capturing, 뒷도 one station back. Enough to drive the match machine.
#![allow(dead_code)]

pub use crate::rules::yut::ThrowResult;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThrowerRotation {
    #[default]
    PerThrow,
    PerTurn,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    pub thrower_rotation: ThrowerRotation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Throw,
    Move,
    Over,
}

const RING: [&str; 20] = [
    "chammeogi",
    "do",
    "gae",
    "geol",
    "yut",
    "mo",
    "dwit_do",
    "dwit_gae",
    "dwit_geol",
    "dwit_yut",
    "dwit_mo",
    "jji_do",
    "jji_gae",
    "jji_geol",
    "jji_yut",
    "jji_mo",
    "nal_do",
    "nal_gae",
    "nal_geol",
    "nal_yut",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StationId(u8);

impl StationId {
    pub fn id(self) -> &'static str {
        RING[self.0 as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    Waiting,
    Station(StationId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Destination {
    Station(StationId),
    Finished,
}

fn station_by_id(s: &str) -> Option<StationId> {
    RING.iter()
        .position(|r| *r == s)
        .map(|i| StationId(i as u8))
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Waiting => f.write_str("waiting"),
            Origin::Station(s) => f.write_str(s.id()),
        }
    }
}
impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Finished => f.write_str("finished"),
            Destination::Station(s) => f.write_str(s.id()),
        }
    }
}
impl Serialize for Origin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl Serialize for Destination {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
impl<'de> Deserialize<'de> for Origin {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "waiting" {
            return Ok(Origin::Waiting);
        }
        station_by_id(&s)
            .map(Origin::Station)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown station `{s}`")))
    }
}
impl<'de> Deserialize<'de> for Destination {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "finished" {
            return Ok(Destination::Finished);
        }
        station_by_id(&s)
            .map(Destination::Station)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown station `{s}`")))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub result: ThrowResult,
    pub from: Origin,
    pub to: Destination,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum GameEvent {
    Throw(ThrowResult),
    Move(Move),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RuleError(String);

/// Positions: 0 waiting, 1..=20 on the ring (20 = 참먹이 reached), 21 finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameState {
    names: [String; 2],
    pieces: [Vec<u8>; 2],
    config: RulesConfig,
    turn: usize,
    phase: Phase,
    pending: Vec<ThrowResult>,
    initial_owed: bool,
    throws_owed: u32,
    capture_owed: u32,
    winner: Option<usize>,
}

impl GameState {
    pub fn new(teams: [String; 2], pieces_per_team: u8, config: RulesConfig) -> GameState {
        let n = pieces_per_team as usize;
        GameState {
            names: teams,
            pieces: [vec![0; n], vec![0; n]],
            config,
            turn: 0,
            phase: Phase::Throw,
            pending: Vec::new(),
            initial_owed: true,
            throws_owed: 0,
            capture_owed: 0,
            winner: None,
        }
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn turn(&self) -> usize {
        self.turn
    }
    pub fn pending(&self) -> &[ThrowResult] {
        &self.pending
    }
    pub fn throws_owed(&self) -> u32 {
        self.throws_owed
    }
    pub fn winner(&self) -> Option<usize> {
        self.winner
    }
    pub fn config(&self) -> &RulesConfig {
        &self.config
    }
    pub fn summary(&self) -> GameSummary {
        GameSummary {
            phase: self.phase,
            turn: self.names[self.turn].clone(),
            pending: self.pending.clone(),
            throws_owed: self.throws_owed,
            teams: (0..2)
                .map(|t| {
                    let mut board = BTreeMap::new();
                    for &p in &self.pieces[t] {
                        if (1..=20).contains(&p) {
                            *board.entry(RING[p as usize % 20].to_string()).or_insert(0) += 1;
                        }
                    }
                    TeamSummary {
                        name: self.names[t].clone(),
                        waiting: self.pieces[t].iter().filter(|p| **p == 0).count() as u8,
                        finished: self.pieces[t].iter().filter(|p| **p == 21).count() as u8,
                        board,
                    }
                })
                .collect(),
            legal: legal_moves(self),
            winner: self.winner.map(|w| self.names[w].clone()),
        }
    }

    fn settle(&mut self) {
        loop {
            if self.winner.is_some() {
                self.phase = Phase::Over;
                self.pending.clear();
                self.throws_owed = 0;
                return;
            }
            if self.throws_owed > 0 || self.initial_owed {
                self.phase = Phase::Throw;
                return;
            }
            if !self.pending.is_empty() {
                self.phase = Phase::Move;
                if !legal_moves(self).is_empty() {
                    return;
                }
                self.pending.clear();
            }
            if self.capture_owed > 0 {
                self.throws_owed = self.capture_owed;
                self.capture_owed = 0;
                continue;
            }
            self.turn = 1 - self.turn;
            self.initial_owed = true;
        }
    }
}

fn position_to_dest(p: u8) -> Destination {
    if p > 20 {
        Destination::Finished
    } else {
        Destination::Station(StationId(p % 20))
    }
}

fn target(from: u8, r: ThrowResult) -> Option<u8> {
    match r.forward_steps() {
        Some(_) if from == 20 => Some(21),
        Some(s) => Some((from + s).min(21)),
        None if r == ThrowResult::Backdo && from == 1 => Some(20),
        None if r == ThrowResult::Backdo && from > 1 => Some(from - 1),
        None => None,
    }
}

fn origin_of(p: u8) -> Origin {
    if p == 0 {
        Origin::Waiting
    } else {
        Origin::Station(StationId(p % 20))
    }
}

pub fn legal_moves(state: &GameState) -> Vec<Move> {
    if state.phase != Phase::Move {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mine = &state.pieces[state.turn];
    for &r in &state.pending {
        for &p in mine {
            if p == 21 || (p == 0 && r == ThrowResult::Backdo) {
                continue;
            }
            if let Some(t) = target(p, r) {
                out.push(Move {
                    result: r,
                    from: origin_of(p),
                    to: position_to_dest(t),
                });
            }
        }
    }
    out.sort_by_key(|m| (m.result, m.from, m.to));
    out.dedup();
    out
}

pub fn apply(state: &GameState, event: &GameEvent) -> Result<GameState, RuleError> {
    let mut s = state.clone();
    if s.phase == Phase::Over {
        return Err(RuleError("the game is over".into()));
    }
    match *event {
        GameEvent::Throw(r) => {
            if s.phase != Phase::Throw {
                return Err(RuleError("no throw is owed".into()));
            }
            if s.initial_owed {
                s.initial_owed = false;
            } else {
                s.throws_owed -= 1;
            }
            if r.earns_extra_throw() {
                s.throws_owed += 1;
            }
            if r != ThrowResult::Nak {
                s.pending.push(r);
            }
        }
        GameEvent::Move(m) => {
            if s.phase != Phase::Move {
                return Err(RuleError("a throw is owed".into()));
            }
            if !legal_moves(&s).contains(&m) {
                return Err(RuleError(format!(
                    "{} from {} to {} is not legal",
                    m.result, m.from, m.to
                )));
            }
            let t = s.turn;
            let from = s.pieces[t]
                .iter()
                .copied()
                .find(|p| origin_of(*p) == m.from && *p != 21)
                .expect("legal");
            let to = target(from, m.result).expect("legal");
            if from == 0 {
                let i = s.pieces[t].iter().position(|p| *p == 0).expect("legal");
                s.pieces[t][i] = to;
            } else {
                for p in s.pieces[t].iter_mut().filter(|p| **p == from) {
                    *p = to;
                }
            }
            if to <= 20 {
                let mut captured = false;
                for p in s.pieces[1 - t].iter_mut().filter(|p| **p == to) {
                    *p = 0;
                    captured = true;
                }
                if captured {
                    s.capture_owed += 1;
                }
            }
            let i = s
                .pending
                .iter()
                .position(|r| *r == m.result)
                .expect("legal");
            s.pending.remove(i);
            if s.pieces[t].iter().all(|p| *p == 21) {
                s.winner = Some(t);
                s.turn = t;
            }
        }
    }
    s.settle();
    Ok(s)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    pub phase: Phase,
    pub turn: String,
    pub pending: Vec<ThrowResult>,
    pub throws_owed: u32,
    pub teams: Vec<TeamSummary>,
    pub legal: Vec<Move>,
    pub winner: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamSummary {
    pub name: String,
    pub waiting: u8,
    pub finished: u8,
    pub board: BTreeMap<String, u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: String,
    pub teams: [String; 2],
    pub pieces_per_team: u8,
    pub options: RulesConfig,
    pub events: Vec<GameEvent>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReplayError {
    pub index: Option<usize>,
    pub message: String,
}

impl GameRecord {
    pub fn new(teams: [String; 2], pieces_per_team: u8, options: RulesConfig) -> GameRecord {
        GameRecord {
            format: "yut-record/1".into(),
            teams,
            pieces_per_team,
            options,
            events: Vec::new(),
        }
    }
    pub fn replay(&self) -> Result<GameState, ReplayError> {
        let mut state = GameState::new(
            self.teams.clone(),
            self.pieces_per_team,
            self.options.clone(),
        );
        for (index, event) in self.events.iter().enumerate() {
            state = apply(&state, event).map_err(|e| ReplayError {
                index: Some(index),
                message: e.to_string(),
            })?;
        }
        Ok(state)
    }
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serialises")
    }
}
