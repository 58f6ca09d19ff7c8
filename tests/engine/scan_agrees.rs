//! The movetext scanner reads the moves the replay plays, in place of `pgn-reader`'s own
//! movetext parser (one pass over each game instead of two). On every game slice of the whole
//! shared corpus and of the rule fixtures, the scanner's moves must equal the moves
//! `pgn-reader` reads (up to a token the scanner rejects); without the corpus, on the samples
//! and generated PGN. `fuzz/fuzz_targets/pgn_to_events.rs` checks the same on arbitrary bytes.

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    ops::ControlFlow,
    path::{Path, PathBuf},
};

use threefold::{CHUNK_BYTES, GameError, GameVisitor, Splitter, game_json};
use threefold_core::{pgn::reference::check_scan_against_reader, read::input};

use crate::common;

/// Game slices the splitter must find in the corpus's PGN files (all of them, compressed too).
const CORPUS_SLICES: u64 = 416_107;
/// Game slices in `data-samples/` and `tests/oracle/rules/`.
const SAMPLE_SLICES: u64 = 412;

/// The files to read (the corpus when it is there, the rule fixtures, the samples and a
/// generated file written under `tmp`), and how many game slices the splitter must cut them
/// into: each file's group's count, known beforehand.
fn test_files(what: &str, tmp: &Path) -> (Vec<PathBuf>, u64) {
    let mut files = Vec::new();
    let mut expected = SAMPLE_SLICES;
    if let Some(corpus) = common::corpus(what) {
        files_under(&corpus, &mut files);
        expected += CORPUS_SLICES;
    }
    files.extend(common::sample_files());
    let generated = tmp.join("generated.pgn");
    let (text, games) = common::generated_pgn(13, 2 << 20);
    std::fs::write(&generated, text).unwrap();
    files.push(generated);
    (files, expected + games as u64)
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, out);
        } else if path.to_string_lossy().contains(".pgn") {
            out.push(path);
        }
    }
}

#[test]
fn scanner_reads_the_moves_pgn_reader_reads_on_the_whole_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let (files, expected) = test_files("the movetext scanner against pgn-reader on the whole corpus", tmp.path());

    let (mut slices, mut failures) = (0u64, Vec::new());
    for file in &files {
        let (_, stream) = input::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut splitter = Splitter::new(stream, CHUNK_BYTES);
        while let Some(chunk) = splitter.next_chunk().unwrap_or_else(|e| panic!("{}: {e:?}", file.display())) {
            for (start, slice) in chunk.game_slices() {
                slices += 1;
                if let Err(diff) = check_scan_against_reader(slice) {
                    failures.push(format!("{} at chunk byte {start}:\n{diff}", file.display()));
                }
            }
        }
    }
    assert_eq!(slices, expected, "game slices cut from {} files", files.len());
    assert!(
        failures.is_empty(),
        "{} of {slices} games differ; first:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
}

/// Found by the fuzz smoke (`pgn_to_events`, 2026-12-02): a byte-order mark after a carriage
/// return, then a tag line whose value holds `{`. `pgn-reader` skips a byte-order mark only at
/// the very start of its input, before any whitespace, so here the mark is text: the game has
/// no tags, its movetext starts with the token `\u{feff}[Event` (an `invalid_move` at ply 0)
/// and the `{` opens a comment that runs to the end (so `[Result "0-0"]` and `1. e4 *` are
/// comment; plain `pgn-reader` calls it unterminated, threefold closes it there): one game, no
/// tags, no move, no result marker. `pgn-reader` shown the whole slice read it
/// so; shown only the tags (as `dump` and `ingest` read) it was shown the leading `\r` alone,
/// found no game there, and was then shown the rest from the mark, which it skipped at the
/// start of what it took for a new input, reading `Event` and `Result` tags.
#[test]
fn regression_bom_after_cr_before_a_tag_line_with_a_brace() {
    let pgn: &[u8] = b"\r\xef\xbb\xbf[Event \"x{\"]\n[Result \"0-0\"]\n\n1. e4 *\n";
    let whole = records(pgn, GameVisitor::showing_whole_slices(), |_| true).1;
    let tags_only = records(pgn, GameVisitor::new(), |_| true).1;
    assert_eq!(whole, tags_only);
    assert_eq!(read_as_pgn_reader_reads(pgn), [(vec![], vec![])]);
    assert_reads_as_pgn_reader(pgn);
}

/// A byte-order mark is skipped only at the first byte of the input (as `pgn-reader` skips it);
/// anywhere else, after whitespace, a second mark, or at a later game's start, it is the first
/// byte of a movetext token: a game with no tags ends at the next `\n[` or blank line. Read
/// through the splitter (in chunks of the default size and of one game each, so that a game
/// with a mark starts a chunk) both ways `pgn-reader` is shown the slices, every input gives
/// the games, tags and moves that one `pgn-reader` over the whole input gives.
#[test]
fn a_byte_order_mark_is_skipped_only_at_the_start_of_the_input() {
    let bom = "\u{feff}";
    let tags = "[Event \"x\"]\n[Result \"0-0\"]\n\n1. e4 *\n";
    let brace = "[Event \"x{\"]\n[Result \"0-0\"]\n\n1. e4 *\n";
    let game = |event: &str, moves: &str| format!("[Event \"{event}\"]\n\n{moves}\n\n");
    let cases = [
        // At the start of the input: skipped, before whitespace too.
        format!("{bom}{tags}"),
        format!("{bom}{brace}"),
        format!("{bom}\n\n{tags}"),
        format!("{bom}  \r\n{brace}"),
        format!("{bom}%escape\n{tags}"),
        // After whitespace or a first mark: text.
        format!("\r{bom}{tags}"),
        format!("\n{bom}{tags}"),
        format!("\n{bom}{brace}"),
        format!("\r\n{bom}{brace}"),
        format!("  {bom}{tags}"),
        format!("\t{bom}{brace}"),
        format!("{bom}{bom}{tags}"),
        format!("{bom}{bom}{brace}"),
        format!("{bom}\n{bom}{tags}"),
        format!("%escape\n{bom}{tags}"),
        format!("\n{bom}1. e4 e5 *\n"),
        // At a later game's start: after a blank line, CRLF or not, directly after movetext
        // (part of that movetext), after a tag section.
        format!("{}{bom}{tags}", game("a", "1. e4 *")),
        format!("{}{bom}{brace}{}", game("a", "1. e4 *"), game("c", "1. c4 *")),
        format!("{}{bom}{}", game("a", "1. e4 *"), game("b", "1. d4 *")).replace('\n', "\r\n"),
        format!("{}\n{bom}  {tags}", game("a", "1. e4 *")),
        format!("[Event \"a\"]\n\n1. e4 *\n{bom}{tags}"),
        format!("[Event \"a\"]\n\n1. e4\n{bom}1. e5 Nf3\n\n{}", game("b", "1. d4 *")),
        format!("[Event \"a\"]\n\n{bom}{tags}"),
        format!("{}{bom}{bom}{tags}", game("a", "1. e4 *")),
        format!("{}{bom}\n{tags}", game("a", "1. e4 *")),
    ];
    for pgn in &cases {
        let pgn = pgn.as_bytes();
        let whole = records(pgn, GameVisitor::showing_whole_slices(), |_| true).1;
        let tags_only = records(pgn, GameVisitor::new(), |_| true).1;
        assert_eq!(whole, tags_only, "{:?}", String::from_utf8_lossy(pgn));
        assert_reads_as_pgn_reader(pgn);
    }
}

/// A game's tags and mainline moves.
type TagsAndMoves = (Vec<(String, String)>, Vec<String>);

/// The games of `pgn` as threefold reads it cut into chunks of about `target` bytes: each one's
/// tags, the mainline moves the replay played, and the error it stopped at, if any.
fn read_in_chunks(pgn: &[u8], target: usize) -> Vec<(TagsAndMoves, Option<GameError>)> {
    let mut splitter = Splitter::new(pgn, target);
    let mut visitor = GameVisitor::keeping_moves();
    let mut games = Vec::new();
    while let Some(chunk) = splitter.next_chunk().unwrap() {
        let _ = visitor.read_chunk(&chunk, |_, game| {
            let tags = game.tags.iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
            let moves = game.moves.iter().map(ToString::to_string).collect();
            games.push(((tags, moves), game.analysis.and_then(|a| a.error)));
            ControlFlow::Continue(())
        });
    }
    games
}

/// Each game's tags and mainline moves as one `pgn-reader` reads the whole of `pgn` (a
/// comment left open at the end closed there, as threefold closes it).
fn read_as_pgn_reader_reads(pgn: &[u8]) -> Vec<TagsAndMoves> {
    use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};

    type Read = TagsAndMoves;
    struct Games;
    impl Visitor for Games {
        type Tags = Read;
        type Movetext = Read;
        type Output = Read;
        fn begin_tags(&mut self) -> ControlFlow<Read, Read> {
            ControlFlow::Continue(Default::default())
        }
        fn tag(&mut self, game: &mut Read, name: &[u8], value: RawTag<'_>) -> ControlFlow<Read> {
            game.0.push((String::from_utf8_lossy(name).into(), value.decode_utf8_lossy().into()));
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, game: Read) -> ControlFlow<Read, Read> {
            ControlFlow::Continue(game)
        }
        fn san(&mut self, game: &mut Read, san: SanPlus) -> ControlFlow<Read> {
            game.1.push(san.to_string());
            ControlFlow::Continue(())
        }
        fn begin_variation(&mut self, _: &mut Read) -> ControlFlow<Read, Skip> {
            ControlFlow::Continue(Skip(true))
        }
        fn end_game(&mut self, game: Read) -> Read {
            game
        }
    }
    let read = |pgn: &[u8]| -> std::io::Result<Vec<Read>> {
        let mut reader = Reader::new(pgn);
        std::iter::from_fn(|| reader.read_game(&mut Games).transpose()).collect()
    };
    read(pgn).unwrap_or_else(|_| read(&[pgn, b"}"].concat()).unwrap())
}

/// Threefold reads the games, tags and moves of `pgn` that one `pgn-reader` reads over the
/// whole of it; the moves up to the first token the replay stops at (`pgn-reader` skips it).
fn assert_reads_as_pgn_reader(pgn: &[u8]) {
    let reference = read_as_pgn_reader_reads(pgn);
    for target in [CHUNK_BYTES, 1] {
        let read = read_in_chunks(pgn, target);
        let show = String::from_utf8_lossy(pgn);
        assert_eq!(read.len(), reference.len(), "{show:?} in chunks of {target}: games");
        for (((tags, moves), error), (ref_tags, ref_moves)) in read.iter().zip(&reference) {
            assert_eq!(tags, ref_tags, "{show:?} in chunks of {target}: tags");
            match error {
                None => assert_eq!(moves, ref_moves, "{show:?} in chunks of {target}: moves"),
                Some(_) => assert!(ref_moves.starts_with(moves), "{show:?} in chunks of {target}: moves {moves:?}"),
            }
        }
    }
}

/// Cases where the two readings could part: castling with zeros, suffixes, tokens glued to
/// move numbers, results inside tokens, variations and comments across lines.
#[test]
fn scanner_agrees_on_tricky_movetext() {
    for pgn in [
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. 0-0 Nf6 5. O-O-O+ 0-0-0# *",
        "1.e4 e5 2.Nf3!? Nc6?! 3.Bb5!! $1 a6 (3...Nf6 4.0-0 (4.d3)) 4.Ba4 1-0",
        "1e4 e5 2Nf3 {a comment\nover lines} Nc6 ; rest\n3. Bb5 % escape\n a6 *",
        "1. e4 Ng81/2-1/2",
        "1. e4 e5 2. Nf3e4 Nc6 *",
        "1. e4 e5 2. d8Q d5 *",
        "1. e4 { open",
        "1. exd6 e.p. Ke7 2. O-O-O *",
        "[Event \"x\"] 1. e4 e5\n[Event \"y\"]\n1. d4 *",
        "1. e4 \u{2013} 1\u{2013}0",
        "1. e4 0000 e5 --  Z0 *",
        // Crazyhouse drops (a piece, a pawn with and without its letter, with check suffixes).
        "1. e4 d5 2. exd5 N@f3+ 3. @e4 P@d3 4. Q@h7# N@ *",
        // Comments, with the clock and evaluation commands the replay reads from them.
        "{before} 1. e4 { [%clk 0:03:00] } {second} 1... e5 {[%eval 0.17] [%clk 0:02:59.9]} (1... c5 {[%clk 0:00:01]}) *",
        "1. e4 {[%clk 0:03:00]} d8Q {[%clk 0:02:00]} e5 *",
        "1. e4 {[%clk 0:03:00]} 1-0 {after the result} Nf3 {x}",
        "1. e4 {}{}{ } e5 {[%clk 0:03:00\n]} Nf3 { open [%clk 0:01:00]",
    ] {
        if let Err(diff) = check_scan_against_reader(pgn.as_bytes()) {
            panic!("{pgn:?}:\n{diff}");
        }
    }
}

/// A game `pgn-reader` reads (the second of a slice: its tags follow the first game's moves on
/// the next line) has the clocks and evaluations the scanner reads in the same game on its own,
/// a comment longer than the reader's buffer (passed on in parts) included.
#[test]
fn the_reader_reads_the_commands_the_scanner_reads() {
    let long = "x".repeat(5000);
    let second = format!(
        "[Event \"y\"]\n[TimeControl \"60+1\"]\n1. Nf3 {{ [%clk 0:01:00] }} Nf6 {{ {long} [%eval #-3] [%clk 0:00:59.5] }} \
         2. Ng1 {{[%clk 0:01:01]}} Ng8 {{[%clk 0:01:00]}} 3. Nf3 {{[%clk 0:01:01] [%eval 0.5]}} Nf6 {{[%clk 0:00:58]}} \
         4. Ng1 {{[%clk 0:01:02]}} Ng8 {{[%clk 0:00:57]}} *\n"
    );
    let both = format!("[Event \"x\"] 1. e4 e5\n{second}");
    let alone = records(second.as_bytes(), GameVisitor::new(), |_| true).1;
    let read = records(both.as_bytes(), GameVisitor::new(), |_| true).1;
    assert_eq!(read.len(), 2, "{read:?}");
    assert_eq!(read[1], alone[0]);
    let game: serde_json::Value = serde_json::from_str(&alone[0]).unwrap();
    assert_eq!(game["summary"]["has_clocks"], true);
    // Black could claim first, at ply 7 (by 4... Ng8): its clock is the one after 3... Nf6.
    assert_eq!(game["summary"]["first_claim_ply"], 7, "{game}");
    assert_eq!(game["summary"]["first_claim_clock_ms"], 58_000, "{game}");
    let at_ply_5 = game["events"].as_array().unwrap().iter().find(|e| e["ply"] == 5).unwrap();
    assert_eq!((at_ply_5["eval_cp"].as_i64(), at_ply_5["clock_ms"].as_i64()), (Some(50), Some(60_000)), "{game}");
}

/// Every game's record (JSON) of `input`, read with `visitor`, hashed; and the records of the
/// games `keep` picks (the whole corpus as text, twice, would take over a gigabyte).
fn records(input: impl std::io::Read, visitor: GameVisitor, keep: impl Fn(usize) -> bool) -> (Vec<u64>, Vec<String>) {
    let (mut hashes, mut kept) = (Vec::new(), Vec::new());
    threefold::for_each_game_with(input, visitor, |game| {
        let record = game_json(0, &game).expect("a record").to_string();
        let mut hasher = DefaultHasher::new();
        record.hash(&mut hasher);
        if keep(hashes.len()) {
            kept.push(record);
        }
        hashes.push(hasher.finish());
        ControlFlow::Continue(())
    })
    .unwrap();
    (hashes, kept)
}

/// `pgn-reader` is shown only the tags of each slice's first game (the scanner reads its
/// movetext and says where the game ends); shown each slice whole, as before, it must give the
/// same games with the same records: on the whole corpus and on slices where the two could part.
#[test]
fn reader_shown_only_the_tags_reads_the_games_it_reads_shown_whole_slices() {
    let tmp = tempfile::tempdir().unwrap();
    let (files, _) = test_files("pgn-reader shown tags only against whole slices on the whole corpus", tmp.path());
    let mut games = 0;
    for file in &files {
        let open = || input::open(file).unwrap().1;
        let (whole, _) = records(open(), GameVisitor::showing_whole_slices(), |_| false);
        let (tags_only, _) = records(open(), GameVisitor::new(), |_| false);
        games += whole.len();
        assert_eq!(whole.len(), tags_only.len(), "{}: number of games", file.display());
        if let Some(i) = (0..whole.len()).find(|&i| whole[i] != tags_only[i]) {
            let (_, whole) = records(open(), GameVisitor::showing_whole_slices(), |j| j == i);
            let (_, tags_only) = records(open(), GameVisitor::new(), |j| j == i);
            panic!("{} game {i}:\nwhole slices: {}\ntags only:    {}", file.display(), whole[0], tags_only[0]);
        }
    }
    assert!(games > 3_000, "only {games} games read");

    for pgn in [
        "[Event \"x\"] 1. e4 e5\n[Event \"y\"]\n1. d4 *",
        "[Event \"x\"]\n[Variant \"Atomic\"]\n\n1. e4 { a\n[Event \"no\"] } e5 *\n\n[Event \"y\"]\n\n1. d4 *",
        "1. e4 e5 *\n\n[Event \"a\"]\n\n1. d4 *",
        "[Event \"a\"]\r\n\r\n1. e4 (1. d4 {x}\r\n[Event \"b\"]\r\n1. c4 *",
        "[Event \"a\"]\n%escape [Event \"q\"]\n1. e4 (1. d4\n%[x]\n e5) e5 ; [c\n\n[Event \"b\"] 1. c4",
        "[Event \"a\n1. e4 *\n\n[Event \"b\"]\n1. d4 *",
        "[Event \"a\"] [Site \"b\"] 1. e4 { open\n\n[Event \"c\"]\n1. d4 *",
        "\u{feff}[Event \"a\"]\n\n\n1. e4 *\n[Event \"b\"]\n\n",
        "[Event \"a\"]\n\n[Event \"b\"]\n\n1. e4 e5",
        "[Event \"a\"]\n1. e4 ( e5\n\n1. d4 ) *",
        "[Event\"a\"][ Site  \"b\\\"c\\\\\" ]\n[NoQuote]\n[Date \"x\n1. e4 *",
        "[Event \"a\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 {x\n[y]} e5 *\n\n[Event \"b\"]\n\n1. d4 *",
        // A variant game read by the reader (the second of a slice), with drops and clocks.
        "[Event \"x\"] [Variant \"Crazyhouse\"] 1. e4 d5 2. exd5 Qxd5\n[Event \"y\"]\n[Variant \"Crazyhouse\"]\n\
         1. e4 {[%clk 0:01:00]} d5 2. exd5 Qxd5 3. P@e4 {[%clk 0:00:59]} Qxe4+ 4. Qe2 P@d3 5. Qxe4 dxc2 *",
    ] {
        let whole = records(pgn.as_bytes(), GameVisitor::showing_whole_slices(), |_| true).1;
        let tags_only = records(pgn.as_bytes(), GameVisitor::new(), |_| true).1;
        assert_eq!(whole, tags_only, "{pgn:?}");
    }
    // Tags near and past the 255 bytes the reader is sure to hold at each `[`, closed or not.
    for len in [190, 200, 250, 254, 255, 256, 300, 20_000] {
        for close in ["\"]", ""] {
            let pgn = format!("[Event \"a\"]\n[Annotator \"{}{close}\n[Site \"b\"]\n\n1. e4 *\n", "x".repeat(len));
            let whole = records(pgn.as_bytes(), GameVisitor::showing_whole_slices(), |_| true).1;
            let tags_only = records(pgn.as_bytes(), GameVisitor::new(), |_| true).1;
            assert_eq!(whole, tags_only, "a tag value of {len} bytes, closed {:?}", !close.is_empty());
        }
    }
}
