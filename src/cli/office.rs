//! `yutstation office`: the tournament office (its journal, the MQTT link to the
//! stations, the hall screen and the console); `office standings` to print the
//! standings from the office's journal and rebuild them from the stations'
//! journals; `office load` to measure the office under many simulated stations.
//!
//! Shell: arguments, files, the terminal.

use super::InputError;
use anyhow::Context;
use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use yut_match::MatchOptions;
use yut_tournament::{Format, OfficeEntry, Tournament};
use yutstation::journal::Journal;
use yutstation::office::run::{self as office_run, OfficeOptions};
use yutstation::office::store::OfficeJournal;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct OfficeArgs {
    #[command(subcommand)]
    pub command: Option<OfficeCommand>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Subcommand)]
pub enum OfficeCommand {
    /// Print the standings from the office's journal; with --station MAT=DIR, rebuild
    /// them from the stations' journals alone and compare.
    Standings(StandingsArgs),
    /// Measure the office: simulated stations (no rendering) publish at event rate
    /// through one local broker; prints latency, the office's CPU and memory.
    Load(super::hall::LoadArgs),
}

#[derive(Args)]
pub struct RunArgs {
    /// The office's data directory (its journal).
    #[arg(long, default_value = "office-data")]
    pub data: PathBuf,
    /// The MQTT broker, HOST:PORT.
    #[arg(long, default_value = "127.0.0.1:1883")]
    pub broker: String,
    /// Where the hall screen (/tournament) and the console (/office) are served.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub listen: SocketAddr,
    /// The console PIN (a random one is printed when not given).
    #[arg(long, env = "YUTSTATION_OFFICE_PIN")]
    pub pin: Option<String>,
    /// Show mats 1..=N on the board before their stations speak.
    #[arg(long, default_value_t = 0)]
    pub mats: u32,
    /// Register these teams (roster CSV) and draw at start, if the journal is new.
    #[arg(long)]
    pub teams: Option<PathBuf>,
    /// The format for --teams: `single` or `groups:G:A` (G groups, A advance).
    #[arg(long, default_value = "single")]
    pub format: String,
    /// Pieces per team in every game (1–4).
    #[arg(long, default_value_t = 4)]
    pub pieces: u8,
    /// The draw's seed for --teams.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Do not send fixtures to free mats by itself: the console assigns.
    #[arg(long)]
    pub manual: bool,
}

#[derive(Args)]
pub struct StandingsArgs {
    /// The office's data directory.
    #[arg(long)]
    pub data: PathBuf,
    /// Station data directories as `MAT=DIR` (e.g. `3=hall/mat-3`).
    #[arg(long = "station", value_name = "MAT=DIR")]
    pub stations: Vec<String>,
}

pub fn run(args: OfficeArgs) -> anyhow::Result<()> {
    match args.command {
        Some(OfficeCommand::Standings(a)) => standings(a),
        Some(OfficeCommand::Load(a)) => super::hall::run_load(a),
        None => serve(args.run),
    }
}

/// `single` or `groups:G:A`.
pub fn parse_format(s: &str) -> Result<Format, InputError> {
    match s.split(':').collect::<Vec<_>>().as_slice() {
        ["single"] => Ok(Format::SingleElimination),
        ["groups", g, a] => match (g.parse(), a.parse()) {
            (Ok(groups), Ok(advance)) => Ok(Format::Groups { groups, advance }),
            _ => Err(InputError(format!(
                "format `{s}`: groups:G:A with whole numbers"
            ))),
        },
        _ => Err(InputError(format!(
            "format `{s}`: `single` or `groups:G:A` (G groups, the best A of each advance)"
        ))),
    }
}

fn serve(a: RunArgs) -> anyhow::Result<()> {
    let initial = match &a.teams {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| InputError(format!("cannot read {}: {e}", path.display())))?;
            let teams = yut_tournament::parse_csv(&text).map_err(|e| InputError(e.to_string()))?;
            let options = MatchOptions {
                pieces_per_team: a.pieces,
                ..MatchOptions::default()
            };
            Some((teams, parse_format(&a.format)?, options, a.seed))
        }
        None => None,
    };
    let pin = a
        .pin
        .clone()
        .unwrap_or_else(|| format!("{:04}", rand::random::<u16>() % 10_000));
    let rt = tokio::runtime::Runtime::new()?;
    let hub = office_run::start(
        OfficeOptions {
            data_dir: a.data.clone(),
            broker: a.broker.clone(),
            mats: a.mats,
            auto_assign: !a.manual,
            initial,
        },
        &pin,
        rt.handle(),
    )
    .with_context(|| format!("office data directory {}", a.data.display()))?;
    if a.pin.is_none() {
        println!("office PIN: {pin}");
    }
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.listen).await.map_err(|e| {
            InputError(format!("cannot listen on {}: {e} (use --listen)", a.listen))
        })?;
        println!(
            "office: hall screen http://{0}/tournament   console http://{0}/office   broker {1}",
            a.listen, a.broker
        );
        tokio::select! {
            r = yutstation::office::server::serve(hub, listener) => r.map_err(anyhow::Error::from),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

/// The registration and the draw of an office journal, with nothing else: the
/// start of a rebuild.
pub fn drawn_only(entries: &[OfficeEntry]) -> anyhow::Result<Tournament> {
    let mut t = Tournament::default();
    for e in entries {
        if matches!(e, OfficeEntry::Register { .. } | OfficeEntry::Draw { .. }) {
            t.apply(e)?;
        }
    }
    Ok(t)
}

/// Rebuild the tournament from the office's registration, draw and own decisions
/// (forfeits, corrections) and the stations' journals: each station's entries in
/// journal order, mat after mat.
pub fn rebuild(
    office: &[OfficeEntry],
    stations: &BTreeMap<u32, PathBuf>,
) -> anyhow::Result<Tournament> {
    let mut t = drawn_only(office)?;
    for (mat, dir) in stations {
        let (journal, problems) = Journal::open(dir)
            .with_context(|| format!("station journal of mat {mat} in {}", dir.display()))?;
        for p in problems {
            eprintln!("yutstation: mat {mat}: {p}");
        }
        let (entries, _) = journal.entries();
        let mut prev = 0;
        for rec in entries {
            t.apply(&OfficeEntry::Station {
                at_ms: 0,
                mat: *mat,
                id: rec.id,
                prev,
                entry: rec.entry,
            })?;
            prev = rec.id;
        }
    }
    for e in office {
        if matches!(e, OfficeEntry::Forfeit { .. } | OfficeEntry::Correct { .. }) {
            if let Err(err) = t.apply(e) {
                eprintln!("yutstation: office decision not applied in the rebuild: {err}");
            }
        }
    }
    Ok(t)
}

pub fn print_standings(title: &str, t: &Tournament) {
    println!("{title}");
    for s in t.standings() {
        println!("  {:>3}  {}", s.place, s.team);
    }
}

fn parse_station(s: &str) -> Result<(u32, PathBuf), InputError> {
    let (mat, dir) = s
        .split_once('=')
        .ok_or_else(|| InputError(format!("--station `{s}`: give it as MAT=DIR")))?;
    let mat = mat
        .parse()
        .map_err(|_| InputError(format!("--station `{s}`: the mat is a number")))?;
    Ok((mat, PathBuf::from(dir)))
}

fn standings(a: StandingsArgs) -> anyhow::Result<()> {
    if !a.data.join(yutstation::office::store::DB_FILE).exists() {
        return Err(InputError(format!("no office journal in {}", a.data.display())).into());
    }
    let (journal, problems) = OfficeJournal::open(&a.data)?;
    for p in problems {
        eprintln!("yutstation: {p}");
    }
    print_standings("standings (office journal):", journal.state());
    if a.stations.is_empty() {
        return Ok(());
    }
    let stations = a
        .stations
        .iter()
        .map(|s| parse_station(s))
        .collect::<Result<BTreeMap<_, _>, _>>()?;
    let rebuilt = rebuild(&journal.entries()?, &stations)?;
    print_standings(
        &format!(
            "standings rebuilt from {} station journals:",
            stations.len()
        ),
        &rebuilt,
    );
    if rebuilt.standings() == journal.state().standings() {
        println!("equal");
        Ok(())
    } else {
        anyhow::bail!("the rebuilt standings differ from the office's")
    }
}

/// The office's Station entries for one mat, in the order it recorded them.
pub fn office_stream(entries: &[OfficeEntry], mat: u32) -> Vec<(i64, yut_match::Entry)> {
    entries
        .iter()
        .filter_map(|e| match e {
            OfficeEntry::Station {
                mat: m, id, entry, ..
            } if *m == mat => Some((*id, entry.clone())),
            _ => None,
        })
        .collect()
}
