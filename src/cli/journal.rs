//! `yutstation journal show|export|bench`: read a station's journal, export a game as
//! a `yut-record/1` record, measure the journal.
//!
//! Shell: files and the terminal.

use crate::cli::InputError;
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use yut_match::{digest, synth, Entry, MatchLog};
use yut_match::{Action, Input, MatchEvent};
use yutstation::journal::{Journal, JournalError, Problem};
use yutstation::text::{printable, utc_text};

#[derive(Subcommand)]
pub enum JournalCommand {
    /// Print every journal entry, readable, then the current game's state.
    Show { data_dir: PathBuf },
    /// Print game N of the journal as a `yut-record/1` game record.
    Export {
        data_dir: PathBuf,
        #[arg(long)]
        game: u32,
        /// Also copy the game's replay clips into this folder
        /// (`game-N-throw-M.webm`).
        #[arg(long)]
        clips: Option<PathBuf>,
    },
    /// List every throw's replay clip: its size, and (`--check`) whether it
    /// decodes; the storage a day of play takes.
    Clips {
        data_dir: PathBuf,
        #[arg(long)]
        check: bool,
    },
    /// Delete the replay clips that an export folder holds byte for byte (never
    /// stills, never events): after `journal export --clips`.
    PruneClips {
        data_dir: PathBuf,
        #[arg(long)]
        exported: PathBuf,
    },
    /// Measure appends (each fsynced) and the restart (open + fold) on a new journal.
    Bench {
        /// A data directory that does not exist yet (it is created and kept).
        data_dir: PathBuf,
        #[arg(long, default_value_t = 10_000)]
        events: u64,
    },
    /// Append synthetic events as fast as possible, printing `ID DIGEST` once each is
    /// acknowledged (for the crash test). `--events 0` runs until killed.
    #[command(hide = true)]
    AppendBench {
        data_dir: PathBuf,
        #[arg(long, default_value_t = 0)]
        events: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(command: JournalCommand) -> anyhow::Result<()> {
    match command {
        JournalCommand::Show { data_dir } => show(&data_dir),
        JournalCommand::Export {
            data_dir,
            game,
            clips,
        } => export(&data_dir, game, clips.as_deref()),
        JournalCommand::Clips { data_dir, check } => super::clips::list(&data_dir, check),
        JournalCommand::PruneClips { data_dir, exported } => {
            super::clips::prune(&data_dir, &exported)
        }
        JournalCommand::Bench { data_dir, events } => bench(&data_dir, events),
        JournalCommand::AppendBench {
            data_dir,
            events,
            seed,
        } => append_bench(&data_dir, events, seed),
    }
}

/// Open an existing journal to read it; a missing one is the user's mistake (2), a
/// lost one is damage (1). Its problems go to stderr, one line each.
fn open_existing(dir: &Path) -> anyhow::Result<(Journal, Vec<Problem>)> {
    let (journal, problems) = Journal::inspect(dir).map_err(|e| match e {
        JournalError::NoJournal { .. } => anyhow::Error::from(InputError(e.to_string())),
        e => e.into(),
    })?;
    for p in &problems {
        eprintln!("yutstation: {}", printable(&p.to_string()));
    }
    Ok((journal, problems))
}

/// Exit 1 after printing what could be read, when the journal is not whole.
fn whole(dir: &Path, problems: &[Problem]) -> anyhow::Result<()> {
    match problems.iter().filter(|p| p.blocks_writing()).count() {
        0 => Ok(()),
        n => anyhow::bail!(
            "the journal in {} is not whole ({n} problem{} above): what could be read is shown",
            dir.display(),
            if n == 1 { "" } else { "s" }
        ),
    }
}

fn show(dir: &Path) -> anyhow::Result<()> {
    let (journal, problems) = open_existing(dir)?;
    let (entries, _) = journal.entries();
    let mut out = std::io::stdout().lock();
    // Every line goes through `printable`: names and notes are people's text.
    macro_rules! line {
        ($($arg:tt)*) => {
            writeln!(out, "{}", printable(&format!($($arg)*)))
        };
    }
    line!(
        "journal {} ({} events; times UTC)",
        dir.display(),
        entries.len()
    )?;
    // Fold alongside, to say who threw and what a correction invalidated.
    let mut station = MatchLog::default();
    for rec in &entries {
        let folded = station.apply(&rec.entry).is_ok();
        let mut line = describe(&rec.entry);
        if let (true, Some(game), Entry::Event(e)) = (folded, station.current(), &rec.entry) {
            if let Action::Throw { .. } = e.action {
                if let Some(t) = game.throws().last() {
                    line = format!(
                        "#{} by {} ({}) {line}",
                        t.number,
                        t.thrower,
                        game.team_name(t.team)
                    );
                }
            }
            if matches!(
                e.action,
                Action::Call { .. } | Action::WrongPlayer { .. } | Action::Undo
            ) {
                for inv in game.last_invalidated() {
                    line += &format!("; invalidates {}: {}", input_text(&inv.input), inv.reason);
                }
            }
        }
        if !folded {
            line += "  [skipped: does not fit the match]";
        }
        line!(
            "#{:<6} {}  game {:<3} {line}",
            rec.id,
            utc_text(rec.at_ms).trim_end_matches(" UTC"),
            rec.game
        )?;
    }
    if let Some(game) = journal.log().current() {
        let g = game.game();
        let now = game.last_at();
        line!("---")?;
        line!(
            "game {}: {} vs {}, phase {}, turn {}, pending {:?}, game clock {}",
            journal.log().game_number(),
            game.team_name(0),
            game.team_name(1),
            serde_json::to_value(g.phase())?.as_str().unwrap_or("?"),
            game.team_name(g.turn()),
            g.pending().iter().map(|r| r.id()).collect::<Vec<_>>(),
            clock(game.game_clock_ms(now)),
        )?;
        if let Some(n) = game.next_thrower() {
            line!(
                "next thrower: {} ({})",
                n.player.name,
                game.team_name(n.team)
            )?;
        }
        if let Some(n) = game.awaiting_call() {
            line!("throw #{n} waits for the referee's call")?;
        }
        let invalid = game
            .items()
            .iter()
            .filter(|i| matches!(i.status, yut_match::Status::Invalidated(_)))
            .count();
        line!(
            "throws {}, overrides {}, invalidated inputs {}, warnings {}, protests {}, timeouts left {}/{}",
            game.throws().count(),
            game.overrides().len(),
            invalid,
            game.warnings().len(),
            game.protests().len(),
            game.timeouts_left(0),
            game.timeouts_left(1),
        )?;
    }
    whole(dir, &problems)
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// One line per entry, for people.
fn describe(entry: &Entry) -> String {
    match entry {
        Entry::NewGame { setup, .. } => {
            let roster = |i: usize| {
                let t = &setup.teams[i];
                let throwers: Vec<&str> = t.throwers.iter().map(|p| p.name.as_str()).collect();
                format!(
                    "{} [{} | placer {}]",
                    t.name,
                    throwers.join(", "),
                    t.placer.name
                )
            };
            format!("new game: {} vs {}", roster(0), roster(1))
        }
        Entry::Event(MatchEvent {
            action, by, note, ..
        }) => {
            let mut line = describe_action(action);
            if let Some(by) = by {
                line += &format!(" by {by}");
            }
            if let Some(note) = note {
                line += &format!(" ({note})");
            }
            line
        }
    }
}

fn describe_action(action: &Action) -> String {
    match action {
        Action::Start => "start".into(),
        Action::Throw { verdict } if verdict.manual => format!(
            "throw entered by hand: {}",
            verdict
                .result
                .map_or("?".into(), |r| format!("{} ({})", r.id(), r.korean()))
        ),
        Action::Throw { verdict } => {
            let mut s = match verdict.result {
                Some(r) => format!("throw: seen {} ({})", r.id(), r.korean()),
                None => "throw: unclear".into(),
            };
            if let Some(c) = verdict.confidence {
                s += &format!(", confidence {c:.2}");
            }
            if !verdict.evidence.is_empty() {
                s += &format!(", {} evidence", verdict.evidence.len());
            }
            if verdict.flags.is_empty() && verdict.result.is_some() {
                s += ", called automatically";
            } else {
                s += &format!(", for the referee [{}]", verdict.flags.join(", "));
            }
            s
        }
        Action::Call { throw, result } => {
            format!(
                "referee calls throw #{throw}: {} ({})",
                result.id(),
                result.korean()
            )
        }
        Action::WrongPlayer { throw, wrong: true } => {
            format!("referee: throw #{throw} by the wrong player (낙)")
        }
        Action::WrongPlayer {
            throw,
            wrong: false,
        } => {
            format!("referee: throw #{throw} was by the right player after all")
        }
        Action::Move(m) => format!("move {}: {} -> {}", m.result.id(), m.from, m.to),
        Action::Undo => "undo the last move".into(),
        Action::Substitute {
            team,
            requested_by,
            swap,
        } => format!(
            "substitution for team {team} requested by {requested_by}: {} <-> {}",
            swap[0], swap[1]
        ),
        Action::TimeoutStart { team } => format!("timeout for team {team}"),
        Action::TimeoutEnd => "timeout ends".into(),
        Action::Protest {
            team,
            by,
            throw,
            note,
        } => format!(
            "protest by {by} (team {team}){}{}",
            throw
                .map(|t| format!(" about throw #{t}"))
                .unwrap_or_default(),
            if note.is_empty() {
                String::new()
            } else {
                format!(": {note}")
            }
        ),
    }
}

fn input_text(input: &Input) -> String {
    match input {
        Input::Throw(t) => format!(
            "throw #{} ({})",
            t.number,
            t.effective().map_or("not called", |r| r.id())
        ),
        Input::Move { mv, .. } => format!("move {} {} -> {}", mv.result.id(), mv.from, mv.to),
    }
}

fn export(dir: &Path, game: u32, clips: Option<&Path>) -> anyhow::Result<()> {
    let (journal, problems) = open_existing(dir)?;
    whole(dir, &problems)?;
    let games = &journal.log().games;
    let state = game
        .checked_sub(1)
        .and_then(|i| games.get(i as usize))
        .ok_or_else(|| {
            InputError(format!(
                "no game {game} in {} (it holds games 1..={})",
                dir.display(),
                games.len()
            ))
        })?;
    let record = state.game_record();
    println!("{}", record.to_json_pretty());
    let invalid = state
        .items()
        .iter()
        .filter(|i| matches!(i.status, yut_match::Status::Invalidated(_)))
        .filter(|i| matches!(i.input, Input::Move { .. }))
        .count();
    if invalid > 0 {
        eprintln!("yutstation: {invalid} move(s) invalidated by corrections are not in the record");
    }
    if let Some(folder) = clips {
        super::clips::export(&journal, state, game, folder)?;
    }
    Ok(())
}

fn bench(dir: &Path, events: u64) -> anyhow::Result<()> {
    if dir.exists() {
        return Err(InputError(format!(
            "{} exists: the bench needs a new directory",
            dir.display()
        ))
        .into());
    }
    let (mut journal, _) = Journal::open(dir)?;
    let start = Instant::now();
    for _ in 0..events {
        let entry = synth::next_entry(journal.log(), 7);
        journal.append(&entry)?;
    }
    let append_s = start.elapsed().as_secs_f64();
    let games = journal.log().games.len();
    let before = digest(journal.log());
    drop(journal);
    let start = Instant::now();
    let (journal, problems) = Journal::open(dir)?;
    let restart_s = start.elapsed().as_secs_f64();
    anyhow::ensure!(problems.is_empty(), "the reopened journal has problems");
    anyhow::ensure!(
        digest(journal.log()) == before,
        "the reopened journal folds to a different state"
    );
    println!(
        "appended {events} events ({games} games) with fsync in {append_s:.2} s: {:.0} events/s ({:.2} ms each)",
        events as f64 / append_s,
        append_s * 1000.0 / events.max(1) as f64
    );
    println!(
        "restart (open + fold of {events} events): {:.1} ms",
        restart_s * 1000.0
    );
    Ok(())
}

fn append_bench(dir: &Path, events: u64, seed: u64) -> anyhow::Result<()> {
    let (mut journal, problems) = Journal::open(dir)?;
    anyhow::ensure!(problems.is_empty(), "journal has problems: {}", problems[0]);
    let mut out = std::io::stdout().lock();
    let mut n = 0;
    while events == 0 || n < events {
        let mut entry = synth::next_entry(journal.log(), seed);
        // Each throw carries a small evidence blob, written (and fsynced) before the
        // event that refers to it.
        if let Entry::Event(MatchEvent {
            at_ms,
            action: Action::Throw { verdict },
            ..
        }) = &mut entry
        {
            let frame = format!("synthetic frame at {at_ms} ms, seed {seed}");
            verdict
                .evidence
                .push(journal.put_evidence(frame.as_bytes())?);
        }
        let id = journal.append(&entry)?;
        // Printed only once the append is acknowledged (committed and fsynced).
        writeln!(out, "{id} {}", digest(journal.log()))?;
        out.flush()?;
        n += 1;
    }
    Ok(())
}
