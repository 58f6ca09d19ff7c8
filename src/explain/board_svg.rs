//! A chess board drawn as SVG: the squares, the pieces (the cburnett set in
//! `assets/pieces/cburnett/`), arrows for moves, marked squares, and under the board the side to
//! move, the castling rights, the legal e.p. square and what a variant adds (crazyhouse pockets,
//! three-check's checks still to give). `threefold explain --html` and `--svg` draw with it.
//!
//! Every piece is a `<use>` element with `data-square="e4" data-piece="wN"`, every pocket entry a
//! `<g data-pocket="w" data-piece="wN" data-count="2">`, every mark `data-mark` and
//! `data-square`, every arrow `data-from` and `data-to`: tests read the drawing back from them.

use std::fmt::Write as _;

use shakmaty::{Board, Color, Piece, Role, Square};

pub(crate) use crate::report::svg::escape;

/// Side of a square in SVG units: the pieces' own size.
const S: f64 = 45.0;
/// Room left of the board for the rank numbers, above it, and below it for the file letters.
const LEFT: f64 = 16.0;
const TOP: f64 = 4.0;
const FILES: f64 = 16.0;
const LINE: f64 = 18.0;
const POCKET: f64 = 30.0;
const WIDTH: f64 = LEFT + 8.0 * S + 4.0;
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";

/// The twelve pieces: FEN letter, the name the drawing gives them, and their SVG file.
const PIECES: [(char, &str, &str); 12] = [
    ('K', "wK", include_str!("../../assets/pieces/cburnett/wK.svg")),
    ('Q', "wQ", include_str!("../../assets/pieces/cburnett/wQ.svg")),
    ('R', "wR", include_str!("../../assets/pieces/cburnett/wR.svg")),
    ('B', "wB", include_str!("../../assets/pieces/cburnett/wB.svg")),
    ('N', "wN", include_str!("../../assets/pieces/cburnett/wN.svg")),
    ('P', "wP", include_str!("../../assets/pieces/cburnett/wP.svg")),
    ('k', "bK", include_str!("../../assets/pieces/cburnett/bK.svg")),
    ('q', "bQ", include_str!("../../assets/pieces/cburnett/bQ.svg")),
    ('r', "bR", include_str!("../../assets/pieces/cburnett/bR.svg")),
    ('b', "bB", include_str!("../../assets/pieces/cburnett/bB.svg")),
    ('n', "bN", include_str!("../../assets/pieces/cburnett/bN.svg")),
    ('p', "bP", include_str!("../../assets/pieces/cburnett/bP.svg")),
];

/// The pocket's roles in the order `[[u8; 5]; 2]` counts them.
pub(crate) const POCKET_ROLES: [Role; 5] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

/// The drawing's name of a piece: `wK`, `bN`, ...
pub(crate) fn piece_name(piece: Piece) -> &'static str {
    let letter = piece.char();
    PIECES.iter().find(|p| p.0 == letter).map_or("?", |p| p.1)
}

/// A piece file's drawing without its `<svg>` element around it.
fn piece_body(file: &str) -> &str {
    let inner = file.trim_end();
    let start = inner.find('>').map_or(0, |i| i + 1);
    let end = inner.rfind("</svg>").unwrap_or(inner.len());
    &inner[start..end]
}

/// The symbols of `names` (all twelve for `None`), for a `<defs>` element.
fn symbols(names: Option<&[&str]>) -> String {
    let mut out = String::new();
    for (_, name, file) in PIECES {
        if names.is_none_or(|n| n.contains(&name)) {
            let _ = write!(out, "<symbol id=\"cburnett-{name}\" viewBox=\"0 0 45 45\">{}</symbol>", piece_body(file));
        }
    }
    out
}

/// An invisible SVG holding the twelve pieces once, for an HTML page whose boards are drawn with
/// [`Defs::Page`].
pub(crate) fn page_defs() -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>{}</defs></svg>\n",
        symbols(None)
    )
}

/// Where a board's piece drawings are: in the SVG itself (a file of its own), or once in the
/// page it is part of ([`page_defs`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Defs {
    Inline,
    Page,
}

/// A position as the drawing shows it.
#[derive(Clone, Debug)]
pub(crate) struct Diagram {
    pub board: Board,
    pub turn: Color,
    /// The FEN castling field: `KQkq`, Shredder letters (`HAha`) in Chess960, or `-`.
    pub castling: String,
    /// The e.p. square where an e.p. capture is legal.
    pub ep: Option<Square>,
    /// Crazyhouse: White's and Black's pockets, counted in [`POCKET_ROLES`] order.
    pub pockets: Option<[[u8; 5]; 2]>,
    /// Three-check: the checks White and Black still have to give.
    pub checks: Option<[u32; 2]>,
}

/// An arrow: a move played (`move`) or one that may be declared (`claim`). A drop has no
/// `from`: its square is ringed.
#[derive(Clone, Debug)]
pub(crate) struct Arrow {
    pub from: Option<Square>,
    pub to: Square,
    pub kind: &'static str,
}

/// A marked square: `castling` (the king and rook of a lost castling right) or `ep` (an e.p.
/// square legal at one occurrence only), with the words a reader sees on hovering.
#[derive(Clone, Debug)]
pub(crate) struct Mark {
    pub square: Square,
    pub kind: &'static str,
    pub title: String,
}

fn corner(sq: Square) -> (f64, f64) {
    (LEFT + f64::from(u8::from(sq.file())) * S, TOP + f64::from(7 - u8::from(sq.rank())) * S)
}

fn centre(sq: Square) -> (f64, f64) {
    let (x, y) = corner(sq);
    (x + S / 2.0, y + S / 2.0)
}

/// The lines under the board: side to move, castling, e.p., checks to give.
fn caption_lines(d: &Diagram) -> Vec<String> {
    let mut lines = vec![
        format!("{} to move", if d.turn == Color::White { "White" } else { "Black" }),
        format!("castling: {}", if d.castling == "-" { "none" } else { &d.castling }),
        format!("e.p.: {}", d.ep.map_or("none".to_owned(), |s| s.to_string())),
    ];
    if let Some([w, b]) = d.checks {
        lines.push(format!("checks to give: White {w}, Black {b}"));
    }
    lines
}

fn arrow(out: &mut String, a: &Arrow) {
    let (colour, opacity) = if a.kind == "claim" { ("#1f5fbf", "0.85") } else { ("#15781b", "0.7") };
    let to = a.to.to_string();
    let Some(from) = a.from else {
        let (x, y) = centre(a.to);
        let _ = write!(
            out,
            "<circle class=\"arrow arrow-{}\" data-from=\"@\" data-to=\"{to}\" cx=\"{x}\" cy=\"{y}\" r=\"20\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"4\" opacity=\"{opacity}\"/>",
            a.kind
        );
        return;
    };
    let ((x1, y1), (x2, y2)) = (centre(from), centre(a.to));
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    // The head ends short of the centre; the shaft ends where the head begins.
    let (head, half, shaft) = (16.0, 11.0, 8.0);
    let (tx, ty) = (x2 - ux * 6.0, y2 - uy * 6.0);
    let (bx, by) = (tx - ux * head, ty - uy * head);
    let (px, py) = (-uy, ux);
    let _ = write!(
        out,
        "<g class=\"arrow arrow-{}\" data-from=\"{from}\" data-to=\"{to}\" opacity=\"{opacity}\">\
         <line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{bx:.1}\" y2=\"{by:.1}\" stroke=\"{colour}\" stroke-width=\"{shaft}\" stroke-linecap=\"round\"/>\
         <polygon points=\"{tx:.1},{ty:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{colour}\"/></g>",
        a.kind,
        bx + px * half,
        by + py * half,
        bx - px * half,
        by - py * half
    );
}

/// The board as an SVG element: a document of its own with [`Defs::Inline`].
pub(crate) fn render(d: &Diagram, arrows: &[Arrow], marks: &[Mark], title: &str, defs: Defs) -> String {
    let lines = caption_lines(d);
    let board_bottom = TOP + 8.0 * S + FILES;
    let pockets_height = if d.pockets.is_some() { 2.0 * POCKET + 8.0 } else { 0.0 };
    let height = board_bottom + pockets_height + LINE * lines.len() as f64 + 6.0;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" \
         role=\"img\" aria-label=\"{}\" font-family=\"system-ui, sans-serif\">",
        escape(title)
    );
    let _ = write!(out, "<title>{}</title>", escape(title));
    if defs == Defs::Inline {
        let mut names: Vec<&str> = d.board.iter().map(|(_, p)| piece_name(p)).collect();
        if let Some(pockets) = d.pockets {
            for (color, counts) in Color::ALL.into_iter().zip(pockets) {
                for (role, n) in POCKET_ROLES.into_iter().zip(counts) {
                    if n > 0 {
                        names.push(piece_name(role.of(color)));
                    }
                }
            }
        }
        let _ = write!(out, "<defs>{}</defs>", symbols(Some(&names)));
    }
    let _ = write!(out, "<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\" fill=\"#fff\"/>");
    for sq in Square::ALL {
        let (x, y) = corner(sq);
        let fill = if sq.is_light() { LIGHT } else { DARK };
        let _ = write!(out, "<rect x=\"{x}\" y=\"{y}\" width=\"{S}\" height=\"{S}\" fill=\"{fill}\"/>");
    }
    for i in 0..8u8 {
        let x = LEFT + f64::from(i) * S + S / 2.0;
        let y = TOP + f64::from(i) * S + S / 2.0 + 4.0;
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">{}</text>\
             <text x=\"{}\" y=\"{y}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
            TOP + 8.0 * S + 13.0,
            char::from(b'a' + i),
            LEFT / 2.0,
            8 - i
        );
    }
    for m in marks {
        let (x, y) = corner(m.square);
        let colour = if m.kind == "ep" { "#1f5fbf" } else { "#d01c1c" };
        let dash = if m.kind == "ep" { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = write!(
            out,
            "<rect class=\"mark mark-{}\" data-mark=\"{}\" data-square=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\" fill-opacity=\"0.18\" stroke=\"{colour}\" stroke-width=\"4\"{dash}><title>{}</title></rect>",
            m.kind,
            m.kind,
            m.square,
            x + 2.0,
            y + 2.0,
            S - 4.0,
            S - 4.0,
            escape(&m.title)
        );
    }
    for (sq, piece) in d.board.iter() {
        let (x, y) = corner(sq);
        let name = piece_name(piece);
        let _ = write!(
            out,
            "<use href=\"#cburnett-{name}\" x=\"{x}\" y=\"{y}\" width=\"{S}\" height=\"{S}\" data-square=\"{sq}\" data-piece=\"{name}\"/>"
        );
    }
    for a in arrows {
        arrow(&mut out, a);
    }
    let mut y = board_bottom;
    if let Some(pockets) = d.pockets {
        for (row, (color, counts)) in Color::ALL.into_iter().zip(pockets).enumerate() {
            let top = y + 4.0 + row as f64 * POCKET;
            let who = if color == Color::White { "White" } else { "Black" };
            let letter = if color == Color::White { 'w' } else { 'b' };
            let _ = write!(
                out,
                "<text x=\"{LEFT}\" y=\"{}\" font-size=\"13\" fill=\"#222\">{who}'s pocket{}</text>",
                top + 19.0,
                if counts.iter().all(|&n| n == 0) { ": empty" } else { ":" }
            );
            let mut x = LEFT + 105.0;
            for (role, n) in POCKET_ROLES.into_iter().zip(counts) {
                if n == 0 {
                    continue;
                }
                let name = piece_name(role.of(color));
                let _ = write!(
                    out,
                    "<g data-pocket=\"{letter}\" data-piece=\"{name}\" data-count=\"{n}\"><use href=\"#cburnett-{name}\" x=\"{x}\" y=\"{top}\" width=\"{POCKET}\" height=\"{POCKET}\"/>\
                     <text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#222\">×{n}</text></g>",
                    x + POCKET,
                    top + 19.0
                );
                x += POCKET + 24.0;
            }
        }
        y += pockets_height;
    }
    for line in &lines {
        y += LINE;
        let _ =
            write!(out, "<text x=\"{LEFT}\" y=\"{}\" font-size=\"14\" fill=\"#222\">{}</text>", y - 4.0, escape(line));
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

    use super::*;
    use crate::engine::{
        identity::{Identity, Key},
        start::Variant,
        variant,
    };

    /// The value of `name="..."` in an element's text.
    fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
        let at = element.find(&format!(" {name}=\""))? + name.len() + 3;
        element[at..].split('"').next()
    }

    /// The pieces a drawing shows, square by square, read back from its `data-*` attributes.
    fn pieces_of(svg: &str) -> BTreeMap<String, String> {
        svg.split('<')
            .filter(|e| e.starts_with("use ") && e.contains("data-square"))
            .map(|e| (attribute(e, "data-square").unwrap().to_owned(), attribute(e, "data-piece").unwrap().to_owned()))
            .collect()
    }

    /// The pockets a drawing shows: (w or b, piece, count).
    fn pockets_of(svg: &str) -> Vec<(String, String, u8)> {
        svg.split('<')
            .filter(|e| e.starts_with("g ") && e.contains("data-pocket"))
            .map(|e| {
                (
                    attribute(e, "data-pocket").unwrap().to_owned(),
                    attribute(e, "data-piece").unwrap().to_owned(),
                    attribute(e, "data-count").unwrap().parse().unwrap(),
                )
            })
            .collect()
    }

    fn expected(board: &Board) -> BTreeMap<String, String> {
        Square::ALL
            .into_iter()
            .filter_map(|sq| board.piece_at(sq).map(|p| (sq.to_string(), piece_name(p).to_owned())))
            .collect()
    }

    fn diagram_of(pos: &Chess, mode: CastlingMode) -> Diagram {
        let key = Key::of(pos);
        Diagram {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: Identity::of(&key, mode).castling().to_owned(),
            ep: key.legal_ep,
            pockets: None,
            checks: None,
        }
    }

    #[test]
    fn a_standard_position_reads_back_square_by_square() {
        let fen: Fen = "r3kbnr/ppp1p1pp/2n5/3pPp2/8/8/PPPP1PPP/RNBQK2R w KQkq f6 0 5".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        for defs in [Defs::Inline, Defs::Page] {
            let svg = render(&diagram_of(&pos, CastlingMode::Standard), &[], &[], "t", defs);
            assert_eq!(pieces_of(&svg), expected(pos.board()));
            assert!(svg.contains(">White to move<") && svg.contains(">castling: KQkq<"), "{svg}");
            assert!(svg.contains(">e.p.: f6<"), "{svg}");
            assert!(pockets_of(&svg).is_empty());
            // Standalone, it carries the drawings of its pieces; in a page, the page does.
            assert_eq!(svg.contains("<symbol id=\"cburnett-bN\""), defs == Defs::Inline);
            assert!(!svg.contains("cburnett-bK\" viewBox") || defs == Defs::Inline);
        }
        assert_eq!(
            pieces_of(&render(&diagram_of(&Chess::default(), CastlingMode::Standard), &[], &[], "", Defs::Page)).len(),
            32
        );
    }

    #[test]
    fn a_chess960_position_reads_back_with_its_rook_files() {
        // Rooks on b and g, king on d (Shredder castling letters).
        let fen: Fen = "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Chess960).unwrap();
        let svg = render(&diagram_of(&pos, CastlingMode::Chess960), &[], &[], "", Defs::Inline);
        assert_eq!(pieces_of(&svg), expected(pos.board()));
        assert!(svg.contains(">castling: GBgb<"), "{svg}");
    }

    #[test]
    fn a_crazyhouse_position_reads_back_with_its_pockets() {
        let Variant::Lichess(rules) = Variant::from_tag(Some("Crazyhouse")) else { unreachable!() };
        // After 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qxg2 4. Bxg2: a queen and a pawn in White's
        // pocket, two pawns in Black's.
        let fen = "rnb1kbnr/ppp1pppp/8/8/8/2N5/PPPP1PBP/R1BQK1NR/QPpp b KQkq - 0 4";
        let drawn = variant::drawn_positions(rules, Some(fen), &[]).unwrap();
        let d = &drawn[0];
        let diagram = Diagram {
            board: d.key.board.clone(),
            turn: d.key.turn,
            castling: Identity::of(&d.key, d.mode).castling().to_owned(),
            ep: d.key.legal_ep,
            pockets: d.pockets,
            checks: d.checks,
        };
        let svg = render(&diagram, &[], &[], "", Defs::Inline);
        let setup = Fen::from_ascii(fen.as_bytes()).unwrap().into_setup();
        assert_eq!(pieces_of(&svg), expected(&setup.board));
        let want = vec![("w".into(), "wQ".into(), 1), ("w".into(), "wP".into(), 1), ("b".into(), "bP".into(), 2)];
        assert_eq!(pockets_of(&svg), want);
        assert!(svg.contains("<symbol id=\"cburnett-wQ\""), "a pocket's piece is drawn from the file's own defs");
    }

    #[test]
    fn three_check_counts_and_marks_and_arrows_show() {
        let Variant::Lichess(rules) = Variant::from_tag(Some("Three-check")) else { unreachable!() };
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2+3 0 2";
        let d = &variant::drawn_positions(rules, Some(fen), &[]).unwrap()[0];
        let diagram = Diagram {
            board: d.key.board.clone(),
            turn: d.key.turn,
            castling: "KQkq".into(),
            ep: None,
            pockets: None,
            checks: d.checks,
        };
        let marks = [Mark { square: Square::A8, kind: "castling", title: "gone".into() }];
        let arrows = [Arrow { from: Some(Square::G1), to: Square::F3, kind: "move" }];
        let svg = render(&diagram, &arrows, &marks, "", Defs::Inline);
        assert!(svg.contains(">checks to give: White 2, Black 3<"), "{svg}");
        assert!(svg.contains("data-mark=\"castling\" data-square=\"a8\""), "{svg}");
        assert!(svg.contains("data-from=\"g1\" data-to=\"f3\""), "{svg}");
    }
}
