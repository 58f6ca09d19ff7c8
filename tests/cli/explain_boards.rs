//! `threefold explain … --html FILE --svg DIR`: the page with boards, read back from its HTML and
//! `data-*` attributes; and the report page's links to the example games' pages.

use crate::common::{self, run_ok, s};

use std::fs;

/// The value of `name="..."` in an element's text.
fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let at = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[at..].split('"').next()
}

/// The elements (their text after `<`) that start with `tag` and carry `attr`.
fn elements<'a>(html: &'a str, tag: &str, attr: &str) -> Vec<&'a str> {
    html.split('<').filter(|e| e.starts_with(tag) && e.contains(&format!(" {attr}=\""))).collect()
}

/// The sections of the page, one per event: (kind, its HTML).
fn events(html: &str) -> Vec<(String, String)> {
    html.split("<section class=\"event\"")
        .skip(1)
        .map(|part| {
            let section = &part[..part.find("</section>").unwrap()];
            (attribute(section, "data-kind").unwrap().to_owned(), section.to_owned())
        })
        .collect()
}

/// Karpov–Miles, Tilburg 1986, round 13: the board of 21...Nxb2 comes back after 23...Ra8 with
/// Black's queenside castling right gone, and after 26.Nb5 Black may claim by declaring Ra4.
#[test]
fn karpov_miles_marks_the_lost_queenside_right_and_the_claim() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = common::sample("karpov_miles_tilburg_1986.pgn");
    let (html, svg) = (tmp.path().join("km.html"), tmp.path().join("boards"));
    let plain = run_ok(&["explain", s(&pgn), "--game", "1021"]);
    let drawn = run_ok(&["explain", s(&pgn), "--game", "1021", "--html", s(&html), "--svg", s(&svg)]);
    assert_eq!(plain.stdout, drawn.stdout, "the text is the same with --html and --svg");
    let page = fs::read_to_string(&html).unwrap();

    // Self-contained: no script, nothing fetched.
    for never in ["<script", " src=", "url(", "<link", "@import"] {
        assert!(!page.contains(never), "{never}");
    }
    let events = events(&page);
    assert_eq!(events.len(), 9, "one section per event of the text");

    // The first event: 23...Ra8 is the board of 21...Nxb2, Black's queenside right gone.
    let (kind, first) = &events[0];
    assert_eq!(kind, "pseudo_repetition");
    assert!(first.contains("23...Ra8") && first.contains("21...Nxb2"), "{first}");
    assert!(
        first.contains("Black&#39;s queenside castling right (king on e8, rook on a8), held after 21...Nxb2, is gone"),
        "{first}"
    );
    let boards = elements(first, "figure", "data-ply");
    let plies: Vec<&str> = boards.iter().map(|b| attribute(b, "data-ply").unwrap()).collect();
    assert_eq!(plies, ["42", "46"], "the earlier board, then the event's");
    for sq in ["a8", "e8"] {
        let marks = first.matches(&format!("data-mark=\"castling\" data-square=\"{sq}\"")).count();
        assert_eq!(marks, 2, "{sq} marked on both boards");
    }
    assert!(first.matches("data-mark=").count() == 4, "only the king and the rook of the lost right");
    // Under the boards: the rights, then and now; the moves as arrows (21...Nxb2, 23...Ra8).
    assert!(first.contains(">castling: kq<") && first.contains(">castling: k<"), "{first}");
    assert!(first.contains("data-from=\"d3\" data-to=\"b2\"") && first.contains("data-from=\"a4\" data-to=\"a8\""));
    assert!(first.contains(">White to move<") && first.contains(">e.p.: none<"));

    // The claim: Ra4 declared after 26.Nb5, drawn as an arrow, in words.
    let (kind, claim) = events.last().unwrap();
    assert_eq!(kind, "claim_by_move");
    assert!(claim.contains("would make this position occur for the 3rd time"), "{claim}");
    assert!(claim.contains("class=\"arrow arrow-claim\" data-from=\"a8\" data-to=\"a4\""), "{claim}");
    let plies: Vec<&str> =
        elements(claim, "figure", "data-ply").iter().map(|b| attribute(b, "data-ply").unwrap()).collect();
    assert_eq!(plies, ["44", "48", "51"], "22...Ra4, 24...Ra4, then the claimant's position");

    // Every board of the page also on its own, with its own piece drawings.
    let files: Vec<String> =
        fs::read_dir(&svg).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(files.len(), page.matches("<figure class=\"board").count());
    let one = fs::read_to_string(svg.join("ply-046-event-01.svg")).unwrap();
    assert!(one.starts_with("<?xml") && one.contains("<symbol id=\"cburnett-bK\""), "{one}");
    assert_eq!(elements(&one, "rect", "data-mark").len(), 2);
    assert!(!files.iter().any(|f| f.contains(".tmp")), "{files:?}");
}

/// The board after 2...d5 comes back without its legal e.p. capture (exd6): d6 is marked and named.
#[test]
fn an_ep_right_at_one_occurrence_only_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ep.pgn");
    fs::write(&file, "1. e4 Nf6 2. e5 d5 3. Nf3 Ng8 4. Ng1 Nf6 *\n").unwrap();
    let html = tmp.path().join("ep.html");
    run_ok(&["explain", s(&file), "--html", s(&html)]);
    let page = fs::read_to_string(html).unwrap();
    let events = events(&page);
    let (_, pseudo) = events.iter().find(|(k, _)| k == "pseudo_repetition").expect("a pseudo-repetition");
    assert!(pseudo.contains("an e.p. capture on d6 is legal after 2...d5, not after 4...Nf6"), "{pseudo}");
    assert_eq!(pseudo.matches("data-mark=\"ep\" data-square=\"d6\"").count(), 2, "{pseudo}");
    assert!(pseudo.contains(">e.p.: d6<") && pseudo.contains(">e.p.: none<"), "{pseudo}");
}

/// A Chess960 game's castling rights as the files of their rooks; a crazyhouse game's pockets
/// and a three-check game's checks under its boards.
#[test]
fn variant_boards_show_rook_files_pockets_and_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let page = |name: &str, pgn: &str| {
        let file = tmp.path().join(format!("{name}.pgn"));
        fs::write(&file, pgn).unwrap();
        let html = tmp.path().join(format!("{name}.html"));
        run_ok(&["explain", s(&file), "--html", s(&html)]);
        fs::read_to_string(html).unwrap()
    };
    let c960 = page(
        "c960",
        "[Variant \"Chess960\"]\n[FEN \"nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1\"]\n\n\
         1. Nb3 Nb6 2. Na1 Na8 3. Nb3 Nb6 *\n",
    );
    assert!(events(&c960).iter().any(|(k, _)| k == "repetition"), "{c960}");
    assert!(c960.contains(">castling: GBgb<"), "{c960}");

    let zh =
        page("zh", "[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 *\n");
    assert!(events(&zh).iter().any(|(k, _)| k == "repetition"), "{zh}");
    let pockets: Vec<(&str, &str, &str)> = elements(&zh, "g", "data-pocket")
        .iter()
        .map(|g| {
            (
                attribute(g, "data-pocket").unwrap(),
                attribute(g, "data-piece").unwrap(),
                attribute(g, "data-count").unwrap(),
            )
        })
        .collect();
    assert!(
        !pockets.is_empty() && pockets.iter().all(|p| *p == ("w", "wP", "1") || *p == ("b", "bP", "1")),
        "{pockets:?}"
    );

    let three = page("3check", "[Variant \"Three-check\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n");
    assert!(events(&three).iter().any(|(k, _)| k == "repetition"), "{three}");
    assert!(three.contains(">checks to give: White 3, Black 3<"), "{three}");
}

/// `report --html FILE`: each example game's command links to its `explain` page, written into
/// `FILE-games/` beside the page (the file's stem, then `-games`).
#[test]
fn the_report_links_each_example_game_to_its_page() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = tmp.path().join("dataset");
    run_ok(&["ingest", "--quiet", "--out", s(&ds), s(&common::sample("karpov_miles_tilburg_1986.pgn"))]);
    let html = tmp.path().join("report.html");
    run_ok(&["report", s(&ds), "--html", s(&html)]);
    let page = fs::read_to_string(&html).unwrap();
    let links = elements(&page, "a", "href");
    let games: Vec<&str> =
        links.iter().filter_map(|a| attribute(a, "href")).filter(|h| h.starts_with("report-games/")).collect();
    assert!(!games.is_empty(), "{page}");
    assert_eq!(games.len(), page.matches("<tr class=\"example\"").count(), "every example game linked");
    for href in games {
        let linked = fs::read_to_string(tmp.path().join(href)).unwrap();
        assert!(linked.contains("<figure class=\"board"), "{href}");
    }
    assert!(tmp.path().join("report-games/karpov_miles_tilburg_1986-1021.html").exists());
}
