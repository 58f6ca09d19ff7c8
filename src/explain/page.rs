//! `threefold explain … --html FILE [--svg DIR]`: one game's repetition events as a
//! self-contained HTML page (inline CSS and SVG, no script, nothing fetched). For each event, the
//! position and its earlier occurrences as boards side by side ([`super::board_svg`]), each with
//! the move that reached it as an arrow and, under it, the side to move, the castling rights and
//! the legal e.p. square; what differs between them (a castling right gone, an e.p. capture legal
//! at one occurrence only) is marked on the boards and said in words; a `claim_by_move` event
//! shows the move that may be declared as an arrow.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use shakmaty::{Bitboard, CastlingMode, Color, Position, Square};

use super::{
    board_svg::{self, Arrow, Defs, Diagram, Mark, escape},
    words::{board_claim, color_name, no_declared_claim, ordinal},
};
use crate::{
    engine::{
        event::{Detail, Event},
        identity::{Identity, Key},
        laws::Claimant,
        start::{Start, Variant},
        variant,
        vocabulary::printable,
    },
    pgn::Game,
};

/// One position of the mainline, as the page draws and compares it.
struct Ply {
    key: Key,
    diagram: Diagram,
    /// The move that reached it (none for the start; no `from` for a drop).
    reached_by: Option<(Option<Square>, Square)>,
    /// `23.h3`, or `the start position`.
    label: String,
}

fn label(fullmove: u32, turn: Color, san: &str) -> String {
    format!("{fullmove}{}{san}", if turn == Color::White { "." } else { "..." })
}

fn diagram(key: &Key, mode: CastlingMode, pockets: Option<[[u8; 5]; 2]>, checks: Option<[u32; 2]>) -> Diagram {
    Diagram {
        board: key.board.clone(),
        turn: key.turn,
        castling: Identity::of(key, mode).castling().to_owned(),
        ep: key.legal_ep,
        pockets,
        checks,
    }
}

/// The mainline's positions, the start first, up to the first move that cannot be played; for
/// standard chess and Chess960 as `explain` replays them, for the Lichess variants with their
/// own rules ([`variant::drawn_positions`]).
fn plies(game: &Game) -> Option<Vec<Ply>> {
    match &game.variant {
        Variant::Standard | Variant::Chess960 => {
            let start = Start::new(&game.variant, game.tag("FEN")).ok()?;
            let (mut pos, mode) = (start.pos, start.mode);
            let key = Key::of(&pos);
            let mut out = vec![Ply {
                diagram: diagram(&key, mode, None, None),
                key,
                reached_by: None,
                label: "the start position".to_owned(),
            }];
            for san in &game.moves {
                let Ok(m) = san.san.to_move(&pos) else { break };
                let text = label(pos.fullmoves().get(), pos.turn(), &san.to_string());
                let to = match m {
                    shakmaty::Move::Castle { king, rook } => {
                        shakmaty::CastlingSide::from_king_side(king < rook).king_to(pos.turn())
                    }
                    _ => m.to(),
                };
                pos.play_unchecked(m);
                let key = Key::of(&pos);
                out.push(Ply {
                    diagram: diagram(&key, mode, None, None),
                    key,
                    reached_by: Some((m.from(), to)),
                    label: text,
                });
            }
            Some(out)
        }
        Variant::Lichess(rules) => {
            let drawn = variant::drawn_positions(*rules, game.tag("FEN"), &game.moves)?;
            let mut out: Vec<Ply> = Vec::with_capacity(drawn.len());
            for d in drawn {
                let text = match (&d.reached_by, out.last()) {
                    (Some((_, _, san)), Some(before)) => label(fullmove_before(&d, before), before.key.turn, san),
                    _ => "the start position".to_owned(),
                };
                out.push(Ply {
                    diagram: diagram(&d.key, d.mode, d.pockets, d.checks),
                    reached_by: d.reached_by.as_ref().map(|(from, to, _)| (*from, *to)),
                    key: d.key,
                    label: text,
                });
            }
            Some(out)
        }
        Variant::Other(_) => None,
    }
}

/// The full-move number of the position before `d`: `d`'s own, less one after a Black move.
fn fullmove_before(d: &variant::Drawn, before: &Ply) -> u32 {
    if before.key.turn == Color::Black { d.fullmove.saturating_sub(1) } else { d.fullmove }
}

/// A castling right held at one ply and gone at a later one: whose, which side, and the squares
/// of its king and rook at the earlier ply.
struct LostRight {
    color: Color,
    kingside: bool,
    king: Option<Square>,
    rook: Square,
}

impl LostRight {
    /// In words: the right, held after `then`, is gone.
    fn words(&self, then: &str) -> String {
        let side = if self.kingside { "kingside" } else { "queenside" };
        let king = self.king.map_or(String::new(), |k| format!("king on {k}, "));
        format!(
            "{}'s {side} castling right ({king}rook on {}), held after {then}, is gone",
            color_name(self.color),
            self.rook
        )
    }
}

fn lost_rights(earlier: &Key, now: &Key) -> Vec<LostRight> {
    let gone: Bitboard = earlier.castling & !now.castling;
    gone.into_iter()
        .map(|rook| {
            let color = if rook.rank() == shakmaty::Rank::First { Color::White } else { Color::Black };
            let king = earlier.board.king_of(color);
            LostRight { color, kingside: king.is_some_and(|k| rook.file() > k.file()), king, rook }
        })
        .collect()
}

/// One board of an event: which ply, what it is to the event, and what is drawn on it.
struct Board {
    ply: u32,
    role: &'static str,
    heading: String,
    arrows: Vec<Arrow>,
}

/// What `threefold explain --html` writes: the page, and each of its boards as an SVG document
/// of its own (for `--svg`), named by ply and event.
pub(crate) struct Page {
    pub html: String,
    pub boards: Vec<(String, String)>,
}

const STYLE: &str = "
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; white-space: pre-wrap; font-size: .85em; }
.boards { display: flex; flex-wrap: wrap; gap: 1em; }
figure.board { margin: 0; width: 300px; max-width: 100%; }
figure.board svg { display: block; width: 100%; height: auto; }
figure.board figcaption { font-size: .9em; margin-bottom: .2em; }
figure.board.now figcaption { font-weight: bold; }
.differs li, .claim { color: #a01010; }
@media print { body { margin: 0; max-width: none; font-size: 11pt; } section.event { break-inside: avoid; } }
";

/// The page of `game`, introduced by `heading` (the line `explain` prints first), with the
/// timeline `text` that `explain` prints.
pub(crate) fn render(game: &Game, heading: &str, text: &str) -> Page {
    let tag = |n: &str| printable(game.tag(n).unwrap_or("?")).into_owned();
    let title = format!("{} – {}, {} {}", tag("White"), tag("Black"), tag("Event"), tag("Date"));
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>threefold explain: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&title)
    );
    out.push_str(&board_svg::page_defs());
    let _ = writeln!(
        out,
        "<h1>{}</h1>\n<p>{}</p>\n<pre class=\"timeline\">{}</pre>",
        escape(&title),
        escape(heading),
        escape(text)
    );
    let mut boards = Vec::new();
    let events = game.analysis.as_ref().map_or(&[][..], |a| &a.events[..]);
    match plies(game) {
        None => {
            let _ = writeln!(out, "<p>Variant {}: not replayed, no board to draw.</p>", escape(game.variant.name()));
        }
        Some(plies) => {
            for (i, e) in events.iter().enumerate() {
                event(&mut out, &mut boards, &plies, game.claimant, i + 1, e);
            }
        }
    }
    out.push_str(
        "<p class=\"over\"><small>Boards: the move that led to each position is an arrow (green; a move that may be \
         declared, blue); a marked square (red) is the king or rook of a castling right that is gone, a dashed one \
         (blue) an e.p. square where the capture is legal at one occurrence only. Pieces: the cburnett set.</small></p>\n\
         </body>\n</html>\n",
    );
    Page { html: out, boards }
}

fn event(
    out: &mut String,
    files: &mut Vec<(String, String)>,
    plies: &[Ply],
    claimant: Claimant,
    index: usize,
    e: &Event,
) {
    let at = |ply: u32| plies.get(ply as usize);
    let name = |ply: u32| at(ply).map_or_else(|| format!("ply {ply}"), |p| p.label.clone());
    let names = |list: &[u32]| list.iter().map(|&p| name(p)).collect::<Vec<_>>().join(", ");
    let earlier = e.earlier_plies();
    let mut words = String::new();
    let mut differs = Vec::new();
    let mut marks = Vec::new();
    let mut claim = None;
    let mover = color_name(e.turn);
    match &e.detail {
        Detail::Repetition { occurrence, claimable, automatic, cycle_plies, perpetual, .. } => {
            let _ = write!(
                words,
                "{}: the same position (9.2.2) as after {} occurs for the {} time.",
                name(e.ply),
                names(earlier),
                ordinal(*occurrence)
            );
            if let Some(p) = perpetual {
                let who = p.side();
                let _ = write!(words, " Perpetual check by {who} since {}.", name(e.ply.saturating_sub(*cycle_plies)));
            }
            if *automatic {
                words.push_str(" The game is drawn automatically (fivefold, 9.6.1).");
            } else if *claimable {
                let _ = write!(words, " {}.", board_claim(claimant, mover));
            }
        }
        Detail::ClaimByMove { san, uci, occurrence, played, .. } => {
            let _ = write!(
                words,
                "{}: {mover} may claim a draw by declaring {san} (9.2.1.1): it would make this position occur for the {} time (as after {}){}.",
                name(e.ply),
                ordinal(*occurrence),
                names(earlier),
                if *played { "; the move was played" } else { "" }
            );
            if let Some(why) = no_declared_claim(claimant) {
                let _ = write!(words, " But {why}.");
            }
            let board = at(e.ply).map(|p| &p.key.board);
            claim = board.and_then(|b| uci_squares(uci, b, e.turn)).map(|(from, to)| Arrow { from, to, kind: "claim" });
        }
        Detail::PseudoRepetition { board_occurrence, fide_occurrence, .. } => {
            let _ = write!(
                words,
                "{}: the board of {} again, but not the same position (9.2.2). The board has occurred {board_occurrence} times, the position {fide_occurrence} {}.",
                name(e.ply),
                names(earlier),
                if *fide_occurrence == 1 { "time" } else { "times" }
            );
            if let Some(now) = at(e.ply) {
                let mut seen_rights = Vec::new();
                let mut seen_ep = Vec::new();
                for &p in earlier {
                    let Some(then) = at(p) else { continue };
                    for lost in lost_rights(&then.key, &now.key) {
                        if seen_rights.contains(&lost.rook) {
                            continue;
                        }
                        seen_rights.push(lost.rook);
                        let text = lost.words(&then.label);
                        for sq in lost.king.into_iter().chain([lost.rook]) {
                            marks.push(Mark { square: sq, kind: "castling", title: text.clone() });
                        }
                        differs.push(text);
                    }
                    if then.key.legal_ep != now.key.legal_ep {
                        for (sq, when, not) in [
                            (then.key.legal_ep, then.label.as_str(), now.label.as_str()),
                            (now.key.legal_ep, now.label.as_str(), then.label.as_str()),
                        ] {
                            let Some(sq) = sq else { continue };
                            if seen_ep.contains(&(sq, when.to_owned())) {
                                continue;
                            }
                            seen_ep.push((sq, when.to_owned()));
                            let text = format!("an e.p. capture on {sq} is legal after {when}, not after {not}");
                            marks.push(Mark { square: sq, kind: "ep", title: text.clone() });
                            differs.push(text);
                        }
                    }
                }
            }
        }
        Detail::HiddenRepetition { fen_occurrence, fide_occurrence, .. } => {
            let _ = write!(
                words,
                "{}: the same position (9.2.2) as after {}, though FEN strings differ in the e.p. field (a double push with no legal e.p. capture): FEN comparison counts {fen_occurrence}, FIDE counts {fide_occurrence}.",
                name(e.ply),
                names(earlier)
            );
        }
    }
    let kind = e.kind().as_str();
    let _ = writeln!(
        out,
        "<section class=\"event\" id=\"event-{index}\" data-kind=\"{kind}\" data-ply=\"{}\">\n<h2>{index}. {} <small>({kind}, ply {})</small></h2>\n<p>{}</p>",
        e.ply,
        escape(&name(e.ply)),
        e.ply,
        escape(&words)
    );
    if !differs.is_empty() {
        out.push_str("<p>What differs:</p>\n<ul class=\"differs\">\n");
        for d in &differs {
            let _ = writeln!(out, "<li>{}</li>", escape(d));
        }
        out.push_str("</ul>\n");
    }
    if let (Detail::ClaimByMove { san, occurrence, .. }, Some(_)) = (&e.detail, &claim) {
        let _ = writeln!(
            out,
            "<p class=\"claim\">The arrow on the last board: {} would make this position occur for the {} time.</p>",
            escape(san),
            ordinal(*occurrence)
        );
    }
    // Chronologically: the earlier occurrences, then the event's own position.
    let mut shown: Vec<Board> = earlier
        .iter()
        .map(|&p| Board { ply: p, role: "earlier", heading: format!("after {} (ply {p})", name(p)), arrows: vec![] })
        .collect();
    let now_heading = match &e.detail {
        Detail::ClaimByMove { san, .. } => {
            format!("now, after {} (ply {}): {mover} may declare {san}", name(e.ply), e.ply)
        }
        _ => format!("now, after {} (ply {})", name(e.ply), e.ply),
    };
    shown.push(Board { ply: e.ply, role: "now", heading: now_heading, arrows: claim.into_iter().collect() });
    out.push_str("<div class=\"boards\">\n");
    for b in &mut shown {
        let Some(p) = at(b.ply) else {
            let _ = writeln!(out, "<p>{}: not replayed.</p>", escape(&b.heading));
            continue;
        };
        if let Some((from, to)) = p.reached_by {
            b.arrows.insert(0, Arrow { from, to, kind: "move" });
        }
        let title = format!("Event {index}: {}", b.heading);
        let _ = writeln!(
            out,
            "<figure class=\"board {}\" data-ply=\"{}\">\n<figcaption>{}</figcaption>\n{}\n</figure>",
            b.role,
            b.ply,
            escape(&b.heading),
            board_svg::render(&p.diagram, &b.arrows, &marks, &title, Defs::Page)
        );
        files.push((
            format!("ply-{:03}-event-{index:02}.svg", b.ply),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
                board_svg::render(&p.diagram, &b.arrows, &marks, &title, Defs::Inline)
            ),
        ));
    }
    out.push_str("</div>\n</section>\n");
}

/// The squares of a UCI move played on `board` by `turn`: from (none for a drop, `N@f3`) and
/// to; for castling written king-to-rook (`e1h1`, as Chess960 writes it), the king's destination.
fn uci_squares(uci: &str, board: &shakmaty::Board, turn: Color) -> Option<(Option<Square>, Square)> {
    let square = |s: &str| s.parse::<Square>().ok();
    if let Some((_, to)) = uci.split_once('@') {
        return Some((None, square(to.get(..2)?)?));
    }
    let (from, to) = (square(uci.get(..2)?)?, square(uci.get(2..4)?)?);
    let own = |sq, role| board.piece_at(sq) == Some(shakmaty::Piece { color: turn, role });
    if own(from, shakmaty::Role::King) && own(to, shakmaty::Role::Rook) {
        let side = shakmaty::CastlingSide::from_king_side(from < to);
        return Some((Some(from), side.king_to(turn)));
    }
    Some((Some(from), to))
}

/// Writes `page` to `html` and, with `svg`, each board to its own file in that folder; each
/// file atomically.
pub(crate) fn write(page: &Page, html: Option<&Path>, svg: Option<&Path>) -> Result<()> {
    if let Some(html) = html {
        crate::dataset::write_atomic(html, page.html.as_bytes())
            .with_context(|| format!("cannot write {}", html.display()))?;
        eprintln!("threefold: wrote {}", html.display());
    }
    if let Some(dir) = svg {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (name, text) in &page.boards {
            let path: PathBuf = dir.join(name);
            crate::dataset::write_atomic(&path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        eprintln!("threefold: wrote {} board(s) to {}", page.boards.len(), dir.display());
    }
    Ok(())
}
