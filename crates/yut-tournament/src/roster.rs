//! Teams and their rosters, and the roster CSV an organiser imports
//! (`docs/tournament.md`, "Roster CSV"). Pure: text in, teams out.

use serde::{Deserialize, Serialize};
use yut_match::{MatchSetup, Player, Posture, TeamSetup};

/// One registered team: its roster (three throwers in throwing order and the coach
/// who places) and, if the organiser seeded it, its seed (1 is the strongest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Team {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    pub roster: TeamSetup,
}

impl Team {
    pub fn name(&self) -> &str {
        &self.roster.name
    }
}

/// Why a roster cannot be imported: the line and what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RosterError {
    #[error("roster line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("roster: {0}")]
    Team(String),
}

/// The header the roster CSV starts with.
pub const CSV_HEADER: &str = "team,seed,role,name,posture,height_cm";

/// Read the roster CSV: one row per player, `team,seed,role,name,posture,height_cm`,
/// `role` `thrower` (in throwing order) or `placer`; `seed` may be empty, and is read
/// from the team's first row. Fields may be double-quoted. Every team is checked as
/// a match would check it (three throwers with a stance, one placer).
pub fn parse_csv(text: &str) -> Result<Vec<Team>, RosterError> {
    let mut teams: Vec<Team> = Vec::new();
    let mut header_seen = false;
    for (ix, raw) in text.lines().enumerate() {
        let line = ix + 1;
        let raw = raw.trim_end_matches('\r');
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let fields = split_csv(raw).map_err(|message| RosterError::Line { line, message })?;
        if !header_seen {
            header_seen = true;
            let got: Vec<String> = fields.iter().map(|f| f.trim().to_lowercase()).collect();
            if got.join(",") != CSV_HEADER {
                return Err(RosterError::Line {
                    line,
                    message: format!("the first line must be the header `{CSV_HEADER}`"),
                });
            }
            continue;
        }
        let err = |message: String| RosterError::Line { line, message };
        if fields.len() != 6 {
            return Err(err(format!(
                "{} fields, expected 6 ({CSV_HEADER})",
                fields.len()
            )));
        }
        let f: Vec<&str> = fields.iter().map(|s| s.trim()).collect();
        let (team, seed, role, name) = (f[0], f[1], f[2], f[3]);
        if team.is_empty() {
            return Err(err("the team has no name".into()));
        }
        if name.is_empty() {
            return Err(err("the player has no name".into()));
        }
        let seed = if seed.is_empty() {
            None
        } else {
            Some(
                seed.parse::<u32>()
                    .ok()
                    .filter(|s| *s >= 1)
                    .ok_or_else(|| err(format!("seed `{seed}` is not a whole number from 1")))?,
            )
        };
        let at = match teams.iter().position(|t| t.roster.name == team) {
            Some(i) => i,
            None => {
                teams.push(Team {
                    seed,
                    roster: TeamSetup {
                        name: team.to_string(),
                        throwers: vec![],
                        placer: Player::placer(""),
                    },
                });
                teams.len() - 1
            }
        };
        let t = &mut teams[at];
        if seed.is_some() && t.seed.is_some() && seed != t.seed {
            return Err(err(format!("team `{team}` has two different seeds")));
        }
        t.seed = t.seed.or(seed);
        match role.to_lowercase().as_str() {
            "thrower" => {
                let posture = match f[4].to_lowercase().as_str() {
                    "seated" => Posture::Seated,
                    "standing" => Posture::Standing,
                    other => {
                        return Err(err(format!(
                            "posture `{other}`: a thrower is `seated` or `standing`"
                        )))
                    }
                };
                let height: u16 = f[5]
                    .parse()
                    .map_err(|_| err(format!("height `{}` is not a number of cm", f[5])))?;
                t.roster
                    .throwers
                    .push(Player::thrower(name, posture, height));
            }
            "placer" => {
                if !t.roster.placer.name.is_empty() {
                    return Err(err(format!("team `{team}` has a second placer")));
                }
                t.roster.placer = Player::placer(name);
            }
            other => {
                return Err(err(format!(
                    "role `{other}`: a player is a `thrower` or the `placer`"
                )))
            }
        }
    }
    if teams.is_empty() {
        return Err(RosterError::Team("no teams in the roster".into()));
    }
    check_teams(&teams)?;
    Ok(teams)
}

/// Every team must be a valid side of a match, names and seeds unique.
pub fn check_teams(teams: &[Team]) -> Result<(), RosterError> {
    for (i, a) in teams.iter().enumerate() {
        if a.roster.placer.name.is_empty() {
            return Err(RosterError::Team(format!(
                "team `{}` has no placer",
                a.name()
            )));
        }
        for b in &teams[i + 1..] {
            if a.name() == b.name() {
                return Err(RosterError::Team(format!(
                    "team `{}` is registered twice",
                    a.name()
                )));
            }
            if a.seed.is_some() && a.seed == b.seed {
                return Err(RosterError::Team(format!(
                    "teams `{}` and `{}` have the same seed {}",
                    a.name(),
                    b.name(),
                    a.seed.unwrap_or(0)
                )));
            }
        }
        // A match between this team and a stand-in checks the roster as the
        // station will when the game is registered.
        let mut other = a.roster.clone();
        other.name = format!("{} (check)", a.name());
        MatchSetup::new([a.roster.clone(), other])
            .validate()
            .map_err(|e| RosterError::Team(e.to_string()))?;
    }
    Ok(())
}

/// Write teams as the roster CSV (the inverse of [`parse_csv`]).
pub fn to_csv(teams: &[Team]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for t in teams {
        let seed = t.seed.map(|s| s.to_string()).unwrap_or_default();
        for p in &t.roster.throwers {
            let (posture, height) = match p.stance {
                Some(s) => (
                    match s.posture {
                        Posture::Seated => "seated",
                        Posture::Standing => "standing",
                    },
                    s.height_cm.to_string(),
                ),
                None => ("", String::new()),
            };
            out.push_str(&format!(
                "{},{seed},thrower,{},{posture},{height}\n",
                quote(t.name()),
                quote(&p.name)
            ));
        }
        out.push_str(&format!(
            "{},{seed},placer,{},,\n",
            quote(t.name()),
            quote(&t.roster.placer.name)
        ));
    }
    out
}

fn quote(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn split_csv(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cur.push(c),
            (false, '"') if cur.trim().is_empty() => {
                cur.clear();
                quoted = true
            }
            (false, ',') => out.push(std::mem::take(&mut cur)),
            (false, c) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    out.push(cur);
    Ok(out)
}

/// `n` made-up teams for the demo and the tests: `Team 01` … with three seated
/// throwers each, the first four seeded.
pub fn sample_teams(n: usize) -> Vec<Team> {
    const FAMILY: [&str; 8] = ["김", "이", "박", "최", "정", "강", "조", "윤"];
    (0..n)
        .map(|i| {
            let name = format!("Team {:02}", i + 1);
            let person = |k: usize| format!("{}{:02}-{k}", FAMILY[(i + k) % FAMILY.len()], i + 1);
            Team {
                seed: (i < 4).then_some(i as u32 + 1),
                roster: TeamSetup {
                    name,
                    throwers: (1..=3)
                        .map(|k| Player::thrower(&person(k), Posture::Seated, 75 + k as u16))
                        .collect(),
                    placer: Player::placer(&person(4)),
                },
            }
        })
        .collect()
}
