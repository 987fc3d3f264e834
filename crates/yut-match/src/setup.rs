//! What the coaches register before a game: the roster, the throwing order, each
//! thrower's posture and height, and the match options (`docs/yut-rules.md`,
//! "Teams and officials").
//!
//! Pure: values checked when a game is registered.

use serde::{Deserialize, Serialize};
use yut_rules::yut::RulesConfig;

/// How a thrower throws. The rulebook's height rule depends on it: a seated thrower
/// must throw above shoulder height, a standing one above waist height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Posture {
    Seated,
    Standing,
}

impl Posture {
    /// The body height that the throw must clear, as people call it.
    pub fn height_name(self) -> &'static str {
        match self {
            Posture::Seated => "shoulder",
            Posture::Standing => "waist",
        }
    }
}

/// A thrower's posture and the height that applies to it (shoulder height when
/// seated, waist height when standing), registered for the height sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stance {
    pub posture: Posture,
    /// The applicable height in cm, measured from the floor.
    pub height_cm: u16,
}

/// Plausible body heights; anything outside is a typo the referee should see.
pub const HEIGHT_RANGE_CM: std::ops::RangeInclusive<u16> = 20..=250;

/// One registered player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub name: String,
    /// Required for throwers. The placer may register one too, so that a later swap
    /// with a thrower is possible without re-registering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<Stance>,
}

impl Player {
    pub fn thrower(name: &str, posture: Posture, height_cm: u16) -> Player {
        Player {
            name: name.to_string(),
            stance: Some(Stance { posture, height_cm }),
        }
    }

    pub fn placer(name: &str) -> Player {
        Player {
            name: name.to_string(),
            stance: None,
        }
    }
}

/// One team as its coach registers it. `throwers` is in throwing order; the placer
/// is the coach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamSetup {
    pub name: String,
    pub throwers: Vec<Player>,
    pub placer: Player,
}

/// Options of the match machine, with the defaults of `docs/yut-rules.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatchOptions {
    /// The rules engine's options (`thrower_rotation` among them).
    pub rules: RulesConfig,
    pub pieces_per_team: u8,
    /// Throw clock limit; expiry is flagged to the referee, never ruled.
    pub throw_limit_s: u32,
    pub timeouts_per_team: u32,
    pub timeout_length_s: u32,
    /// When false (the default) the game clock stops during a timeout.
    pub game_clock_runs_in_timeout: bool,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            rules: RulesConfig::default(),
            pieces_per_team: 4,
            throw_limit_s: 20,
            timeouts_per_team: 1,
            timeout_length_s: 60,
            game_clock_runs_in_timeout: false,
        }
    }
}

/// Everything registered before one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSetup {
    /// In playing order: team 0 throws first.
    pub teams: [TeamSetup; 2],
    #[serde(default)]
    pub options: MatchOptions,
    /// The tournament match this game is played for (`docs/tournament.md`), when the
    /// station took it from the office's assignment; `None` for a game registered at
    /// the mat alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<String>,
}

/// Why a setup is refused. Each message says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("team {team}: the team needs a name")]
    NoTeamName { team: usize },
    #[error("both teams are called `{0}`: give them different names")]
    SameTeamName(String),
    #[error(
        "team `{team}`: {count} throwers registered, a team has exactly 3 throwers and 1 placer"
    )]
    ThrowerCount { team: String, count: usize },
    #[error("team `{team}`: a player has no name")]
    NoPlayerName { team: String },
    #[error("team `{team}`: `{player}` is registered twice")]
    DuplicatePlayer { team: String, player: String },
    #[error("team `{team}`: thrower `{player}` needs a posture (seated/standing) and height for the height sensor")]
    NoStance { team: String, player: String },
    #[error(
        "team `{team}`: `{player}`'s {height_name} height {height_cm} cm is outside 20..=250 cm"
    )]
    ImplausibleHeight {
        team: String,
        player: String,
        height_name: &'static str,
        height_cm: u16,
    },
    #[error("pieces_per_team = {0}: must be between 1 and 4")]
    Pieces(u8),
    #[error("throw_limit_s must be at least 1 s")]
    ThrowLimit,
    #[error("timeout_length_s must be at least 1 s when timeouts_per_team > 0")]
    TimeoutLength,
}

impl MatchSetup {
    /// A setup with default options.
    pub fn new(teams: [TeamSetup; 2]) -> MatchSetup {
        MatchSetup {
            teams,
            options: MatchOptions::default(),
            fixture: None,
        }
    }

    /// Refuse anything the rulebook does not allow, with the first reason found.
    pub fn validate(&self) -> Result<(), SetupError> {
        for (i, team) in self.teams.iter().enumerate() {
            if team.name.trim().is_empty() {
                return Err(SetupError::NoTeamName { team: i });
            }
        }
        if self.teams[0].name == self.teams[1].name {
            return Err(SetupError::SameTeamName(self.teams[0].name.clone()));
        }
        for team in &self.teams {
            let name = || team.name.clone();
            if team.throwers.len() != 3 {
                return Err(SetupError::ThrowerCount {
                    team: name(),
                    count: team.throwers.len(),
                });
            }
            let all: Vec<&Player> = team.throwers.iter().chain([&team.placer]).collect();
            for (i, p) in all.iter().enumerate() {
                if p.name.trim().is_empty() {
                    return Err(SetupError::NoPlayerName { team: name() });
                }
                if all[..i].iter().any(|q| q.name == p.name) {
                    return Err(SetupError::DuplicatePlayer {
                        team: name(),
                        player: p.name.clone(),
                    });
                }
                if let Some(stance) = p.stance {
                    check_height(&team.name, p, stance)?;
                }
            }
            for p in &team.throwers {
                if p.stance.is_none() {
                    return Err(SetupError::NoStance {
                        team: name(),
                        player: p.name.clone(),
                    });
                }
            }
        }
        let o = &self.options;
        if !(1..=4).contains(&o.pieces_per_team) {
            return Err(SetupError::Pieces(o.pieces_per_team));
        }
        if o.throw_limit_s == 0 {
            return Err(SetupError::ThrowLimit);
        }
        if o.timeouts_per_team > 0 && o.timeout_length_s == 0 {
            return Err(SetupError::TimeoutLength);
        }
        Ok(())
    }
}

fn check_height(team: &str, p: &Player, stance: Stance) -> Result<(), SetupError> {
    if HEIGHT_RANGE_CM.contains(&stance.height_cm) {
        Ok(())
    } else {
        Err(SetupError::ImplausibleHeight {
            team: team.to_string(),
            player: p.name.clone(),
            height_name: stance.posture.height_name(),
            height_cm: stance.height_cm,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A full roster for team `name` (also used by the match machine's tests).
    pub(crate) fn team(name: &str) -> TeamSetup {
        TeamSetup {
            name: name.into(),
            throwers: vec![
                Player::thrower(&format!("{name}1"), Posture::Seated, 80),
                Player::thrower(&format!("{name}2"), Posture::Standing, 95),
                Player::thrower(&format!("{name}3"), Posture::Seated, 82),
            ],
            placer: Player::placer(&format!("{name}-coach")),
        }
    }

    #[test]
    fn a_full_roster_is_accepted() {
        MatchSetup::new([team("청"), team("홍")])
            .validate()
            .unwrap();
    }

    #[test]
    fn invalid_setups_are_refused_with_a_reason() {
        let mut s = MatchSetup::new([team("청"), team("청")]);
        assert!(matches!(s.validate(), Err(SetupError::SameTeamName(_))));

        s.teams[1] = team("홍");
        s.teams[1].throwers.pop();
        let err = s.validate().unwrap_err();
        assert!(err.to_string().contains("2 throwers"), "{err}");

        s.teams[1] = team("홍");
        s.teams[1].placer.name = "홍1".into();
        assert!(matches!(
            s.validate(),
            Err(SetupError::DuplicatePlayer { .. })
        ));

        s.teams[1] = team("홍");
        s.teams[1].throwers[2].stance = None;
        assert!(matches!(s.validate(), Err(SetupError::NoStance { .. })));

        s.teams[1] = team("홍");
        s.teams[1].throwers[0].stance = Some(Stance {
            posture: Posture::Seated,
            height_cm: 800,
        });
        let err = s.validate().unwrap_err();
        assert!(err.to_string().contains("shoulder height 800 cm"), "{err}");

        s.teams[1] = team("홍");
        s.options.pieces_per_team = 0;
        assert!(matches!(s.validate(), Err(SetupError::Pieces(0))));

        s.options = MatchOptions::default();
        s.teams[0].name = " ".into();
        assert!(matches!(
            s.validate(),
            Err(SetupError::NoTeamName { team: 0 })
        ));
    }

    #[test]
    fn options_default_from_json() {
        let s: MatchSetup = serde_json::from_value(serde_json::json!({
            "teams": [team("청"), team("홍")],
            "options": { "rules": { "thrower_rotation": "per_turn" } }
        }))
        .unwrap();
        assert_eq!(s.options.timeouts_per_team, 1);
        assert_eq!(s.options.timeout_length_s, 60);
        assert_eq!(s.options.throw_limit_s, 20);
        let bad = serde_json::from_value::<MatchSetup>(serde_json::json!({
            "teams": [team("청"), team("홍")],
            "options": { "timeouts": 3 }
        }));
        assert!(bad.is_err());
    }
}
