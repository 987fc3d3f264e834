//! The 29-station board as data: ids, Korean names, and where a piece goes next.
//!
//! Movement is described by two tables per station, read by `game.rs`:
//! - `pass`: where a piece that is *passing through* goes next (it does not turn).
//! - `exits`: where a piece that *starts its move here* may go (a junction offers a
//!   choice). For most stations the two agree.
//!
//! 방 is the one station whose continuation depends on history: a piece keeps the
//! diagonal that brought it there (`Diagonal`).
//!
//! Pure data, checked by tests.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The two diagonals that lead into 방.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagonal {
    /// Down from 모 (모도, 모개).
    FromMo,
    /// Down from 뒷모 (뒷모도, 뒷모개).
    FromDwitMo,
}

macro_rules! stations {
    ($( $variant:ident = $id:literal, $korean:literal; )*) => {
        /// A station of the board, by its stable ASCII id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum StationId { $( $variant ),* }

        impl StationId {
            /// Every station: the outer ring in forward order from 참먹이, then the
            /// diagonals.
            pub const ALL: [StationId; 29] = [ $( StationId::$variant ),* ];

            /// The stable ASCII id used in records and APIs.
            pub const fn id(self) -> &'static str {
                match self { $( StationId::$variant => $id ),* }
            }

            /// The Korean name people see.
            pub fn korean(self) -> &'static str {
                match self { $( StationId::$variant => $korean ),* }
            }
        }
    };
}

stations! {
    Chammeogi = "chammeogi", "참먹이";
    Do = "do", "도";
    Gae = "gae", "개";
    Geol = "geol", "걸";
    Yut = "yut", "윷";
    Mo = "mo", "모";
    DwitDo = "dwit_do", "뒷도";
    DwitGae = "dwit_gae", "뒷개";
    DwitGeol = "dwit_geol", "뒷걸";
    DwitYut = "dwit_yut", "뒷윷";
    DwitMo = "dwit_mo", "뒷모";
    JjiDo = "jji_do", "찌도";
    JjiGae = "jji_gae", "찌개";
    JjiGeol = "jji_geol", "찌걸";
    JjiYut = "jji_yut", "찌윷";
    JjiMo = "jji_mo", "찌모";
    NalDo = "nal_do", "날도";
    NalGae = "nal_gae", "날개";
    NalGeol = "nal_geol", "날걸";
    NalYut = "nal_yut", "날윷";
    MoDo = "mo_do", "모도";
    MoGae = "mo_gae", "모개";
    Bang = "bang", "방";
    DwitMoDo = "dwit_mo_do", "뒷모도";
    DwitMoGae = "dwit_mo_gae", "뒷모개";
    SokYut = "sok_yut", "속윷";
    SokMo = "sok_mo", "속모";
    Bangsugi = "bangsugi", "방수기";
    Anjji = "anjji", "안찌";
}

/// Where a piece passing through a station goes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Straight on to this station.
    To(StationId),
    /// Passing 참먹이 finishes the piece (나기).
    Finish,
    /// Straight along the diagonal the piece is on (방 only).
    AlongDiagonal {
        from_mo: StationId,
        from_dwit_mo: StationId,
    },
}

/// Where a piece that starts its move on a station may go first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exits {
    /// No choice: the same way as passing through.
    Straight,
    /// A junction: the placer chooses one (모, 뒷모).
    Choice(&'static [StationId]),
    /// 방: the choice depends on the diagonal that brought the piece there.
    ByDiagonal {
        from_mo: &'static [StationId],
        from_dwit_mo: &'static [StationId],
    },
}

/// One row of the board table.
#[derive(Debug, Clone, Copy)]
pub struct StationLinks {
    pub id: StationId,
    pub pass: Pass,
    pub exits: Exits,
    /// Entering this station from the given neighbour sets the piece's diagonal
    /// memory (only 방 has entries).
    pub sets_diagonal: &'static [(StationId, Diagonal)],
}

use StationId as S;

const fn straight(id: StationId, next: StationId) -> StationLinks {
    StationLinks {
        id,
        pass: Pass::To(next),
        exits: Exits::Straight,
        sets_diagonal: &[],
    }
}

/// The board, one row per station, in `StationId::ALL` order.
pub static BOARD: [StationLinks; 29] = [
    StationLinks {
        id: S::Chammeogi,
        pass: Pass::Finish,
        exits: Exits::Straight,
        sets_diagonal: &[],
    },
    straight(S::Do, S::Gae),
    straight(S::Gae, S::Geol),
    straight(S::Geol, S::Yut),
    straight(S::Yut, S::Mo),
    StationLinks {
        id: S::Mo,
        pass: Pass::To(S::DwitDo),
        exits: Exits::Choice(&[S::DwitDo, S::MoDo]),
        sets_diagonal: &[],
    },
    straight(S::DwitDo, S::DwitGae),
    straight(S::DwitGae, S::DwitGeol),
    straight(S::DwitGeol, S::DwitYut),
    straight(S::DwitYut, S::DwitMo),
    StationLinks {
        id: S::DwitMo,
        pass: Pass::To(S::JjiDo),
        exits: Exits::Choice(&[S::JjiDo, S::DwitMoDo]),
        sets_diagonal: &[],
    },
    straight(S::JjiDo, S::JjiGae),
    straight(S::JjiGae, S::JjiGeol),
    straight(S::JjiGeol, S::JjiYut),
    straight(S::JjiYut, S::JjiMo),
    // 찌모 is a corner without a choice: a piece starting there goes on to 날도.
    straight(S::JjiMo, S::NalDo),
    straight(S::NalDo, S::NalGae),
    straight(S::NalGae, S::NalGeol),
    straight(S::NalGeol, S::NalYut),
    straight(S::NalYut, S::Chammeogi),
    straight(S::MoDo, S::MoGae),
    straight(S::MoGae, S::Bang),
    StationLinks {
        id: S::Bang,
        pass: Pass::AlongDiagonal {
            from_mo: S::SokYut,
            from_dwit_mo: S::Bangsugi,
        },
        exits: Exits::ByDiagonal {
            from_mo: &[S::SokYut, S::Bangsugi],
            from_dwit_mo: &[S::Bangsugi],
        },
        sets_diagonal: &[
            (S::MoGae, Diagonal::FromMo),
            (S::DwitMoGae, Diagonal::FromDwitMo),
        ],
    },
    straight(S::DwitMoDo, S::DwitMoGae),
    straight(S::DwitMoGae, S::Bang),
    straight(S::SokYut, S::SokMo),
    straight(S::SokMo, S::JjiMo),
    straight(S::Bangsugi, S::Anjji),
    straight(S::Anjji, S::Chammeogi),
];

/// Where a new piece lands first: it enters from 참먹이.
pub const ENTRY: StationId = S::Do;

impl StationId {
    /// This station's row of the board table.
    pub fn info(self) -> &'static StationLinks {
        &BOARD[self as usize]
    }

    /// Every station a piece can move to next from here, by any route (the board's
    /// forward links, for drawing and checking).
    pub fn forward_links(self) -> Vec<StationId> {
        let info = self.info();
        let mut links: Vec<StationId> = match info.pass {
            Pass::To(next) => vec![next],
            // The ring closes: new pieces leave 참먹이 for 도 (a piece standing on
            // 참먹이 finishes with any forward result instead).
            Pass::Finish => vec![ENTRY],
            Pass::AlongDiagonal {
                from_mo,
                from_dwit_mo,
            } => vec![from_mo, from_dwit_mo],
        };
        match info.exits {
            Exits::Straight => {}
            Exits::Choice(choices) => links.extend_from_slice(choices),
            Exits::ByDiagonal {
                from_mo,
                from_dwit_mo,
            } => {
                links.extend_from_slice(from_mo);
                links.extend_from_slice(from_dwit_mo);
            }
        }
        let mut seen = Vec::with_capacity(links.len());
        for link in links {
            if !seen.contains(&link) {
                seen.push(link);
            }
        }
        seen
    }

    /// A corner of the outer ring (모, 뒷모, 찌모, 참먹이).
    pub fn is_corner(self) -> bool {
        matches!(self, S::Chammeogi | S::Mo | S::DwitMo | S::JjiMo)
    }
}

impl fmt::Display for StationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// An unknown station id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown station `{0}`")]
pub struct UnknownStation(pub String);

impl FromStr for StationId {
    type Err = UnknownStation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StationId::ALL
            .into_iter()
            .find(|st| st.id() == s)
            .ok_or_else(|| UnknownStation(s.to_string()))
    }
}

impl Serialize for StationId {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for StationId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The board as other tools see it (`yutstation game board --json`).
#[derive(Debug, Clone, Serialize)]
pub struct BoardDescription {
    pub start: StationId,
    pub entry: StationId,
    pub stations: Vec<StationDescription>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StationDescription {
    pub id: StationId,
    pub name: &'static str,
    pub corner: bool,
    /// Every forward link, by any route.
    pub forward: Vec<StationId>,
    /// Where a piece passing through goes; for 방, per diagonal.
    pub pass: serde_json::Value,
    /// Where a piece starting its move here may go, when it differs from `pass`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exits: Option<serde_json::Value>,
}

/// Describe the whole board.
pub fn describe() -> BoardDescription {
    use serde_json::json;
    let stations = StationId::ALL
        .into_iter()
        .map(|id| {
            let info = id.info();
            let pass = match info.pass {
                Pass::To(next) => json!(next),
                Pass::Finish => json!("finished"),
                Pass::AlongDiagonal {
                    from_mo,
                    from_dwit_mo,
                } => json!({ "from_mo": from_mo, "from_dwit_mo": from_dwit_mo }),
            };
            let exits = match info.exits {
                Exits::Straight => None,
                Exits::Choice(choices) => Some(json!(choices)),
                Exits::ByDiagonal {
                    from_mo,
                    from_dwit_mo,
                } => Some(json!({ "from_mo": from_mo, "from_dwit_mo": from_dwit_mo })),
            };
            StationDescription {
                id,
                name: id.korean(),
                corner: id.is_corner(),
                forward: id.forward_links(),
                pass,
                exits,
            }
        })
        .collect();
    BoardDescription {
        start: S::Chammeogi,
        entry: ENTRY,
        stations,
    }
}
