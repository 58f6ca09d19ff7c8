//! Where a game was played (`games.venue`), inferred from its tags: the kind of play decides who
//! could claim a draw and what ended a game by itself, so figures of different venues must not be
//! pooled. `ingest --venue` sets it for a whole input instead. The rules and their known misses:
//! docs/events.md, "Venue".

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Anchored, Input, StartKind};

use crate::{
    engine::{
        laws::{Claimant, Fivefold, InForce},
        vocabulary::serialize_as_str,
    },
    pgn::tags,
};

/// The days (since 1970-01-01) the rules of [`Rulebook::in_force`] changed.
mod began {
    /// FIDE Laws of Chess, in force from 1 July 2014: Art. 9.6, a game is drawn when a position
    /// stood after five consecutive alternate moves by each player, or after 75 moves by each
    /// without a pawn move or capture.
    pub(super) const FIDE_2014: i64 = 16_252;
    /// FIDE Laws of Chess, in force from 1 July 2017 (wording kept in those of 1 January 2018):
    /// Art. 9.6.1, any fifth occurrence.
    pub(super) const FIDE_2017: i64 = 17_348;
    /// Lichess draws at a fivefold by itself: lichess-org/scalachess pull request 184, "auto draw
    /// on fivefold repetition", 14 January 2020.
    pub(super) const LICHESS_FIVEFOLD: i64 = 18_275;
    /// chess.com draws a threefold by itself (its help page "I got a draw by repetition", undated).
    /// The day is the corpus's: its last chess.com game that went on after a threefold on the
    /// board is of 26 May 2019, and none of the ~1,000 after it with one did (from 23 June 2019).
    pub(super) const CHESS_COM_THREEFOLD: i64 = 18_048;
}

/// A game's venue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Venue {
    /// Over the board: an event and a site, and nothing that says otherwise.
    Otb,
    /// Played on Lichess: its `Site` is a Lichess game (a broadcast of an OTB game is not).
    Lichess,
    /// Played on another server (chess.com, ICC, FICS, pychess, playchess, chess24).
    Online,
    /// Engines against each other (TCEC, CCRL, CCCC, WCCC, CEGT, or two known engines).
    Engine,
    Unknown,
}

impl Venue {
    /// Every venue, in the order the report lists them.
    pub const ALL: [Venue; 5] = [Venue::Otb, Venue::Lichess, Venue::Online, Venue::Engine, Venue::Unknown];

    pub fn as_str(self) -> &'static str {
        match self {
            Venue::Otb => "otb",
            Venue::Lichess => "lichess",
            Venue::Online => "online",
            Venue::Engine => "engine",
            Venue::Unknown => "unknown",
        }
    }

    /// The venue a name (`--venue`, a column's value) gives.
    pub fn parse(name: &str) -> Option<Venue> {
        Venue::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// The venue the tags say, tried in this order: a Lichess game in `Site`; an engine event
    /// (`Event` or `Site`), or two known engines; another server in `Site` (or an `Event` played
    /// on the internet); an event and a site (OTB); else unknown. Every game asks, so each tag is
    /// read once by one automaton (ASCII case ignored, no allocation).
    pub fn infer(event: Option<&str>, site: Option<&str>, white: Option<&str>, black: Option<&str>) -> Venue {
        let (event, site) = (known(event), known(site));
        if site.and_then(tags::lichess_id).is_some() {
            return Venue::Lichess;
        }
        let (event_t, site_t) = (event.unwrap_or(""), site.unwrap_or(""));
        let (in_event, in_site) = (words(event_t), words(site_t));
        // A man-machine match is no engine game, though a computer championship may host one.
        let engine_event =
            (in_event & (ENGINE_WORD | CHAMPIONSHIP) != 0 || in_site & ENGINE_WORD != 0) && in_event & MAN_MACHINE == 0;
        if engine_event || (is_engine(white) && is_engine(black)) {
            return Venue::Engine;
        }
        let named = |names: &[&str]| names.iter().any(|n| site_t.eq_ignore_ascii_case(n));
        if in_site & SERVER != 0 || named(&["icc", "fics", "internet"]) || in_event & INTERNET != 0 {
            return Venue::Online;
        }
        if event.is_some() && site.is_some() && in_site & LOCAL_SITE == 0 {
            return Venue::Otb;
        }
        Venue::Unknown
    }
}

/// Whose rules a game was played under: a row of the rules table (docs/events.md, "The rules in
/// force"). Mostly the venue's, but one server of `online` is known to have its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rulebook {
    /// The FIDE Laws of their day: over the board, on other servers, and where unknown.
    Fide,
    Lichess,
    /// chess.com (`online`, its `Site` names chess.com).
    ChessCom,
    /// The program running an engine match.
    Engine,
}

impl Rulebook {
    /// The rules of a game of `venue` whose `Site` is `site`.
    pub fn of(venue: Venue, site: Option<&str>) -> Rulebook {
        match venue {
            Venue::Lichess => Rulebook::Lichess,
            Venue::Engine => Rulebook::Engine,
            Venue::Online if known(site).is_some_and(|s| words(s) & CHESS_COM != 0) => Rulebook::ChessCom,
            Venue::Otb | Venue::Online | Venue::Unknown => Rulebook::Fide,
        }
    }

    /// The rules over the days `dated` (from, to) a game's `Date` tag allows (one day for a
    /// full date). An ending that came by itself counts only where it held on every one of
    /// them, so never for an undated game; the claimant is the first day's. The table, with its
    /// sources, is docs/events.md's "The rules in force".
    pub fn in_force(self, dated: Option<(i64, i64)>) -> InForce {
        match dated {
            Some((from, to)) => self.in_force_on(Some(from)).both(self.in_force_on(Some(to))),
            None => self.in_force_on(None),
        }
    }

    fn in_force_on(self, day: Option<i64>) -> InForce {
        let since = |start: i64| day.is_some_and(|d| d >= start);
        let fide = InForce {
            claimant: Claimant::SideToMove,
            fivefold: match () {
                _ if since(began::FIDE_2017) => Fivefold::Any,
                _ if since(began::FIDE_2014) => Fivefold::Consecutive,
                _ => Fivefold::Never,
            },
            seventy_five_moves: since(began::FIDE_2014),
        };
        match self {
            Rulebook::Fide => fide,
            // Either player claims, by a button, never by a declared move; fifty moves end a game
            // by itself (so 75 never come), a fivefold since 2020.
            Rulebook::Lichess => InForce {
                claimant: Claimant::Either,
                fivefold: if since(began::LICHESS_FIVEFOLD) { Fivefold::Any } else { Fivefold::Never },
                seventy_five_moves: true,
            },
            // A button claimed a threefold that stood on the board; since 2019 the server draws
            // it itself. What else ended a game by itself is not known: the Laws' endings.
            Rulebook::ChessCom => InForce {
                claimant: if since(began::CHESS_COM_THREEFOLD) { Claimant::Program } else { Claimant::Either },
                ..fide
            },
            // The program running the match draws a threefold and fifty moves itself, or
            // adjudicates: every later ending was in force too.
            Rulebook::Engine => {
                InForce { claimant: Claimant::Program, fivefold: Fivefold::Any, seventy_five_moves: true }
            }
        }
    }
}

serialize_as_str!(Venue);

impl std::str::FromStr for Venue {
    type Err = String;

    /// `--venue`'s value: one of the venues' names.
    fn from_str(name: &str) -> Result<Venue, String> {
        Venue::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Venue::ALL.iter().map(|v| v.as_str()).collect();
            format!("unknown venue {name:?} (one of {})", names.join(", "))
        })
    }
}

/// Words of engine events' names and sites (lowercase): TCEC, CCRL, CCCC, the world computer
/// championship, CEGT. Not CCC: "87th Marshall CCC" is a chess club's championship, over the
/// board; chess.com's engine CCC is found by its players.
const ENGINE_EVENTS: [&str; 5] = ["tcec", "ccrl", "cccc", "wccc", "cegt"];

/// Words of other servers' sites (lowercase); "lichess.org" without a game id (an export of a
/// study, an example URL) is another server's too.
const SERVERS: [&str; 10] = [
    "chess.com",
    "chessclub.com",
    "internet chess club",
    "freechess.org",
    "pychess.org",
    "playchess",
    "chess24",
    "chesstempo",
    "lichess.org",
    "chessbase.com",
];

/// Sites that name a computer, not a place: a GUI's default.
const LOCAL_SITES: [&str; 3] = ["localhost", "127.0.0.1", "local site"];

/// Engines whose name starts a player's name (lowercase): two of them make an engine game.
const ENGINES: [&str; 40] = [
    "stockfish",
    "lc0",
    "leela",
    "komodo",
    "dragon",
    "houdini",
    "rybka",
    "fritz",
    "shredder",
    "ethereal",
    "berserk",
    "koivisto",
    "rofchade",
    "stoofvlees",
    "allie",
    "fire",
    "xiphos",
    "laser",
    "chiron",
    "booot",
    "andscacs",
    "arasan",
    "nemorino",
    "scorpio",
    "seer",
    "torch",
    "revenge",
    "obsidian",
    "caissa",
    "viridithas",
    "clover",
    "minic",
    "igel",
    "critter",
    "gull",
    "sf ",
    "asmfish",
    "crystal",
    "deep fritz",
    "alphazero",
];

/// A tag's value unless it is empty or a placeholder (`?`, `-`).
fn known(tag: Option<&str>) -> Option<&str> {
    tag.map(str::trim).filter(|t| !t.is_empty() && *t != "?" && *t != "-")
}

fn is_engine(player: Option<&str>) -> bool {
    let name = player.unwrap_or("").trim();
    !name.is_empty() && ENGINE_NAMES.is_match(Input::new(name).anchored(Anchored::Yes))
}

// What `words` finds in a tag, one bit each.
const ENGINE_WORD: u8 = 1;
const CHAMPIONSHIP: u8 = 2;
const MAN_MACHINE: u8 = 4;
const SERVER: u8 = 8;
const INTERNET: u8 = 16;
const LOCAL_SITE: u8 = 32;
/// chess.com itself, a word's start before it: not "Kasparovchess.com", "Ruschess.com".
const CHESS_COM: u8 = 64;

/// Every word `infer` looks for in `Event` and `Site`, and what it finds (an engine event's word
/// only where it stands alone: "cegt" is not in "Cegtown").
fn patterns() -> Vec<(&'static str, u8)> {
    let mut all =
        vec![("computer chess championship", CHAMPIONSHIP), ("man-machine", MAN_MACHINE), ("internet", INTERNET)];
    all.extend(ENGINE_EVENTS.iter().map(|w| (*w, ENGINE_WORD)));
    all.extend(SERVERS.iter().map(|w| (*w, if *w == "chess.com" { SERVER | CHESS_COM } else { SERVER })));
    all.extend(LOCAL_SITES.iter().map(|w| (*w, LOCAL_SITE)));
    all
}

static WORDS: LazyLock<(AhoCorasick, Vec<u8>)> = LazyLock::new(|| {
    let (words, kinds): (Vec<&str>, Vec<u8>) = patterns().into_iter().unzip();
    let automaton = AhoCorasick::builder().ascii_case_insensitive(true).build(words).expect("the venue words build");
    (automaton, kinds)
});

static ENGINE_NAMES: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .start_kind(StartKind::Anchored)
        .build(ENGINES)
        .expect("the engine names build")
});

/// Which of the words a tag holds (bits of `ENGINE_WORD`..`CHESS_COM`).
fn words(text: &str) -> u8 {
    let (automaton, kinds) = &*WORDS;
    let bytes = text.as_bytes();
    let alone = |start: usize, end: usize| {
        (start == 0 || !bytes[start - 1].is_ascii_alphanumeric())
            && bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric())
    };
    let mut found = 0;
    for m in automaton.find_overlapping_iter(text) {
        let kind = kinds[m.pattern().as_usize()];
        let starts_word = m.start() == 0 || !bytes[m.start() - 1].is_ascii_alphanumeric();
        found |= match kind {
            ENGINE_WORD if !alone(m.start(), m.end()) => 0,
            _ if kind & CHESS_COM != 0 && !starts_word => kind & !CHESS_COM,
            _ => kind,
        };
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The change days are the ones the Laws and Lichess name (and the corpus's for chess.com),
    /// and a game whose date spans one gets only what held on both sides of it.
    #[test]
    fn rules_in_force_follow_the_venue_and_the_date() {
        let on = |venue: Venue, date: &str| Rulebook::of(venue, None).in_force(tags::period(date));
        let fivefold = |venue, date| on(venue, date).fivefold;
        assert_eq!(fivefold(Venue::Otb, "2014.06.30"), Fivefold::Never);
        assert_eq!(fivefold(Venue::Otb, "2014.07.01"), Fivefold::Consecutive);
        assert_eq!(fivefold(Venue::Otb, "2017.06.30"), Fivefold::Consecutive);
        assert_eq!(fivefold(Venue::Otb, "2017.07.01"), Fivefold::Any);
        assert_eq!(fivefold(Venue::Otb, "2017.??.??"), Fivefold::Consecutive);
        assert_eq!(fivefold(Venue::Otb, "2014.??.??"), Fivefold::Never);
        assert_eq!(fivefold(Venue::Otb, "2014.07.??"), Fivefold::Consecutive);
        assert!(
            !on(Venue::Otb, "1986.10.??").seventy_five_moves && on(Venue::Unknown, "2015.01.01").seventy_five_moves
        );
        assert_eq!(Rulebook::Fide.in_force(None).fivefold, Fivefold::Never);
        assert_eq!(fivefold(Venue::Lichess, "2020.01.13"), Fivefold::Never);
        assert_eq!(fivefold(Venue::Lichess, "2020.01.14"), Fivefold::Any);
        let lichess = on(Venue::Lichess, "2013.01.01");
        assert!(lichess.claimant == Claimant::Either && lichess.seventy_five_moves);
        let engine = Rulebook::Engine.in_force(None);
        assert!(engine.claimant == Claimant::Program && engine.fivefold == Fivefold::Any);
        assert_eq!(on(Venue::Online, "2024.05.05"), InForce::FIDE);
        let days = |y, m, d| tags::days_from_civil(y, m, d);
        assert_eq!(
            [began::FIDE_2014, began::FIDE_2017, began::LICHESS_FIVEFOLD, began::CHESS_COM_THREEFOLD],
            [days(2014, 7, 1), days(2017, 7, 1), days(2020, 1, 14), days(2019, 6, 1)]
        );
    }

    /// chess.com's games are read by its own rules only where the venue is `online` and `Site`
    /// names chess.com itself; a player claimed by a button until the server drew by itself.
    #[test]
    fn chess_com_claims_by_a_button_then_by_itself() {
        let claimant = |venue, site, date| Rulebook::of(venue, Some(site)).in_force(tags::period(date)).claimant;
        assert_eq!(Rulebook::of(Venue::Online, Some("Chess.com INT")), Rulebook::ChessCom);
        assert_eq!(Rulebook::of(Venue::Online, Some("https://www.chess.com/game/live/1")), Rulebook::ChessCom);
        assert_eq!(Rulebook::of(Venue::Online, Some("Kasparovchess.com INT")), Rulebook::Fide);
        assert_eq!(Rulebook::of(Venue::Online, Some("Ruschess.com INT")), Rulebook::Fide);
        assert_eq!(Rulebook::of(Venue::Otb, Some("Chess.com")), Rulebook::Fide);
        assert_eq!(Rulebook::of(Venue::Engine, Some("Chess.com")), Rulebook::Engine);
        assert_eq!(claimant(Venue::Online, "Chess.com", "2019.05.31"), Claimant::Either);
        assert_eq!(claimant(Venue::Online, "Chess.com", "2019.06.01"), Claimant::Program);
        // A date of the whole year, or none, keeps the players' claim.
        assert_eq!(claimant(Venue::Online, "Chess.com", "2019.??.??"), Claimant::Either);
        assert_eq!(claimant(Venue::Online, "Chess.com", "????.??.??"), Claimant::Either);
        let later = Rulebook::ChessCom.in_force(tags::period("2020.05.05"));
        assert_eq!(later, InForce { claimant: Claimant::Program, ..InForce::FIDE });
    }

    /// The automaton reads a tag as the plain reading does: every word searched for on its own,
    /// an engine event's word among the tag's alphanumeric words.
    #[test]
    fn words_agree_with_a_plain_reading() {
        let plain = |text: &str| {
            let lower = text.to_ascii_lowercase();
            let alone = |w: &str| lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t == w);
            // chess.com itself where it starts a word, as the text's start or after a
            // non-alphanumeric character.
            let starts = |w: &str| {
                lower.match_indices(w).any(|(at, _)| at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric())
            };
            patterns().into_iter().fold(0, |found, (w, kind)| {
                let hit = if kind == ENGINE_WORD { alone(w) } else { lower.contains(w) };
                let kind = if kind & CHESS_COM != 0 && !starts(w) { kind & !CHESS_COM } else { kind };
                if hit { found | kind } else { found }
            })
        };
        let tags = [
            "",
            "TCEC Season 20 - Superfinal",
            "tcec_s20",
            "CCCC",
            "Acccept",
            "87th Marshall CCC",
            "Cegtown",
            "ccc-bullet",
            "Chess.com",
            "CHESS.COM Live",
            "ICC",
            "Internet Chess Club",
            "internetworking",
            "WCCC Man-Machine exh",
            "World Computer Chess Championship",
            "FICS freechess.org",
            "lichess.org",
            "localhost.localdomain",
            "Local Site",
            "127.0.0.1",
            "Tilburg NED",
            "Zürich CCRL",
            "ÉtéCCRL",
            "ccrl40/15",
            "cegt blitz",
            "playchess.com",
            "Kasparovchess.com INT",
            "https://www.chess.com/game/live/123",
            "chess.com INT",
            "chess.com-chess.com",
            "chess24 Banter",
            "ChessTempo",
        ];
        for tag in tags {
            assert_eq!(words(tag), plain(tag), "{tag:?}");
        }
    }

    #[test]
    fn the_corpus_kinds() {
        let v = |event, site, white, black| Venue::infer(Some(event), Some(site), Some(white), Some(black)).as_str();
        assert_eq!(v("Rated Blitz game", "https://lichess.org/abcdEFGH", "a", "b"), "lichess");
        assert_eq!(v("FWWRC", "48 Wall Street, New York City, United States", "Carlsen", "Nakamura"), "otb");
        assert_eq!(v("TCEC Cup 1", "https://tcec-chess.com", "Stockfish", "Lc0"), "engine");
        assert_eq!(v("Live Chess", "Chess.com", "MagnusCarlsen", "Hikaru"), "online");
        assert_eq!(v("Internet sim1", "Internet", "Kasparov, Gary", "Lerner, Al"), "online");
        assert_eq!(v("FICS rated atomic game", "FICS freechess.org", "a", "b"), "online");
        assert_eq!(v("Match", "?", "Stockfish 16", "Komodo Dragon 3"), "engine");
        assert_eq!(v("Tilburg", "Tilburg", "Karpov, Anatoly", "Miles, Anthony"), "otb");
        assert_eq!(v("Casual game", "localhost.localdomain", "a", "b"), "unknown");
        assert_eq!(v("WCCC Man-Machine exh", "Paderborn", "Comp Fritz 5.32", "Sokolov, Ivan"), "otb");
        assert_eq!(v("CCRL 40/4", "CCRL", "Aristarch 4.50", "Chess Tiger 15"), "engine");
        assert_eq!(v("Riccione op", "Riccione", "a", "b"), "otb");
        assert_eq!(v("87th Marshall CCC", "New York USA", "Sena,J", "Becerra Rivero,J"), "otb");
        assert_eq!(v("CCC 21 Rapid", "Chess.com", "Stockfish 16", "Lc0 0.30"), "engine");
        assert_eq!(Venue::infer(None, None, None, None), Venue::Unknown);
        for venue in Venue::ALL {
            assert_eq!(Venue::parse(venue.as_str()), Some(venue));
        }
    }
}
