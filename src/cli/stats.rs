//! `yutstation stats`: what a station's journal says of its sticks and of the
//! game (the same as `/stats`, in the terminal or as CSV), and the two checks of
//! the statistics themselves: the win chances' calibration over simulated games
//! and the fairness flag's rates on simulated journals.
//!
//! Shell: files, threads and the terminal; the statistics are `yut_insight`'s.

use crate::cli::InputError;
use clap::{Args, Subcommand};
use rand::SeedableRng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use yut_insight::chances::{self, deciles, judge_one_game, Judged, PLAYOUTS};
use yut_insight::fairness::{self, FairnessConfig, FairnessReport, GroupStats};
use yut_insight::reads::{shares_in_play, throws_read};
use yut_insight::simulate::flag_rate;
use yut_insight::StickShares;
use yutstation::journal::{Journal, DB_FILE};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StatsArgs {
    #[command(subcommand)]
    pub check: Option<StatsCheck>,
    /// The station's data directory (its journal).
    pub data_dir: Option<PathBuf>,
    /// Write the statistics as CSV to this file (`-` for the terminal).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// The share of flat-face landings expected of every stick (adds the tests
    /// against it); overrides the data directory's fairness.toml.
    #[arg(long)]
    pub expected_share: Option<f64>,
    /// Playouts per point of the line over the latest game (0: no line).
    #[arg(long, default_value_t = 500)]
    pub line_playouts: u32,
}

#[derive(Subcommand)]
pub enum StatsCheck {
    /// The win chances' calibration: simulate games, estimate the chance at a
    /// position of each, and compare with how the games ended, by tenths.
    Calibrate {
        #[arg(long, default_value_t = 10_000)]
        games: u64,
        #[arg(long, default_value_t = PLAYOUTS)]
        playouts: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (the timings are of one update on one core each).
        #[arg(long, default_value_t = 2)]
        threads: u64,
    },
    /// The fairness flag's rates on simulated journals: one stick at 60 % flat
    /// face up against 50 % for its siblings, and fair sticks.
    FairnessCheck {
        #[arg(long, default_value_t = 1000)]
        runs: u32,
        #[arg(long, default_value_t = 400)]
        throws: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(a: StatsArgs) -> anyhow::Result<()> {
    match (a.check, a.data_dir) {
        (
            Some(StatsCheck::Calibrate {
                games,
                playouts,
                seed,
                threads,
            }),
            _,
        ) => calibrate(games, playouts, seed, threads),
        (Some(StatsCheck::FairnessCheck { runs, throws, seed }), _) => {
            fairness_check(runs, throws, seed)
        }
        (None, Some(dir)) => report(&dir, a.csv.as_deref(), a.expected_share, a.line_playouts),
        (None, None) => Err(InputError(
            "give a data directory (yutstation stats DATA_DIR), or `calibrate` or `fairness-check`"
                .into(),
        )
        .into()),
    }
}

fn report(
    dir: &Path,
    csv: Option<&Path>,
    expected: Option<f64>,
    line_playouts: u32,
) -> anyhow::Result<()> {
    if !dir.join(DB_FILE).is_file() {
        return Err(InputError(format!(
            "no journal in {} (expected {DB_FILE} there)",
            dir.display()
        ))
        .into());
    }
    let mut config = yutstation::station::insight::fairness_config(dir)
        .map_err(|e| InputError(e.to_string()))?;
    if let Some(p) = expected {
        if !(0.0..1.0).contains(&p) || p == 0.0 {
            return Err(InputError(format!(
                "--expected-share {p}: give a share between 0 and 1"
            ))
            .into());
        }
        config.expected_flat_share = Some(p);
    }
    let (journal, problems) = Journal::open(dir)?;
    for p in &problems {
        eprintln!("yutstation: {p}");
    }
    let (reads, count) = throws_read(journal.log());
    let report = fairness::report(&reads, &config);
    match csv {
        Some(path) if path == Path::new("-") => write_csv(&mut std::io::stdout().lock(), &report)?,
        Some(path) => {
            let mut f = std::fs::File::create(path)
                .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
            write_csv(&mut f, &report)?;
            eprintln!("yutstation: statistics written to {}", path.display());
        }
        None => {}
    }
    if csv.is_some_and(|p| p == Path::new("-")) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "throws {}: sticks read {} (counted); entered by hand {}; some stick not read or off the mat {}; called otherwise than read {}",
        count.throws, count.read, count.by_hand, count.not_all_read, count.called_otherwise
    )?;
    writeln!(
        out,
        "flag: {} per review of {} throws{}",
        config.alpha,
        config.review_throws,
        config
            .expected_flat_share
            .map(|p| format!(", expected flat share {p}"))
            .unwrap_or_default()
    )?;
    writeln!(out, "\nstick sets:")?;
    for s in &report.sets {
        writeln!(out, "{}", group_line(&s.stats))?;
        match &s.flag {
            Some(f) => writeln!(
                out,
                "    FLAG: {} (z {:+.2} beyond {:.2}, throw {} of the set, review {})",
                f.test.describe(),
                f.z,
                f.boundary,
                f.at_throw,
                f.review
            )?,
            None => writeln!(
                out,
                "    no flag (review {}: {} of {} throws; {})",
                s.review.review,
                s.review.throws,
                s.review.of,
                s.review
                    .tests
                    .iter()
                    .map(|(t, z, b)| format!("{t:?} z {z:+.2} of ±{b:.2}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?,
        }
        writeln!(out, "    {}", results_line(&s.stats))?;
    }
    writeln!(out, "\nby mat:")?;
    for g in &report.by_mat {
        writeln!(out, "{}", group_line(g))?;
    }
    writeln!(out, "\nby thrower:")?;
    for g in &report.by_thrower {
        writeln!(out, "{}", group_line(g))?;
    }
    if line_playouts > 0 {
        if let Some(game) = journal.log().current() {
            let shares = shares_in_play(&reads, &count);
            let mut rng = rand::rngs::StdRng::seed_from_u64(1);
            let line = chances::line(&game.game_record(), &shares, line_playouts, &mut rng);
            writeln!(
                out,
                "\nwin chances over game {} ({} to win, after each event; sticks {:.2} marked, {:.2} plain, {:.3} void):",
                journal.log().game_number(),
                game.team_name(0),
                shares.marked,
                shares.plain,
                shares.nak
            )?;
            let points: Vec<String> = line
                .iter()
                .map(|c| format!("{:.0}", 100.0 * c.chances[0]))
                .collect();
            for chunk in points.chunks(20) {
                writeln!(out, "  {}", chunk.join(" "))?;
            }
        }
    }
    Ok(())
}

fn group_line(g: &GroupStats) -> String {
    let who = [g.mat.as_deref(), g.thrower.as_deref()]
        .into_iter()
        .flatten()
        .map(|x| format!(" / {x}"))
        .collect::<String>();
    let share = |s: &fairness::Share| {
        format!(
            "{:5.1}% [{:4.1}–{:4.1}]",
            100.0 * s.share,
            100.0 * s.low,
            100.0 * s.high
        )
    };
    format!(
        "  {}{who}: {} throws; marked stick flat {}; plain sticks flat {}; results against the shares: {}",
        g.set,
        g.throws,
        share(&g.marked),
        share(&g.plain),
        match (g.chi_square, g.p_value) {
            (Some(x), Some(p)) => format!("χ² {x:.1}, p {p:.3}"),
            _ => "too few throws".into(),
        }
    )
}

fn results_line(g: &GroupStats) -> String {
    g.results
        .iter()
        .map(|r| {
            format!(
                "{} {} (expected {:.1})",
                r.result.korean(),
                r.seen,
                r.expected
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_csv(out: &mut impl Write, report: &FairnessReport) -> std::io::Result<()> {
    let results: Vec<String> = report.sets.first().map_or_else(
        || {
            ["do", "gae", "geol", "yut", "mo", "backdo"]
                .iter()
                .flat_map(|r| [format!("seen_{r}"), format!("expected_{r}")])
                .collect()
        },
        |s| {
            s.stats
                .results
                .iter()
                .flat_map(|r| {
                    [
                        format!("seen_{}", r.result.id()),
                        format!("expected_{}", r.result.id()),
                    ]
                })
                .collect()
        },
    );
    writeln!(
        out,
        "group,set,mat,thrower,throws,marked_up,marked_share,marked_low,marked_high,plain_up,plain_landings,plain_share,plain_low,plain_high,{},chi_square,p_value,flag,flag_at_throw",
        results.join(",")
    )?;
    let row = |out: &mut dyn Write, kind: &str, g: &GroupStats, flag: Option<&fairness::Flag>| {
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut cells = vec![
            kind.to_string(),
            quote(&g.set),
            quote(g.mat.as_deref().unwrap_or("")),
            quote(g.thrower.as_deref().unwrap_or("")),
            g.throws.to_string(),
            g.marked.up.to_string(),
            format!("{:.4}", g.marked.share),
            format!("{:.4}", g.marked.low),
            format!("{:.4}", g.marked.high),
            g.plain.up.to_string(),
            g.plain.of.to_string(),
            format!("{:.4}", g.plain.share),
            format!("{:.4}", g.plain.low),
            format!("{:.4}", g.plain.high),
        ];
        for r in &g.results {
            cells.push(r.seen.to_string());
            cells.push(format!("{:.2}", r.expected));
        }
        cells.push(g.chi_square.map_or(String::new(), |x| format!("{x:.3}")));
        cells.push(g.p_value.map_or(String::new(), |p| format!("{p:.4}")));
        cells.push(flag.map_or(String::new(), |f| format!("{:?}", f.test)));
        cells.push(flag.map_or(String::new(), |f| f.at_throw.to_string()));
        writeln!(out, "{}", cells.join(","))
    };
    for s in &report.sets {
        row(out, "set", &s.stats, s.flag.as_ref())?;
    }
    for g in &report.by_mat {
        row(out, "mat", g, None)?;
    }
    for g in &report.by_thrower {
        row(out, "thrower", g, None)?;
    }
    Ok(())
}

fn calibrate(games: u64, playouts: u32, seed: u64, threads: u64) -> anyhow::Result<()> {
    // Sticks as a D-section set often falls: flat face up a little more often.
    let shares = StickShares {
        marked: 0.6,
        plain: 0.6,
        nak: 0.02,
    };
    println!(
        "calibration: {games} simulated games (both placers the playouts' placer, sticks {} marked / {} plain flat, {} void), the chance at one random position of each by {playouts} playouts",
        shares.marked, shares.plain, shares.nak
    );
    let started = Instant::now();
    let threads = threads.max(1);
    let judged: Vec<(Judged, f64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                scope.spawn(move || {
                    (w..games)
                        .step_by(threads as usize)
                        .map(|g| {
                            let t = Instant::now();
                            let j = judge_one_game(&shares, playouts, seed, g);
                            (j, t.elapsed().as_secs_f64() * 1000.0)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a calibration worker"))
            .collect()
    });
    let table = deciles(&judged.iter().map(|(j, _)| *j).collect::<Vec<_>>());
    println!("\n estimate   positions  mean estimate  won    gap (points)  ±1 s.e.");
    let mut worst: f64 = 0.0;
    for d in &table {
        match d.gap_points() {
            Some(gap) => {
                worst = worst.max(gap.abs());
                println!(
                    " {:3.0}–{:3.0} %  {:9}  {:12.1} % {:5.1} %  {:+6.1}        {:4.1}",
                    100.0 * d.from,
                    100.0 * d.to,
                    d.positions,
                    100.0 * d.estimated,
                    100.0 * d.won,
                    gap,
                    d.noise_points()
                );
            }
            None => println!(" {:3.0}–{:3.0} %  {:9}", 100.0 * d.from, 100.0 * d.to, 0),
        }
    }
    println!("largest gap: {worst:.1} points (the floor: within 5 in every tenth)");
    let mut ms: Vec<f64> = judged.iter().map(|(_, t)| *t).collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "one game and one update with {playouts} playouts, on one core: median {:.0} ms, 90th percentile {:.0} ms, most {:.0} ms ({} threads, {:.0} s in all)",
        ms[ms.len() / 2],
        ms[ms.len() * 9 / 10],
        ms[ms.len() - 1],
        threads,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn fairness_check(runs: u32, throws: usize, seed: u64) -> anyhow::Result<()> {
    println!(
        "fairness flag on simulated journals: {runs} journals each, {throws} throws with the sticks read; stick 1 is the marked one"
    );
    println!("\n scenario                                           flat shares          flagged   rate    median throw");
    let odd_marked = [0.6, 0.5, 0.5, 0.5];
    let odd_plain = [0.5, 0.6, 0.5, 0.5];
    let siblings = FairnessConfig::default();
    let expected = FairnessConfig {
        expected_flat_share: Some(0.5),
        ..siblings
    };
    for (name, flat, config, seed_at) in [
        ("marked stick odd, siblings only", odd_marked, siblings, 0),
        ("fair sticks, siblings only", [0.5; 4], siblings, 1),
        ("fair sticks at 60 %, siblings only", [0.6; 4], siblings, 2),
        (
            "marked stick odd, expected share 0.5 given",
            odd_marked,
            expected,
            3,
        ),
        (
            "a plain stick odd, expected share 0.5 given",
            odd_plain,
            expected,
            4,
        ),
        (
            "fair sticks, expected share 0.5 given",
            [0.5; 4],
            expected,
            5,
        ),
    ] {
        let r = flag_rate(flat, throws, runs, &config, seed + seed_at * 1_000_000);
        println!(
            " {name:<50} {:<20} {:4}/{:<4} {:5.1} %  {}",
            format!("{flat:?}"),
            r.flagged,
            r.runs,
            100.0 * r.rate(),
            r.median_throw().map_or("—".into(), |t| t.to_string())
        );
    }
    println!("\nthe floor: an odd stick flagged within {throws} throws in at least 9 runs of 10; at most 1 false flag in 20 on fair sticks");
    Ok(())
}
