//! The insight task: after every change of the journal, the chance each team
//! wins from the current position (first, at once), the stick-fairness report,
//! then, while nothing newer waits, the line of chances over the current game.
//! It holds no statistics of its own: they are `yut_insight`'s; this task only
//! keeps them off the core thread, which must never wait for playouts.
//!
//! Shell: a thread, its channels, and the data directory's `fairness.toml`.

use super::view::WinView;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;
use yut_insight::chances::{win_chances, PLAYOUTS};
use yut_insight::fairness::{self, FairnessConfig, FairnessReport};
use yut_insight::reads::{shares_in_play, throws_read, ReadCount};
use yut_match::MatchLog;

/// The fairness settings of a data directory (`alpha`, `review_throws`,
/// `expected_flat_share`), when the organiser writes them.
pub const FAIRNESS_FILE: &str = "fairness.toml";

/// Playouts per point of the line over the game (the live chance has
/// [`PLAYOUTS`]): within about 2 points, at a quarter of the time.
pub const LINE_PLAYOUTS: u32 = 500;

/// The fairness settings in `dir`, or the defaults where there is no file.
pub fn fairness_config(dir: &Path) -> Result<FairnessConfig, String> {
    let path = dir.join(FAIRNESS_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text).map_err(|e| {
            format!(
                "{}: {} (keys: alpha, review_throws, expected_flat_share)",
                path.display(),
                e.message()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FairnessConfig::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// What the insight task publishes (`GET /api/stats`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Insight {
    /// The current game (1-based; 0 before any) and its team names.
    pub game: u32,
    pub teams: Vec<String>,
    /// The chances at the newest position worked out.
    pub win: Option<WinView>,
    /// Team 0's chance after each game event of the current game (and before the
    /// first); `None` where not worked out yet.
    pub line: Vec<Option<f64>>,
    pub fairness: Option<FairnessReport>,
    pub counted: ReadCount,
    /// How long the live updates took, ms on one core: the median and the most,
    /// over the last updates.
    pub update_ms_median: Option<f64>,
    pub update_ms_max: Option<f64>,
    pub updates: u64,
}

/// A fingerprint of the current game's position: its number and its events.
pub fn position_key(log: &MatchLog) -> u64 {
    let mut h = DefaultHasher::new();
    log.game_number().hash(&mut h);
    if let Some(game) = log.current() {
        game.game_record().events.hash(&mut h);
    }
    h.finish()
}

/// Run the insight task until `logs` closes: each log received (the newest
/// wins) is worked out and published on `out`; `notify` is called after each
/// live update so the core republishes.
pub fn run(
    logs: Receiver<Arc<MatchLog>>,
    config: FairnessConfig,
    out: watch::Sender<Arc<Insight>>,
    notify: impl Fn(),
) {
    let mut rng = SmallRng::seed_from_u64(0x5EED);
    let mut cache: HashMap<u64, f64> = HashMap::new();
    let mut last_key = None;
    let mut times: Vec<f64> = Vec::new();
    let mut updates = 0u64;
    let mut newest: Option<Arc<MatchLog>> = None;
    loop {
        let log = match newest.take() {
            Some(l) => l,
            None => match logs.recv() {
                Ok(l) => l,
                Err(_) => return,
            },
        };
        let log = latest(&logs, log);
        let Some(log) = log else { return };
        let (reads, counted) = throws_read(&log);
        let shares = shares_in_play(&reads, &counted);
        let mut insight = Insight {
            game: log.game_number(),
            counted,
            fairness: Some(fairness::report(&reads, &config)),
            ..Insight::default()
        };
        let Some(game) = log.current() else {
            out.send_replace(Arc::new(insight));
            continue;
        };
        insight.teams = vec![game.team_name(0).into(), game.team_name(1).into()];
        let key = position_key(&log);
        let previous = out.borrow().win.clone();
        let mut worked_out = false;
        insight.win = match previous {
            Some(w) if Some(key) == last_key => Some(w),
            _ => {
                worked_out = true;
                let started = Instant::now();
                let c = win_chances(game.game(), &shares, PLAYOUTS, &mut rng);
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                times.push(ms);
                if times.len() > 1000 {
                    times.remove(0);
                }
                updates += 1;
                Some(WinView {
                    game: log.game_number(),
                    key: format!("{key:016x}"),
                    current: true,
                    chances: c.chances,
                    std_error: c.std_error,
                    playouts: c.playouts,
                    ms,
                    shares,
                })
            }
        };
        last_key = Some(key);
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        insight.update_ms_median = sorted.get(sorted.len() / 2).copied();
        insight.update_ms_max = sorted.last().copied();
        insight.updates = updates;
        // The line over the game: what is known now, then the rest, point by
        // point, while nothing newer waits.
        let record = game.game_record();
        let mut state = record.initial_state();
        let mut prefix = DefaultHasher::new();
        log.game_number().hash(&mut prefix);
        let mut points = Vec::with_capacity(record.events.len() + 1);
        let mut states = Vec::with_capacity(record.events.len() + 1);
        for i in 0..=record.events.len() {
            let mut h = prefix.clone();
            record.events[..i].hash(&mut h);
            let k = h.finish();
            points.push((k, cache.get(&k).copied()));
            states.push(state.clone());
            if let Some(e) = record.events.get(i) {
                if state.apply_in_place(e).is_err() {
                    break;
                }
            }
        }
        if let (Some(w), Some(last)) = (&insight.win, points.last_mut()) {
            last.1.get_or_insert(w.chances[0]);
            cache.insert(last.0, w.chances[0]);
        }
        insight.line = points.iter().map(|p| p.1).collect();
        out.send_replace(Arc::new(insight.clone()));
        if worked_out {
            notify();
        }
        let mut filled = 0;
        for (i, (k, known)) in points.iter().enumerate() {
            if known.is_some() {
                continue;
            }
            match logs.try_recv() {
                Ok(l) => {
                    newest = Some(l);
                    break;
                }
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {}
            }
            let c = win_chances(&states[i], &shares, LINE_PLAYOUTS, &mut rng);
            cache.insert(*k, c.chances[0]);
            insight.line[i] = Some(c.chances[0]);
            filled += 1;
            if filled % 10 == 0 {
                out.send_replace(Arc::new(insight.clone()));
            }
        }
        if filled > 0 {
            out.send_replace(Arc::new(insight));
        }
    }
}

/// The newest of `first` and whatever else waits.
fn latest(logs: &Receiver<Arc<MatchLog>>, first: Arc<MatchLog>) -> Option<Arc<MatchLog>> {
    let mut newest = first;
    loop {
        match logs.try_recv() {
            Ok(l) => newest = l,
            Err(TryRecvError::Empty) => return Some(newest),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
}
