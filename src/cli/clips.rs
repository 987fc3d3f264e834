//! The replay clips of a journal: copied out with `journal export --clips`,
//! listed and checked with `journal clips`, pruned after export with `journal
//! prune-clips` (only clips, only those the export folder holds byte for byte).
//!
//! Shell: files, OpenCV's video reader and the terminal.

use crate::cli::InputError;
use std::path::Path;
use yut_match::{EvidenceRef, MatchState};
use yutstation::journal::{hash_of, EvidenceStore, Journal, DB_FILE};

fn open(dir: &Path) -> anyhow::Result<Journal> {
    if !dir.join(DB_FILE).is_file() {
        return Err(InputError(format!(
            "no journal in {} (expected {DB_FILE} there)",
            dir.display()
        ))
        .into());
    }
    // Read without the data folder's lock, writing nothing: a running
    // station's clips can be listed, and pruning touches only clip files.
    Ok(Journal::inspect(dir)?.0)
}

/// Every throw with a clip: (game, throw, hash).
fn clips_of(journal: &Journal) -> Vec<(u32, u32, EvidenceRef)> {
    journal
        .log()
        .games
        .iter()
        .enumerate()
        .flat_map(|(g, game)| {
            game.throws()
                .filter_map(move |t| t.verdict.clip.clone().map(|c| (g as u32 + 1, t.number, c)))
        })
        .collect()
}

fn clip_name(game: u32, throw: u32) -> String {
    format!("game-{game}-throw-{throw}.webm")
}

pub fn export(journal: &Journal, game: &MatchState, n: u32, folder: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(folder)
        .map_err(|e| InputError(format!("cannot create {}: {e}", folder.display())))?;
    let (mut copied, mut missing) = (0, 0);
    for t in game.throws() {
        let Some(clip) = &t.verdict.clip else {
            continue;
        };
        match journal.evidence(clip) {
            Ok(bytes) => {
                std::fs::write(folder.join(clip_name(n, t.number)), bytes)?;
                copied += 1;
            }
            Err(e) => {
                eprintln!("yutstation: throw {}: {e}", t.number);
                missing += 1;
            }
        }
    }
    eprintln!(
        "yutstation: {copied} clip(s) of game {n} copied to {}{}",
        folder.display(),
        if missing > 0 {
            format!(", {missing} missing (pruned?)")
        } else {
            String::new()
        }
    );
    Ok(())
}

pub fn list(dir: &Path, check: bool) -> anyhow::Result<()> {
    let journal = open(dir)?;
    let throws: usize = journal.log().games.iter().map(|g| g.throws().count()).sum();
    let clips = clips_of(&journal);
    let (mut bytes_all, mut present, mut bad) = (0u64, 0u32, 0u32);
    for (game, throw, hash) in &clips {
        match journal.evidence(hash) {
            Ok(bytes) => {
                present += 1;
                bytes_all += bytes.len() as u64;
                if check {
                    match yutstation::station::clip::decode(&bytes) {
                        Ok((frames, w, h)) if frames >= 2 => println!(
                            "game {game} throw {throw}: {} kB, {frames} frames {w}x{h}",
                            bytes.len() / 1000
                        ),
                        Ok((frames, ..)) => {
                            bad += 1;
                            println!("game {game} throw {throw}: NOT PLAYABLE ({frames} frames)");
                        }
                        Err(e) => {
                            bad += 1;
                            println!("game {game} throw {throw}: NOT PLAYABLE ({e})");
                        }
                    }
                }
            }
            Err(_) => println!("game {game} throw {throw}: pruned or missing"),
        }
    }
    let mean = bytes_all as f64 / f64::from(present.max(1));
    println!(
        "{throws} throws, {} with a clip, {present} clips on disk, {:.1} MB, {:.0} kB a clip",
        clips.len(),
        bytes_all as f64 / 1e6,
        mean / 1000.0
    );
    // A day: eight hours of play at a throw every 20 s on one mat.
    let day = 8.0 * 3600.0 / 20.0;
    println!(
        "a day of play (8 h, a throw every 20 s: {day:.0} throws) takes about {:.0} MB of clips on one mat",
        day * mean / 1e6
    );
    if check {
        if bad > 0 || present as usize != clips.len() || clips.len() != throws {
            anyhow::bail!(
                "{bad} clip(s) do not decode; {} throw(s) without a clip on disk",
                throws - present as usize
            );
        }
        println!("every throw has a playable clip");
    }
    Ok(())
}

pub fn prune(dir: &Path, exported: &Path) -> anyhow::Result<()> {
    let journal = open(dir)?;
    let store = EvidenceStore::new(dir.join("evidence"));
    let (mut pruned, mut kept, mut freed) = (0, 0, 0u64);
    for (game, throw, hash) in clips_of(&journal) {
        if !store.contains(&hash) {
            continue;
        }
        let copy = exported.join(clip_name(game, throw));
        match std::fs::read(&copy) {
            Ok(bytes) if hash_of(&bytes) == hash => {
                freed += bytes.len() as u64;
                store.remove_clip(&hash)?;
                pruned += 1;
            }
            _ => kept += 1,
        }
    }
    println!(
        "{pruned} clip(s) pruned ({:.1} MB freed); {kept} kept (not in {} byte for byte: export them first)",
        freed as f64 / 1e6,
        exported.display()
    );
    Ok(())
}
