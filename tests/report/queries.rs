//! `queries/*.sql` and `threefold report`, end to end: the real binary ingests `data-samples/` and
//! a larger corpus slice; every query runs in DuckDB (the Python package pinned in
//! `tests/requirements.txt`); its counts must equal counts taken from the engine's own records
//! (`threefold dump`), and the report's numbers (`--json`, the terminal table, the HTML page) must
//! equal the queries'.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

const QUERIES: [&str; 13] = [
    "missed_claims",
    "claim_by_move_only",
    "castling_rights_edge_cases",
    "en_passant_edge_cases",
    "draw_reasons",
    "automatic_draw_ignored",
    "repetition_rate_by_rating",
    "first_threefold_ply",
    "repetition_kinds",
    "missed_claims_by_clock",
    "missed_claims_by_eval",
    "by_month",
    "repetition_by_variant",
];

use crate::common::{self, python, run_ok};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The message a report prints when it reads every game instead of the summary.
const READS_GAMES: &str = "threefold: reading every game: ";

/// `report --json` with `args` from the summary and with `--scan` (every game read) give the
/// same JSON, figure by figure; returns it. `from_summary`: whether the filters let the summary
/// answer (else the report reads the games, and says so in one line).
fn summary_agrees_with_scan(dir: &Path, args: &[&str], from_summary: bool) -> Value {
    let mut all = vec!["report", dir.to_str().unwrap(), "--json"];
    all.extend(args);
    let summary = run_ok(&all);
    let said = String::from_utf8_lossy(&summary.stderr).into_owned();
    let lines: Vec<&str> = said.lines().filter(|l| l.starts_with(READS_GAMES)).collect();
    assert_eq!(lines.len(), usize::from(!from_summary), "{args:?}: {said}");
    all.push("--scan");
    let scan = run_ok(&all);
    assert!(!String::from_utf8_lossy(&scan.stderr).contains(READS_GAMES), "--scan needs no message");
    let (summary, scan): (Value, Value) =
        (serde_json::from_slice(&summary.stdout).unwrap(), serde_json::from_slice(&scan.stdout).unwrap());
    for key in scan.as_object().unwrap().keys() {
        assert_eq!(summary[key], scan[key], "{args:?}: `{key}` from the summary differs from --scan's");
    }
    assert_eq!(summary, scan, "{args:?}");
    summary
}

/// Whether the summary answers a report with `args`: dates on whole months, Elo bounds on the
/// edges of bands of 100 (the rule of docs/report.md, *The summary*).
fn summary_answers(args: &[&str]) -> bool {
    args.windows(2).all(|w| match w[0] {
        "--since" => w[1].len() <= 7 || w[1].ends_with("-01"),
        "--until" => w[1].len() <= 4 || (w[1].len() == 7 && !w[1].contains('.')),
        "--min-elo" => w[1].parse::<i32>().unwrap().rem_euclid(100) == 0,
        "--max-elo" => w[1].parse::<i32>().unwrap().rem_euclid(100) == 99,
        _ => true,
    })
}

fn run_python(script: &str, args: &[&str]) -> Value {
    let out = Command::new(python()).arg("-c").arg(script).args(args).output().expect("cannot run python");
    assert!(out.status.success(), "python failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("python printed no JSON")
}

/// Every query's result as a list of {column: value} rows, keyed by query name.
fn run_queries(dir: &Path) -> BTreeMap<String, Vec<Value>> {
    run_queries_where(dir, "")
}

/// The same over the games a SQL condition keeps (and their events): the views `games` and
/// `events` the queries read are narrowed first, so each query runs unchanged.
fn run_queries_where(dir: &Path, condition: &str) -> BTreeMap<String, Vec<Value>> {
    let paths: Vec<String> =
        QUERIES.iter().map(|q| root().join(format!("queries/{q}.sql")).display().to_string()).collect();
    run_files_where(dir, condition, &paths)
}

/// One SQL text over the games `condition` keeps.
fn run_sql_where(dir: &Path, condition: &str, sql: &str) -> Vec<Value> {
    let file = tempfile::Builder::new().suffix(".sql").tempfile().unwrap();
    std::fs::write(file.path(), sql).unwrap();
    let mut out = run_files_where(dir, condition, &[file.path().display().to_string()]);
    out.pop_first().map(|(_, rows)| rows).unwrap_or_default()
}

fn run_files_where(dir: &Path, condition: &str, paths: &[String]) -> BTreeMap<String, Vec<Value>> {
    const SCRIPT: &str = r#"
import duckdb, json, os, sys
out = {}
views = open(os.path.join(sys.argv[1], "views.sql")).read()
condition = sys.argv[2]
for path in sys.argv[3:]:
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # nothing but the result on stdout
    if condition:
        con.execute(views.replace("VIEW games AS", "VIEW all_games AS").replace("VIEW events AS", "VIEW all_events AS"))
        con.execute("CREATE VIEW games AS SELECT * FROM all_games WHERE " + condition)
        con.execute("CREATE VIEW events AS SELECT e.* FROM all_events e SEMI JOIN games g "
                    "ON e.source = g.source AND e.frame_offset = g.frame_offset AND e.byte_offset = g.byte_offset")
    else:
        con.execute(views)
    rel = con.sql(open(path).read())
    out[os.path.basename(path)[:-4]] = [dict(zip(rel.columns, row)) for row in rel.fetchall()]
print(json.dumps(out, default=str))
"#;
    let mut args = vec![dir.to_str().unwrap(), condition];
    args.extend(paths.iter().map(String::as_str));
    let Value::Object(map) = run_python(SCRIPT, &args) else { panic!("not an object") };
    map.into_iter().map(|(k, v)| (k, v.as_array().unwrap().clone())).collect()
}

/// Checks the page is a well-formed HTML5 document that loads nothing, and reads back its figures.
fn read_html(path: &Path) -> Value {
    const SCRIPT: &str = r#"
import json, sys
from html.parser import HTMLParser
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.counts, self.figures = [], [], {}, []
        self.doctype = None
        self.started = False
    def handle_decl(self, decl):
        if not self.started:
            self.doctype = decl
    def element(self, tag, attrs):
        self.started = True
        a = dict(attrs)
        # SVG has elements of its own (a <title> per bar): count the page's outside it
        if "svg" not in self.stack or tag == "svg":
            self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag in ("script", "link", "img", "iframe", "object", "embed") or "src" in a:
            self.errors.append("external resource: <%s>" % tag)
        if "data-title" in a:
            self.figures.append({"title": a["data-title"], "rows": []})
        if "data-label" in a:
            row = [a["data-label"]]
            if "data-series" in a:
                row.append(a["data-series"])
            row += [a["data-value"], a["data-interval"] or "-", a["data-count"], a["data-games"]]
            if a.get("data-small") == "true":
                row.append("few games")
            self.figures[-1]["rows"].append(row)
    def handle_starttag(self, tag, attrs):
        self.element(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.element(tag, attrs)
        if tag not in VOID and "svg" not in self.stack:
            self.errors.append("self-closing <%s/> outside SVG" % tag)
    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append("end tag of void element %s" % tag)
        elif not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> does not close %s" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()
    def handle_data(self, data):
        if not self.started and data.strip():
            self.errors.append("text before the doctype")
text = open(sys.argv[1], encoding="utf-8").read()
p = Page()
p.feed(text)
p.close()
if p.stack:
    p.errors.append("unclosed: %s" % p.stack)
if (p.doctype or "").lower() != "doctype html":
    p.errors.append("no <!DOCTYPE html> first")
for tag in ("html", "head", "body", "title"):
    if p.counts.get(tag) != 1:
        p.errors.append("%d <%s> elements" % (p.counts.get(tag, 0), tag))
if "url(" in text or "@import" in text:
    p.errors.append("CSS loads a resource")
print(json.dumps({"errors": p.errors, "svg": p.counts.get("svg", 0), "figures": p.figures}))
"#;
    run_python(SCRIPT, &[path.to_str().unwrap()])
}

/// Counts taken from the engine's records (`threefold dump`, one JSON object per game), by the
/// queries' rules but without DuckDB or Parquet.
#[derive(Default, Debug)]
struct Engine {
    games: u64,
    threefold: u64,
    fivefold: u64,
    with_claim: u64,
    missed: u64,
    opportunities: u64,
    missed_opportunities: u64,
    /// Games with a claim on the board and with a missed one; the same by a declared move.
    kinds: [u64; 4],
    claimant: [u64; 3],
    draws: BTreeMap<String, u64>,
    plies_on_board: u64,
    plies_by_move_only: u64,
    plies_by_move_only_played: u64,
    games_with_on_board: u64,
    games_with_by_move_only: u64,
    games_only_by_move: u64,
    castling_games: u64,
    castling_events: u64,
    ep_games: u64,
    hidden_games: u64,
    after_fivefold: u64,
    after_75_moves: u64,
    buckets: BTreeMap<u64, u64>,
    /// Threefold and fivefold draws by `first_threefold_perpetual` (`none` for null).
    perpetual_draws: BTreeMap<String, u64>,
    games_with_clocks: u64,
    games_with_evals: u64,
    /// Claim opportunities in games with clocks by the claimant's clock band: (all, missed).
    clock_bands: BTreeMap<String, (u64, u64)>,
    /// The same in games with evaluations by the claimant's evaluation band.
    eval_bands: BTreeMap<String, (u64, u64)>,
    /// Games with evaluations by the band of their first missed claim: games, claimant wins,
    /// draws, losses.
    first_missed_bands: BTreeMap<String, [u64; 4]>,
    /// Games with clocks by the clock band of their first claim opportunity: games, and those
    /// where it was passed over (the first missed claim is the first claim).
    first_claim_bands: BTreeMap<String, (u64, u64)>,
    /// By `variant`: games replayed, skipped, with a repetition, threefold, fivefold, with a
    /// claim, with a missed claim, with a pseudo- or hidden repetition, drop claims.
    by_variant: BTreeMap<String, [u64; 9]>,
}

/// The clock bands of `missed_claims_by_clock.sql`.
fn clock_band(ms: Option<i64>) -> &'static str {
    match ms {
        Some(ms) if ms < 10_000 => "< 10 s",
        Some(ms) if ms < 30_000 => "10-30 s",
        Some(ms) if ms < 60_000 => "30-60 s",
        Some(ms) if ms < 180_000 => "1-3 min",
        Some(_) => ">= 3 min",
        None => "unknown",
    }
}

/// The evaluation bands of `missed_claims_by_eval.sql`, from the claimant's side.
fn eval_band(cp: Option<i64>, mate: Option<i64>) -> &'static str {
    match (cp, mate) {
        (_, Some(m)) if m < 0 => "clearly worse",
        (_, Some(m)) if m > 0 => "clearly better",
        (_, Some(_)) => "about equal",
        (Some(cp), None) if cp < -100 => "clearly worse",
        (Some(cp), None) if cp > 100 => "clearly better",
        (Some(_), None) => "about equal",
        (None, None) => "no evaluation",
    }
}

fn engine_counts(files: &[PathBuf]) -> Engine {
    let mut e = Engine::default();
    for file in files {
        let out = run_ok(&["dump", file.to_str().unwrap()]);
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let game: Value = serde_json::from_str(line).unwrap();
            let variant = e.by_variant.entry(game["variant"].as_str().unwrap().to_owned()).or_default();
            if game["status"] == "skipped" {
                variant[1] += 1;
                continue;
            }
            let s = &game["summary"];
            let n = |k: &str| s[k].as_u64().unwrap_or(0);
            let drops = game["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|ev| ev["kind"] == "claim_by_move" && ev["san"].as_str().unwrap().contains('@'))
                .count() as u64;
            // A game without a move is in no rate (the report counts it apart). The program's
            // claims are in no missed-claim figure but those by venue; a claim by a declared move
            // existed only where the side to move claimed (docs/events.md, "The rules in force").
            let no_moves = game["status"] == "ok" && n("plies") == 0;
            let claims = game["claimant"] != "program";
            let declared = game["claimant"] == "side_to_move";
            let c = |v: u64| if claims { v } else { 0 };
            let figures = [
                u64::from(!no_moves),
                0,
                u64::from(n("max_occurrence") >= 2),
                u64::from(n("max_occurrence") >= 3),
                u64::from(n("max_occurrence") >= 5),
                u64::from(n("claim_opportunities") > 0),
                u64::from(n("missed_claims") > 0),
                u64::from(n("pseudo_repetitions") + n("hidden_repetitions") > 0),
                drops,
            ];
            for (total, add) in variant.iter_mut().zip(figures) {
                *total += add;
            }
            if no_moves {
                continue;
            }
            e.games += 1;
            e.threefold += u64::from(n("max_occurrence") >= 3);
            e.fivefold += u64::from(n("max_occurrence") >= 5);
            e.with_claim += c(u64::from(n("claim_opportunities") > 0));
            e.missed += c(u64::from(n("missed_claims") > 0));
            e.opportunities += c(n("claim_opportunities"));
            e.missed_opportunities += c(n("missed_claims"));
            let kinds = [
                "claim_opportunities_on_board",
                "missed_claims_on_board",
                "claim_opportunities_by_move",
                "missed_claims_by_move",
            ];
            for (i, k) in kinds.into_iter().enumerate() {
                e.kinds[i] += c(u64::from(n(k) > 0));
            }
            if let Some(score) = s["claimant_score_after_first_missed"].as_f64().filter(|_| claims) {
                e.claimant[if score == 1.0 {
                    0
                } else if score == 0.5 {
                    1
                } else {
                    2
                }] += 1;
            }
            if let Some(reason) = s["draw_reason"].as_str() {
                *e.draws.entry(reason.to_owned()).or_default() += 1;
                if reason == "threefold" || reason == "fivefold" {
                    let kind = s["first_threefold_perpetual"].as_str().unwrap_or("none");
                    *e.perpetual_draws.entry(kind.to_owned()).or_default() += 1;
                }
            }
            e.after_fivefold += u64::from(n("plies_after_automatic_fivefold") > 0);
            e.after_75_moves += u64::from(n("plies_after_automatic_75_moves") > 0);
            if let Some(p) = s["first_ply_occurrence_3"].as_u64() {
                *e.buckets.entry(p / 10 * 10).or_default() += 1;
            }

            let events = game["events"].as_array().unwrap();
            let of_kind = |kind: &'static str| events.iter().filter(move |ev| ev["kind"] == kind);
            // ply -> (claimable on the board, a claimable move was played)
            let mut plies: BTreeMap<u64, (bool, bool)> = BTreeMap::new();
            for ev in of_kind("repetition").filter(|ev| ev["claimable"] == true) {
                plies.entry(ev["ply"].as_u64().unwrap()).or_default().0 = true;
            }
            for ev in of_kind("claim_by_move").filter(|_| declared) {
                plies.entry(ev["ply"].as_u64().unwrap()).or_default().1 |= ev["played"] == true;
            }
            // Every opportunity but one at the last ply is missed (the engine's definition).
            let all_missed = n("missed_claims") == n("claim_opportunities");
            if !claims {
                plies.clear();
            }
            for &ply in plies.keys() {
                let at = events.iter().find(|ev| ev["ply"] == ply).unwrap();
                let missed = u64::from(ply < n("plies") || all_missed);
                let side = if at["turn"] == "w" { 1 } else { -1 };
                if s["has_clocks"] == true {
                    let band = e.clock_bands.entry(clock_band(at["clock_ms"].as_i64()).to_owned()).or_default();
                    *band = (band.0 + 1, band.1 + missed);
                }
                if s["has_evals"] == true {
                    let (cp, mate) =
                        (at["eval_cp"].as_i64().map(|v| side * v), at["eval_mate"].as_i64().map(|v| side * v));
                    let band = e.eval_bands.entry(eval_band(cp, mate).to_owned()).or_default();
                    *band = (band.0 + 1, band.1 + missed);
                }
            }
            e.games_with_clocks += u64::from(s["has_clocks"] == true);
            if s["has_clocks"] == true && !s["first_claim_ply"].is_null() && claims {
                let band =
                    e.first_claim_bands.entry(clock_band(s["first_claim_clock_ms"].as_i64()).to_owned()).or_default();
                *band = (band.0 + 1, band.1 + u64::from(s["first_missed_claim_ply"] == s["first_claim_ply"]));
            }
            e.games_with_evals += u64::from(s["has_evals"] == true);
            if s["has_evals"] == true && !s["first_missed_claim_ply"].is_null() && claims {
                let band =
                    eval_band(s["first_missed_claim_eval_cp"].as_i64(), s["first_missed_claim_eval_mate"].as_i64());
                let counts = e.first_missed_bands.entry(band.to_owned()).or_default();
                counts[0] += 1;
                match s["claimant_score_after_first_missed"].as_f64() {
                    Some(1.0) => counts[1] += 1,
                    Some(0.5) => counts[2] += 1,
                    Some(_) => counts[3] += 1,
                    None => {}
                }
            }
            let on_board = plies.values().filter(|p| p.0).count() as u64;
            let by_move = plies.len() as u64 - on_board;
            assert_eq!(
                plies.len() as u64,
                c(n("claim_opportunities")),
                "claim opportunities of game {}",
                game["index"]
            );
            e.plies_on_board += on_board;
            e.plies_by_move_only += by_move;
            e.plies_by_move_only_played += plies.values().filter(|p| !p.0 && p.1).count() as u64;
            e.games_with_on_board += u64::from(on_board > 0);
            e.games_with_by_move_only += u64::from(by_move > 0);
            e.games_only_by_move += u64::from(by_move > 0 && on_board == 0);

            let pseudo = |d: &[&str]| {
                of_kind("pseudo_repetition").filter(|ev| d.iter().any(|x| ev["differs"] == *x)).count() as u64
            };
            let castling = pseudo(&["castling", "both"]);
            e.castling_games += u64::from(castling > 0);
            e.castling_events += castling;
            e.ep_games += u64::from(pseudo(&["en_passant", "both"]) > 0);
            e.hidden_games += u64::from(of_kind("hidden_repetition").count() > 0);
        }
    }
    e
}

fn num(v: &Value) -> u64 {
    match v {
        Value::Number(n) => n.as_u64().unwrap_or_else(|| panic!("not a count: {v}")),
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("not a count: {v}")),
        _ => panic!("not a count: {v}"),
    }
}

/// The single row of `rows` whose `column` is `value`.
fn row<'a>(rows: &'a [Value], column: &str, value: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r[column] == value).collect();
    assert_eq!(found.len(), 1, "rows with {column} = {value}: {found:?}");
    found[0]
}

/// The queries' totals equal the engine's records.
fn check_queries_against_engine(q: &BTreeMap<String, Vec<Value>>, e: &Engine) {
    let all = row(&q["missed_claims"], "split", "all");
    assert_eq!(num(&all["games"]), e.games);
    assert_eq!(num(&all["games_with_claim"]), e.with_claim);
    assert_eq!(num(&all["games_with_missed_claim"]), e.missed);
    assert_eq!(num(&all["opportunities"]), e.opportunities);
    assert_eq!(num(&all["missed_opportunities"]), e.missed_opportunities);
    let kinds = [
        "games_with_board_claim",
        "games_with_missed_board_claim",
        "games_with_move_claim",
        "games_with_missed_move_claim",
    ];
    assert_eq!(kinds.map(|k| num(&all[k])), e.kinds, "{kinds:?}");
    let claimant = [&all["claimant_wins"], &all["claimant_draws"], &all["claimant_losses"]].map(num);
    assert_eq!(claimant, e.claimant);

    let all = row(&q["repetition_rate_by_rating"], "split", "all");
    assert_eq!(
        (num(&all["games"]), num(&all["threefold_games"]), num(&all["fivefold_games"])),
        (e.games, e.threefold, e.fivefold)
    );

    let draws: BTreeMap<String, u64> = q["draw_reasons"]
        .iter()
        .filter(|r| r["split"] == "all")
        .map(|r| (r["draw_reason"].as_str().unwrap().to_owned(), num(&r["games"])))
        .collect();
    assert_eq!(draws, e.draws);

    let c = row(&q["claim_by_move_only"], "split", "all");
    assert_eq!(num(&c["opportunities"]), e.opportunities);
    assert_eq!(num(&c["on_board"]), e.plies_on_board);
    assert_eq!(num(&c["by_move_only"]), e.plies_by_move_only);
    assert_eq!(num(&c["by_move_only_played"]), e.plies_by_move_only_played);
    assert_eq!(num(&c["games_with_on_board"]), e.games_with_on_board);
    assert_eq!(num(&c["games_with_by_move_only"]), e.games_with_by_move_only);
    assert_eq!(num(&c["games_only_by_move"]), e.games_only_by_move);

    let castling = &q["castling_rights_edge_cases"];
    assert_eq!(num(&castling[0]["games"]), e.games);
    assert_eq!(num(&castling[0]["games_with_case"]), e.castling_games);
    assert_eq!(num(&castling[0]["case_events"]), e.castling_events);
    let listed = castling.iter().filter(|r| !r["source"].is_null()).count() as u64;
    assert_eq!(listed, e.castling_games.min(100));

    let ep = &q["en_passant_edge_cases"][0];
    assert_eq!((num(&ep["games_with_ep_pseudo"]), num(&ep["games_with_hidden"])), (e.ep_games, e.hidden_games));

    let auto = &q["automatic_draw_ignored"][0];
    assert_eq!(
        (num(&auto["games_after_fivefold"]), num(&auto["games_after_75_moves"])),
        (e.after_fivefold, e.after_75_moves)
    );

    let buckets: BTreeMap<u64, u64> =
        q["first_threefold_ply"].iter().map(|r| (num(&r["from_ply"]), num(&r["games"]))).collect();
    assert_eq!(buckets, e.buckets);

    // Every split of the repetition draws adds up to the engine's count of each perpetual kind.
    for split in ["all", "time_class", "venue", "checking_side"] {
        let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
        for r in q["repetition_kinds"].iter().filter(|r| r["split"] == split) {
            *kinds.entry(r["perpetual"].as_str().unwrap().to_owned()).or_default() += num(&r["games"]);
        }
        assert_eq!(kinds, e.perpetual_draws, "repetition_kinds split {split}");
    }
    let stronger_or_weaker: u64 = q["repetition_kinds"]
        .iter()
        .filter(|r| r["split"] == "checking_side" && r["checking_side"] != "n/a")
        .map(|r| num(&r["games"]))
        .sum();
    let one_side = ["white", "black"].iter().map(|k| e.perpetual_draws.get(*k).copied().unwrap_or(0)).sum::<u64>();
    assert_eq!(stronger_or_weaker, one_side, "a checking side for every perpetual by one side");

    let by_clock = &q["missed_claims_by_clock"];
    let covered: Vec<u64> =
        by_clock.iter().filter(|r| r["split"] == "all").map(|r| num(&r["games_with_clocks"])).collect();
    assert!(!covered.is_empty() && covered.iter().all(|&n| n == e.games_with_clocks), "games with clocks: {covered:?}");
    let bands: BTreeMap<String, (u64, u64)> = by_clock
        .iter()
        .filter(|r| r["split"] == "all" && !r["clock_band"].is_null())
        .map(|r| (r["clock_band"].as_str().unwrap().to_owned(), (num(&r["opportunities"]), num(&r["missed"]))))
        .collect();
    assert_eq!(bands, e.clock_bands, "missed_claims_by_clock");
    // A time class whose clocked games offered no claim (engine play's) has a row without a band.
    let classes: u64 = by_clock
        .iter()
        .filter(|r| r["split"] == "time_class" && !r["clock_band"].is_null())
        .map(|r| num(&r["opportunities"]))
        .sum();
    assert_eq!(classes, e.clock_bands.values().map(|b| b.0).sum::<u64>(), "time classes add up");

    let by_eval = &q["missed_claims_by_eval"];
    assert_eq!(by_eval.len(), 4);
    let bands: BTreeMap<String, (u64, u64)> = by_eval
        .iter()
        .filter(|r| num(&r["opportunities"]) > 0)
        .map(|r| (r["eval_band"].as_str().unwrap().to_owned(), (num(&r["opportunities"]), num(&r["missed"]))))
        .collect();
    assert_eq!(bands, e.eval_bands, "missed_claims_by_eval: opportunities");
    let first: BTreeMap<String, [u64; 4]> = by_eval
        .iter()
        .filter(|r| num(&r["games_first_missed"]) > 0)
        .map(|r| {
            let c = |k: &str| num(&r[k]);
            (
                r["eval_band"].as_str().unwrap().to_owned(),
                [c("games_first_missed"), c("claimant_wins"), c("claimant_draws"), c("claimant_losses")],
            )
        })
        .collect();
    assert_eq!(first, e.first_missed_bands, "missed_claims_by_eval: first missed claims");
    assert!(by_eval.iter().all(|r| num(&r["games_with_evals"]) == e.games_with_evals));

    let columns = [
        "games",
        "skipped",
        "repetition_games",
        "threefold_games",
        "fivefold_games",
        "games_with_claim",
        "games_with_missed_claim",
        "games_with_pseudo_or_hidden",
        "drop_claims",
    ];
    let by_variant: BTreeMap<String, [u64; 9]> = q["repetition_by_variant"]
        .iter()
        .map(|r| (r["variant"].as_str().unwrap().to_owned(), columns.map(|c| num(&r[c]))))
        .collect();
    assert_eq!(by_variant, e.by_variant, "repetition_by_variant");
}

/// The report's figures (`--json`) equal the queries' wherever both give one.
fn check_report_against_queries(report: &Value, q: &BTreeMap<String, Vec<Value>>) {
    let games = num(&report["overall"]["games"]);
    let all = row(&q["missed_claims"], "split", "all");
    assert_eq!(games, num(&all["games"]));
    assert_eq!(report["overall"]["with_claim"], all["games_with_claim"]);
    assert_eq!(report["overall"]["missed"], all["games_with_missed_claim"]);
    for (field, column) in [
        ("with_claim_on_board", "games_with_board_claim"),
        ("missed_on_board", "games_with_missed_board_claim"),
        ("with_claim_by_move", "games_with_move_claim"),
        ("missed_by_move", "games_with_missed_move_claim"),
    ] {
        assert_eq!(report["overall"][field], all[column], "{field}");
    }
    assert_eq!(report["claimant"]["games"], all["claimant_scored_games"]);
    assert_eq!(report["claimant"]["wins"], all["claimant_wins"]);
    assert_eq!(report["claimant"]["draws"], all["claimant_draws"]);
    assert_eq!(report["claimant"]["losses"], all["claimant_losses"]);

    // Groups: same labels in the same order, same counts.
    for (split, key) in [("rating_band", "by_rating_band"), ("time_class", "by_time_class")] {
        let reps: Vec<&Value> = q["repetition_rate_by_rating"].iter().filter(|r| r["split"] == split).collect();
        let missed: Vec<&Value> = q["missed_claims"].iter().filter(|r| r["split"] == split).collect();
        let groups = report[key].as_array().unwrap();
        let labels: Vec<&Value> = groups.iter().map(|g| &g["label"]).collect();
        assert_eq!(labels, reps.iter().map(|r| &r[split]).collect::<Vec<_>>(), "{split} order");
        assert_eq!(labels, missed.iter().map(|r| &r[split]).collect::<Vec<_>>(), "{split} order");
        for ((g, r), m) in groups.iter().zip(reps).zip(missed) {
            assert_eq!(g["games"], r["games"], "{split} {}", g["label"]);
            assert_eq!(g["threefold"], r["threefold_games"], "{split} {}", g["label"]);
            assert_eq!(g["fivefold"], r["fivefold_games"], "{split} {}", g["label"]);
            assert_eq!(g["with_claim"], m["games_with_claim"], "{split} {}", g["label"]);
            assert_eq!(g["missed"], m["games_with_missed_claim"], "{split} {}", g["label"]);
        }
    }

    let draws: Vec<(Value, Value)> = q["draw_reasons"]
        .iter()
        .filter(|r| r["split"] == "all")
        .map(|r| (r["draw_reason"].clone(), r["games"].clone()))
        .collect();
    let reported: Vec<(Value, Value)> =
        report["draw_reasons"].as_array().unwrap().iter().map(|d| (d["label"].clone(), d["games"].clone())).collect();
    assert_eq!(reported, draws);

    let c = row(&q["claim_by_move_only"], "split", "all");
    for key in [
        "opportunities",
        "on_board",
        "by_move_only",
        "by_move_only_played",
        "games_with_on_board",
        "games_with_by_move_only",
        "games_only_by_move",
    ] {
        assert_eq!(report["claims"][key], c[key], "claims.{key}");
    }

    let per_1000 = |n: &Value| 1000.0 * num(n) as f64 / games as f64;
    let close = |a: f64, b: &Value| assert!((a - b.as_f64().unwrap()).abs() < 0.001, "{a} vs {b}");
    let castling = &q["castling_rights_edge_cases"][0];
    assert_eq!(report["castling"]["games"], castling["games_with_case"]);
    assert_eq!(report["castling"]["events"], castling["case_events"]);
    close(per_1000(&report["castling"]["games"]), &castling["per_1000_games"]);
    let ep = &q["en_passant_edge_cases"][0];
    assert_eq!(report["en_passant"]["games"], ep["games_with_ep_pseudo"]);
    assert_eq!(report["hidden"]["games"], ep["games_with_hidden"]);
    close(per_1000(&report["hidden"]["games"]), &ep["hidden_per_1000_games"]);
    let auto = &q["automatic_draw_ignored"][0];
    assert_eq!(report["after_fivefold"], auto["games_after_fivefold"]);
    assert_eq!(report["after_75_moves"], auto["games_after_75_moves"]);
    close(per_1000(&report["after_fivefold"]), &auto["after_fivefold_per_1000_games"]);

    let kinds: BTreeMap<String, u64> = q["repetition_kinds"]
        .iter()
        .filter(|r| r["split"] == "all")
        .map(|r| (r["perpetual"].as_str().unwrap().to_owned(), num(&r["games"])))
        .collect();
    let reported: BTreeMap<String, u64> = report["repetition_draws_by_perpetual"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| num(&c["games"]) > 0)
        .map(|c| (c["label"].as_str().unwrap().to_owned(), num(&c["games"])))
        .collect();
    assert_eq!(reported, kinds, "report: repetition draws by perpetual");

    let buckets: Vec<(Value, Value)> =
        q["first_threefold_ply"].iter().map(|r| (r["from_ply"].clone(), r["games"].clone())).collect();
    let reported: Vec<(Value, Value)> = report["first_threefold_ply"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["from_ply"].clone(), b["games"].clone()))
        .collect();
    assert_eq!(reported, buckets);

    check_months(report, &q["by_month"]);
    // Example games (of the whole report, not of each group): the first rows of the matching
    // query, in its order.
    if report.get("examples").is_none() {
        return;
    }
    for (case, query) in [
        ("castling", "castling_rights_edge_cases"),
        ("en_passant", "en_passant_edge_cases"),
        ("automatic_draw_ignored", "automatic_draw_ignored"),
    ] {
        let shown: Vec<(Value, Value, Value)> = report["examples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["case"] == case)
            .map(|e| (e["source"].clone(), e["frame_offset"].clone(), e["byte_offset"].clone()))
            .collect();
        let listed: Vec<(Value, Value, Value)> = q[query]
            .iter()
            .filter(|r| !r["source"].is_null())
            .take(5)
            .map(|r| (r["source"].clone(), r["frame_offset"].clone(), r["byte_offset"].clone()))
            .collect();
        assert_eq!(shown, listed, "{case} examples");
    }
}

/// The report's months (`by_month`) equal `queries/by_month.sql`'s, reason by reason.
fn check_months(report: &Value, q: &[Value]) {
    type Month = (u64, u64, u64, u64, u64, BTreeMap<String, u64>);
    let mut want: BTreeMap<String, Month> = BTreeMap::new();
    for r in q {
        let m = want.entry(r["month"].as_str().unwrap().to_owned()).or_default();
        *m = (
            num(&r["games"]),
            num(&r["threefold_games"]),
            num(&r["games_with_claim"]),
            num(&r["games_with_missed_claim"]),
            num(&r["drawn"]),
            std::mem::take(&mut m.5),
        );
        if let Some(reason) = r["draw_reason"].as_str() {
            m.5.insert(reason.to_owned(), num(&r["reason_games"]));
        }
    }
    let got: BTreeMap<String, Month> = report["by_month"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let reasons = m["draw_reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["label"].as_str().unwrap().to_owned(), num(&c["games"])))
                .collect();
            (
                m["month"].as_str().unwrap().to_owned(),
                (
                    num(&m["games"]),
                    num(&m["threefold"]),
                    num(&m["with_claim"]),
                    num(&m["missed"]),
                    num(&m["drawn"]),
                    reasons,
                ),
            )
        })
        .collect();
    assert_eq!(got, want, "report: by month");
}

/// Every rate's 95% interval in `--json` equals scipy's Wilson interval for the same counts, and
/// every rate over some games has one.
fn check_intervals(report: &Value) -> usize {
    const SCRIPT: &str = r#"
import json, sys
from scipy.stats import binomtest
figures = json.load(open(sys.argv[1]))["figures"]
checked, bad = 0, []
for chart in figures:
    for row in chart["rows"]:
        scale = {"percent": 100.0, "per1000": 1000.0}.get(row["unit"])
        if scale is None:
            continue
        if row["games"] == 0:
            if row["interval"]:
                bad.append(("interval over no games", chart["id"], row))
            continue
        ci = binomtest(row["count"], row["games"]).proportion_ci(confidence_level=0.95, method="wilson")
        got = (row["low"] / scale, row["high"] / scale)
        checked += 1
        if not row["interval"] or abs(got[0] - ci.low) > 1e-9 or abs(got[1] - ci.high) > 1e-9:
            bad.append((chart["id"], row["label"], row.get("series"), row["count"], row["games"], got, (ci.low, ci.high)))
print(json.dumps({"checked": checked, "bad": bad[:10]}))
"#;
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), serde_json::to_vec(report).unwrap()).unwrap();
    let out = run_python(SCRIPT, &[tmp.path().to_str().unwrap()]);
    assert_eq!(out["bad"], Value::Array(vec![]), "intervals that differ from scipy's Wilson interval");
    num(&out["checked"]) as usize
}

/// Chart ids and the SQL in `tests/report_charts.sql` that counts their rows again. A chart the
/// report draws and this list lacks fails the test until its rows have SQL of their own.
const CHARTS: [&str; 17] = [
    "headline",
    "headline_by_venue",
    "threefold_by_rating_band",
    "threefold_by_time_class",
    "missed_by_rating_band",
    "missed_by_time_class",
    "threefold_by_month",
    "missed_by_month",
    "draw_mix_by_month",
    "draw_reasons",
    "repetition_draws_by_perpetual",
    "claimant_outcome",
    "claim_kinds",
    "edge_cases",
    "first_threefold_ply",
    "first_claim_by_clock",
    "first_missed_by_eval",
];

/// A chart row as compared: (chart id, label, series) -> (count, games, value, interval).
type ChartRows = BTreeMap<(String, String, String), (u64, u64, String, String)>;

/// Every row of every chart of the report (`--json`'s `figures`) equals the same row counted
/// again in SQL over the games `condition` keeps (`group`: the SQL of a game's `--by` group):
/// its count (numerator), its number of games (denominator), its value as displayed and its 95%
/// interval, both formatted here from the SQL counts (the interval scipy's Wilson interval).
/// Rows over no games (`n/a`, where a group lacks a label) are left out on both sides. Returns
/// the number of rows compared.
fn check_charts_against_sql(report: &Value, dir: &Path, condition: &str, group: Option<&str>) -> usize {
    const SCRIPT: &str = r#"
import duckdb, json, os, sys
from scipy.stats import binomtest
directory, condition, group, sql_path = sys.argv[1:5]
views = open(os.path.join(directory, "views.sql")).read()
sql = open(sql_path).read()
def rows(group):
    con = duckdb.connect()
    # A slow query would print its progress bar on stdout, before the JSON.
    con.execute("SET enable_progress_bar = false")
    if condition:
        con.execute(views.replace("VIEW games AS", "VIEW all_games AS").replace("VIEW events AS", "VIEW all_events AS"))
        con.execute("CREATE VIEW games AS SELECT * FROM all_games WHERE " + condition)
        con.execute("CREATE VIEW events AS SELECT e.* FROM all_events e SEMI JOIN games g "
                    "ON e.source = g.source AND e.frame_offset = g.frame_offset AND e.byte_offset = g.byte_offset")
    else:
        con.execute(views)
    rel = con.sql(sql.replace("GROUP_EXPR", group))
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]
def shown(r):
    n, d, unit = r["n"], r["d"], r["unit"]
    if unit == "count":
        return f"{n:,}", ""
    if d == 0:
        return "n/a", ""
    if unit == "score":
        return f"{r['score']:.3f}", ""
    scale, digits, suffix = (1000.0, 2, "") if unit == "per1000" else (100.0, 1, "%")
    ci = binomtest(n, d).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = max(ci.low, 0.0) * scale, min(ci.high, 1.0) * scale
    return f"{n / d * scale:.{digits}f}{suffix}", f"{low:.{digits}f}\u2013{high:.{digits}f}{suffix}"
out = []
for which, g in ([("groups", group), ("all", "NULL")] if group else [("all", "NULL")]):
    for r in rows(g):
        r["value"], r["interval"] = shown(r)
        r["set"] = which
        del r["score"]
        out.append(r)
print(json.dumps(out))
"#;
    let groups: Vec<&str> = report["groups"].as_array().unwrap().iter().map(|g| g["label"].as_str().unwrap()).collect();
    let mut want = ChartRows::new();
    let sql = root().join("tests/report_charts.sql");
    let args = [dir.to_str().unwrap(), condition, group.unwrap_or(""), sql.to_str().unwrap()];
    for r in run_python(SCRIPT, &args).as_array().unwrap() {
        let (n, d) = (num(&r["n"]), num(&r["d"]));
        if n == 0 && d == 0 {
            continue;
        }
        let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
        let chart = text("chart");
        let (id, series) = match (r["set"].as_str().unwrap(), chart.as_str()) {
            // The headline table of a grouped report has all games first, as series `all`.
            ("all", "headline") if group.is_some() => (chart, "all".to_owned()),
            // Over all games only, a series per venue.
            ("all", "headline_by_venue") => (chart, text("part")),
            (_, "headline_by_venue") => continue,
            ("all", _) if group.is_some() => continue,
            (_, "draw_mix_by_month") if group.is_some() => {
                let at = groups.iter().position(|g| *g == text("grp")).expect("a group of the report");
                (format!("draw_mix_by_month_{}", at + 1), text("part"))
            }
            (_, "draw_mix_by_month" | "draw_reasons") => (chart, text("part")),
            _ => (chart, text("grp")),
        };
        let row = (n, d, text("value"), text("interval"));
        assert!(want.insert((id, text("label"), series), row).is_none(), "two SQL rows for one chart row: {r}");
    }
    let mut got = ChartRows::new();
    for chart in report["figures"].as_array().unwrap() {
        let id = chart["id"].as_str().unwrap();
        // A grouped report draws one draw mix per group: `draw_mix_by_month_1`, `_2`, …
        let known =
            CHARTS.contains(&id) || id.strip_prefix("draw_mix_by_month_").is_some_and(|k| k.parse::<usize>().is_ok());
        assert!(known, "chart {id} has no SQL in this test (tests/report_charts.sql): add it");
        for row in chart["rows"].as_array().unwrap() {
            let (n, d) = (num(&row["count"]), num(&row["games"]));
            if n == 0 && d == 0 {
                continue;
            }
            let text = |k: &str| row[k].as_str().unwrap_or_default().to_owned();
            let key = (id.to_owned(), text("label"), text("series"));
            assert!(got.insert(key, (n, d, text("value"), text("interval"))).is_none(), "{id}: a row twice: {row}");
        }
    }
    let mut differ: Vec<String> = Vec::new();
    for (key, row) in &got {
        match want.get(key) {
            Some(w) if w == row => {}
            Some(w) => differ.push(format!("{key:?}: report {row:?}, SQL {w:?}")),
            None => differ.push(format!("{key:?}: report {row:?}, not in SQL")),
        }
    }
    differ.extend(
        want.iter().filter(|(k, _)| !got.contains_key(*k)).map(|(k, w)| format!("{k:?}: SQL {w:?}, not in the report")),
    );
    assert!(
        differ.is_empty(),
        "{} chart row(s) differ from SQL (condition {condition:?}, group {group:?}), the first:\n{}",
        differ.len(),
        differ.iter().take(15).cloned().collect::<Vec<_>>().join("\n")
    );
    got.len()
}

/// The report's clock figures over the games `condition` keeps, counted again in SQL: games with
/// clocks and evaluations, the first claim by clock band and whether it was passed over (the
/// report's rules), and the first missed claim by evaluation band with the claimant's results.
fn check_clocks_against_sql(report: &Value, dir: &Path, condition: &str) {
    const SQL: &str = "
        SELECT 'totals' AS what, NULL AS band, count(*) FILTER (has_clocks) AS games, count(*) FILTER (has_evals) AS n
        FROM games WHERE status <> 'skipped'
        UNION ALL
        SELECT 'clock', CASE WHEN first_claim_clock_ms < 10000 THEN '< 10 s' WHEN first_claim_clock_ms < 30000 THEN '10-30 s'
                             WHEN first_claim_clock_ms < 60000 THEN '30-60 s' WHEN first_claim_clock_ms < 180000 THEN '1-3 min'
                             ELSE '>= 3 min' END,
               count(*), count(*) FILTER (first_claim_ply IS NOT NULL AND first_missed_claim_ply = first_claim_ply)
        FROM games WHERE status <> 'skipped' AND has_clocks AND first_claim_clock_ms IS NOT NULL GROUP BY 2
        UNION ALL
        SELECT 'eval', CASE WHEN first_missed_claim_eval_mate < 0 THEN 'clearly worse' WHEN first_missed_claim_eval_mate > 0 THEN 'clearly better'
                            WHEN first_missed_claim_eval_mate = 0 THEN 'about equal'
                            WHEN first_missed_claim_eval_cp < -100 THEN 'clearly worse' WHEN first_missed_claim_eval_cp > 100 THEN 'clearly better'
                            WHEN first_missed_claim_eval_cp IS NOT NULL THEN 'about equal' ELSE 'no evaluation' END,
               count(*), count(*) FILTER (claimant_score_after_first_missed IS NOT NULL)
        FROM games WHERE status <> 'skipped' AND has_evals AND first_missed_claim_ply IS NOT NULL GROUP BY 2";
    let rows = run_sql_where(dir, condition, SQL);
    let c = &report["clocks"];
    let totals = rows.iter().find(|r| r["what"] == "totals").unwrap();
    assert_eq!((num(&c["games_with_clocks"]), num(&c["games_with_evals"])), (num(&totals["games"]), num(&totals["n"])));
    let want = |what: &str| -> BTreeMap<String, (u64, u64)> {
        rows.iter()
            .filter(|r| r["what"] == what)
            .map(|r| (r["band"].as_str().unwrap().to_owned(), (num(&r["games"]), num(&r["n"]))))
            .collect()
    };
    assert_eq!(bands(&c["first_claim_by_clock"], |b| &b["passed_over"]), want("clock"), "first claim by clock band");
    assert_eq!(
        bands(&c["first_missed_by_eval"], |b| &b["claimant"]["games"]),
        want("eval"),
        "first missed claim by evaluation band"
    );
}

/// A report's clock or evaluation bands with games, as label -> (games, the count `second` picks).
fn bands(list: &Value, second: impl Fn(&Value) -> &Value) -> BTreeMap<String, (u64, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .filter(|b| num(&b["games"]) > 0)
        .map(|b| (b["label"].as_str().unwrap().to_owned(), (num(&b["games"]), num(second(b)))))
        .collect()
}

/// The report's clock and evaluation figures: the games they cover and the first claims by clock
/// band equal the engine's records, the first missed claims by evaluation band the query's.
fn check_report_clocks(report: &Value, q: &BTreeMap<String, Vec<Value>>, e: &Engine) {
    let c = &report["clocks"];
    assert_eq!(num(&c["games_with_clocks"]), e.games_with_clocks);
    assert_eq!(num(&c["games_with_evals"]), e.games_with_evals);
    assert_eq!(
        bands(&c["first_claim_by_clock"], |b| &b["passed_over"]),
        e.first_claim_bands,
        "report: first claims by clock"
    );
    for band in c["first_missed_by_eval"].as_array().unwrap() {
        let r = row(&q["missed_claims_by_eval"], "eval_band", band["label"].as_str().unwrap());
        let o = &band["claimant"];
        assert_eq!(
            [num(&band["games"]), num(&o["wins"]), num(&o["draws"]), num(&o["losses"])],
            [&r["games_first_missed"], &r["claimant_wins"], &r["claimant_draws"], &r["claimant_losses"]].map(num),
            "report: first missed claims by evaluation"
        );
    }
}

/// Splits a terminal table line into cells (separated by two or more spaces).
fn cells(line: &str) -> Vec<String> {
    line.trim().split("  ").map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned).collect()
}

/// Every chart of the page carries the same rows as the terminal table under the same title.
fn check_html_against_text(html: &Value, text: &str) {
    assert_eq!(html["errors"], Value::Array(vec![]), "the HTML page is not well formed");
    let figures = html["figures"].as_array().unwrap();
    assert!(html["svg"].as_u64().unwrap() >= 8, "expected inline SVG charts");
    let lines: Vec<&str> = text.lines().collect();
    // Blocks: the heading, the answers, one per chart, the example games.
    assert_eq!(text.trim_end().split("\n\n").count(), figures.len() + 3, "charts in the terminal and the page");
    for figure in figures {
        let title = figure["title"].as_str().unwrap();
        let at = lines.iter().position(|l| *l == title).unwrap_or_else(|| panic!("no table {title:?} in the terminal"));
        let rows: Vec<Vec<String>> = lines[at + 3..].iter().take_while(|l| !l.is_empty()).map(|l| cells(l)).collect();
        let mut page: Vec<Vec<String>> = figure["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect())
            .collect();
        let mut rows = rows;
        if title == "Headline figures" {
            // The page splits many groups over several tables: the same cells, in another order.
            page.sort();
            rows.sort();
        }
        assert_eq!(page, rows, "{title}");
    }
}

/// Ingests `inputs`, runs every query and the report, and checks them against each other and
/// against the engine. Returns the queries' results for case-specific checks.
fn check_dataset(
    inputs: &[PathBuf],
    dumped: &[PathBuf],
    cases: &[Case],
) -> (BTreeMap<String, Vec<Value>>, Value, String) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let mut args = vec!["ingest", "--quiet", "--out", dir.to_str().unwrap()];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    run_ok(&args);

    let queries = run_queries(&dir);
    check_summary_twins(&dir, &queries);
    let engine = engine_counts(dumped);
    check_queries_against_engine(&queries, &engine);

    let report = summary_agrees_with_scan(&dir, &[], true);
    check_report_against_queries(&report, &queries);
    check_report_clocks(&report, &queries, &engine);
    assert!(check_charts_against_sql(&report, &dir, "", None) > 50, "few chart rows compared with SQL");
    // Lichess's games: venue lichess (a Lichess game in `Site`).
    let sql = "SELECT count(*) FILTER (claim_opportunities_on_board > 0) AS with_claim_on_board, \
               count(*) FILTER (missed_claims_on_board > 0) AS missed_on_board, \
               count(*) FILTER (claim_opportunities_by_move > 0) AS with_claim_by_move, \
               count(*) FILTER (missed_claims_by_move > 0) AS missed_by_move, count(*) AS games \
               FROM games WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND venue = 'lichess'";
    let rows = run_sql_where(&dir, "", sql);
    for k in ["with_claim_on_board", "missed_on_board", "with_claim_by_move", "missed_by_move", "games"] {
        assert_eq!(num(&report["lichess"][k]), num(&rows[0][k]), "Lichess's games: {k}");
    }

    let page = tmp.path().join("report.html");
    let text =
        String::from_utf8(run_ok(&["report", dir.to_str().unwrap(), "--html", page.to_str().unwrap()]).stdout).unwrap();
    check_html_against_text(&read_html(&page), &text);
    let html = std::fs::read_to_string(&page).unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    // The cases side by side: each spends most of its time waiting for DuckDB processes.
    std::thread::scope(|s| {
        for case in cases {
            s.spawn(|| check_case(&dir, case));
        }
    });
    (queries, report, html)
}

/// Each query of `queries/summary/` (the same question over the summary view) gives its twin's
/// rows in `queries/` over the games: the same values in every column the twin keeps, of the rows
/// it keeps (the splits it has; the totals row of a query that also lists the games).
fn check_summary_twins(dir: &Path, queries: &BTreeMap<String, Vec<Value>>) {
    let paths: Vec<String> = std::fs::read_dir(root().join("queries/summary"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".sql"))
        .collect();
    assert!(paths.len() >= 10, "queries/summary holds {} queries", paths.len());
    for (name, twin) in run_files_where(dir, "", &paths) {
        let original =
            queries.get(&name).unwrap_or_else(|| panic!("queries/summary/{name}.sql has no twin in queries/"));
        let Some(first) = twin.first() else {
            assert!(original.is_empty(), "queries/summary/{name}.sql: no rows, queries/{name}.sql: {original:?}");
            continue;
        };
        let columns: Vec<&String> = first.as_object().unwrap().keys().collect();
        let splits: Vec<&Value> = twin.iter().filter_map(|r| r.get("split")).collect();
        let mut expected: Vec<Value> = original
            .iter()
            .filter(|r| splits.is_empty() || splits.contains(&&r["split"]))
            .map(|r| Value::Object(columns.iter().map(|&c| (c.clone(), r[c].clone())).collect()))
            .collect();
        // A query that lists the games repeats its totals on every row: the first is the totals.
        if twin.len() == 1 && columns.iter().all(|c| c.as_str() != "split" && c.as_str() != "variant") {
            expected.truncate(1);
        }
        assert_eq!(twin, expected, "queries/summary/{name}.sql against queries/{name}.sql");
    }
}

/// A game's date in SQL, as the report and `queries/by_month.sql` define it.
const GAME_DATE: &str = "coalesce(UTCDate, CASE WHEN regexp_full_match(Date, '[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}') THEN try_strptime(Date, '%Y.%m.%d')::DATE END)";
const BOTH_ELOS: &str = "WhiteElo IS NOT NULL AND BlackElo IS NOT NULL";
const BAND: &str = "venue || ' ' || CASE WHEN WhiteElo IS NOT NULL AND BlackElo IS NOT NULL THEN format('{}-{}', (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER, (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER + 199) ELSE 'unknown' END";

/// The month a source named like a Lichess monthly dump holds (`YYYY-MM`), else null.
const DUMP_MONTH: &str = "CASE WHEN regexp_full_match(source, 'lichess_db_[A-Za-z0-9]+_rated_[0-9]{4}-(0[1-9]|1[0-2])') THEN right(source, 7) END";

/// `--by month`: the game's date's month, else its monthly dump's, else `undated`.
fn month_group() -> String {
    format!("coalesce(strftime({GAME_DATE}, '%Y-%m'), {DUMP_MONTH}, 'undated')")
}

/// `--by year`: the same, its year.
fn year_group() -> String {
    format!("coalesce(strftime({GAME_DATE}, '%Y'), left({DUMP_MONTH}, 4), 'undated')")
}

/// One run of `report` with filters and groups, and the same in SQL: `condition` keeps the games
/// the filters keep, `group` is the SQL value of a game's `--by` group.
struct Case<'a> {
    args: Vec<&'a str>,
    condition: String,
    group: Option<String>,
}

/// The report under the case's filters equals the queries over the same games; with `--by`, each
/// group's figures equal the queries over that group's games; every interval is scipy's; the
/// terminal and the page show the same rows.
fn check_case(dir: &Path, case: &Case) {
    let report = summary_agrees_with_scan(dir, &case.args, summary_answers(&case.args));
    let q = run_queries_where(dir, &case.condition);
    check_report_against_queries(&report, &q);
    check_clocks_against_sql(&report, dir, &case.condition);
    assert!(check_intervals(&report) > 10, "{:?}: few intervals checked", case.args);
    if let Some(group) = &case.group {
        let groups = report["groups"].as_array().unwrap();
        assert!(groups.len() >= 2, "{:?}: expected groups side by side, got {}", case.args, groups.len());
        // The chart rows of up to 12 groups side by side (more are laid out otherwise).
        if groups.len() <= 12 {
            check_charts_against_sql(&report, dir, &case.condition, Some(group));
        }
        let total: u64 = groups.iter().map(|g| num(&g["overall"]["games"])).sum();
        assert_eq!(total, num(&report["overall"]["games"]), "{:?}: the groups hold every game once", case.args);
        for g in groups {
            let label = g["label"].as_str().unwrap().replace('\'', "''");
            let condition = if case.condition.is_empty() {
                format!("({group}) = '{label}'")
            } else {
                format!("({}) AND ({group}) = '{label}'", case.condition)
            };
            check_report_against_queries(g, &run_queries_where(dir, &condition));
            check_clocks_against_sql(g, dir, &condition);
        }
    } else {
        assert_eq!(report["groups"], Value::Array(vec![]));
        check_charts_against_sql(&report, dir, &case.condition, None);
    }
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("report.html");
    let mut args = vec!["report", dir.to_str().unwrap(), "--html", page.to_str().unwrap()];
    args.extend(&case.args);
    let text = String::from_utf8(run_ok(&args).stdout).unwrap();
    check_html_against_text(&read_html(&page), &text);
    assert!(text.contains(&format!("Filter: {}", report["filter_text"].as_str().unwrap())), "the filter is shown");
}

#[test]
fn data_samples() {
    let samples = root().join("data-samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    // chess.com's claims by a button, then by its server, beside the Laws' (tests/oracle/rules).
    let claimant = root().join("tests/oracle/rules/x_claimant.pgn");
    files.push(claimant.clone());
    let tmp = tempfile::tempdir().unwrap();
    let collections = tmp.path().join("collections.csv");
    std::fs::write(&collections, "# online games\nlichess*,online\n*,over the board and engines\n").unwrap();
    let cases = [
        Case { args: vec!["--by", "source"], condition: String::new(), group: Some("source".into()) },
        Case {
            args: vec!["--by", "collection", "--collections", collections.to_str().unwrap()],
            condition: String::new(),
            group: Some("CASE WHEN source GLOB 'lichess*' THEN 'online' ELSE 'over the board and engines' END".into()),
        },
        // Standard and Chess960 (the TCEC game).
        Case { args: vec!["--by", "variant"], condition: String::new(), group: Some("replay_variant".into()) },
        // OTB (Karpov–Miles), Lichess and engine play (the TCEC game).
        Case { args: vec!["--by", "venue"], condition: String::new(), group: Some("venue".into()) },
        // Lichess's games alone, by year: its rules changed over the years.
        Case {
            args: vec!["--venue", "lichess", "--by", "year"],
            condition: "venue = 'lichess'".into(),
            group: Some(year_group()),
        },
        // Other servers: chess.com's two rules and the Laws.
        Case {
            args: vec!["--venue", "online", "--by", "year"],
            condition: "venue = 'online'".into(),
            group: Some(year_group()),
        },
    ];
    let (queries, report, html) = check_dataset(&[samples, claimant], &files, &cases);
    // The program's claims are left out and counted apart: the TCEC game's, and chess.com's
    // server's threefold of 2020 (its 2019 games' claims are the players').
    assert_eq!(report["left_out_with_claim"], 2);

    // Karpov–Miles, Tilburg 1986, round 13: the board thrice, the position only twice.
    let karpov = queries["castling_rights_edge_cases"]
        .iter()
        .find(|r| r["White"] == "Karpov, Anatoly" && r["Round"] == "13")
        .expect("Karpov–Miles round 13 among the castling cases");
    assert_eq!(karpov["would_be_claim"], true);
    assert_eq!(num(&karpov["max_board_occurrence"]), 3);
    let example = report["examples"].as_array().unwrap().iter().find(|e| e["case"] == "castling").unwrap();
    assert_eq!((&example["white"], &example["round"]), (&Value::from("Karpov, Anatoly"), &Value::from("13")));
    assert!(html.contains("Karpov, Anatoly"));
    // The samples hold threefold draws by a perpetual check of either side and by a shuffle.
    let kinds: Vec<&Value> =
        queries["repetition_kinds"].iter().filter(|r| r["split"] == "all").map(|r| &r["perpetual"]).collect();
    assert_eq!(kinds, ["white", "black", "none"]);
}

#[test]
fn larger_corpus() {
    let Some(corpus) = common::corpus("queries and report on the corpus's Lichess, OTB and variant files") else {
        return;
    };
    let files = [
        corpus.join("lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst"),
        // Clocks after every move (and an evaluation in some games).
        corpus.join("lichess/lichess-2021-10-01-clocks-sample.pgn"),
        corpus.join("otb/world-championship-matches.pgn"),
        // Lichess variants (replayed): atomic, crazyhouse with drops.
        corpus.join("variants/atomic.pgn"),
        corpus.join("variants/zh.pgn"),
        // Sittuyin games are skipped (left out of every rate); a bad move makes an `error` game.
        corpus.join("variants/sittuyin.pgn"),
        corpus.join("edge/chessalyzer-bad-san-mid-file.pgn"),
    ];
    let cases = [
        Case {
            args: vec!["--source", "lichess*", "--time-class", "blitz", "--time-class", "bullet", "--min-elo", "1500"],
            condition: format!(
                "source GLOB 'lichess*' AND coalesce(time_class, 'unknown') IN ('blitz', 'bullet') AND {BOTH_ELOS} AND least(WhiteElo, BlackElo) >= 1500"
            ),
            group: None,
        },
        Case {
            args: vec!["--since", "1900", "--until", "2013-01-15", "--max-elo", "2000", "--by", "time-class"],
            condition: format!(
                "{GAME_DATE} BETWEEN DATE '1900-01-01' AND DATE '2013-01-15' AND {BOTH_ELOS} AND least(WhiteElo, BlackElo) <= 2000"
            ),
            group: Some("coalesce(time_class, 'unknown')".into()),
        },
        // Whole months and bands of 100: the summary answers.
        Case {
            args: vec![
                "--since",
                "2013-01",
                "--until",
                "2021-10",
                "--min-elo",
                "1500",
                "--max-elo",
                "1999",
                "--by",
                "time-class",
            ],
            condition: format!(
                "{GAME_DATE} BETWEEN DATE '2013-01-01' AND DATE '2021-10-31' AND {BOTH_ELOS} AND least(WhiteElo, BlackElo) BETWEEN 1500 AND 1999"
            ),
            group: Some("coalesce(time_class, 'unknown')".into()),
        },
        Case {
            args: vec!["--by", "source", "--min-games", "100"],
            condition: String::new(),
            group: Some("source".into()),
        },
        Case {
            args: vec!["--by", "rating-band", "--source", "lichess_db*", "--since", "2013-01-01"],
            condition: format!("source GLOB 'lichess_db*' AND {GAME_DATE} >= DATE '2013-01-01'"),
            group: Some(BAND.into()),
        },
        // Standard, atomic and crazyhouse games side by side.
        Case { args: vec!["--by", "variant"], condition: String::new(), group: Some("replay_variant".into()) },
        // Every venue: TCEC is engine play, a broadcast's games are OTB.
        Case { args: vec!["--by", "venue"], condition: String::new(), group: Some("venue".into()) },
        // Lichess's games alone, by year: its rules changed over the years.
        Case {
            args: vec!["--venue", "lichess", "--by", "year"],
            condition: "venue = 'lichess'".into(),
            group: Some(year_group()),
        },
        // Lichess months, the world championships' two dated games, and `undated`.
        Case { args: vec!["--by", "year"], condition: String::new(), group: Some(year_group()) },
        Case { args: vec!["--by", "month", "--sort", "value"], condition: String::new(), group: Some(month_group()) },
    ];
    let (queries, report, html) = check_dataset(&files, &files, &cases);
    assert!(num(&report["overall"]["games"]) > 6000);
    assert_eq!(report["skipped"], 3);
    // The broadcast's header-only games have no move: counted apart, in no figure.
    assert!(num(&report["no_moves"]) > 0);
    assert_eq!(num(&report["rows"]), num(&report["overall"]["games"]) + 3 + num(&report["no_moves"]));
    let variants: BTreeMap<&str, u64> = queries["repetition_by_variant"]
        .iter()
        .map(|r| (r["variant"].as_str().unwrap(), num(&r["games"]) + num(&r["skipped"])))
        .collect();
    // Three of the 83 crazyhouse games have no move: in no figure.
    assert_eq!((variants["atomic"], variants["crazyhouse"]), (10, 80), "{variants:?}");
    // Lichess games have a time class and ratings; the OTB match games have neither time control
    // nor (before 1970) Elo: they go to 'unknown'.
    let classes: Vec<&Value> = report["by_time_class"].as_array().unwrap().iter().map(|g| &g["label"]).collect();
    assert!(classes.contains(&&Value::from("blitz")) && classes.contains(&&Value::from("unknown")));
    assert!(queries["missed_claims"].iter().any(|r| r["rating_band"] == "otb unknown"));
    // A rating band names its pool (the venue): Lichess's and FIDE's ratings are not pooled.
    let pools: BTreeSet<&str> = report["by_rating_band"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["label"].as_str().unwrap().split_once(' ').expect("VENUE BAND").0)
        .collect();
    assert!(pools.contains("lichess") && pools.contains("otb"), "{pools:?}");
    // Lichess Site tags become links in the example table.
    assert!(html.contains("<a href=\"https://lichess.org/"));
    // The clocks sample's opportunities are there, in more than one clock band.
    let banded =
        queries["missed_claims_by_clock"].iter().filter(|r| r["split"] == "all" && num(&r["opportunities"]) > 0);
    assert!(banded.count() >= 3, "{:?}", queries["missed_claims_by_clock"]);
    // The slice's evaluated games are engine play (TCEC), whose claims every missed-claim figure
    // leaves out: they are counted as evaluated, and offer no claim there.
    assert!(num(&report["clocks"]["games_with_evals"]) > 0);
    assert!(queries["missed_claims_by_eval"].iter().all(|r| r["opportunities"].as_u64().unwrap_or(0) == 0));
    assert!(num(&report["clocks"]["games_with_clocks"]) > 900, "the clocks sample's games have clocks");
}

/// A dataset written before the summary existed (a partition without its `summary` folder)
/// still reports, reading every game, and names the sources that ingesting again would speed
/// up; a report that needs none of them answers from the summary. The next `ingest` of the same
/// inputs writes the missing summary (such a partition is not up to date) and nothing else.
#[test]
fn a_dataset_without_summaries_reports_from_the_games_and_names_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let samples = root().join("data-samples");
    run_ok(&["ingest", "--quiet", "--out", dir.to_str().unwrap(), samples.to_str().unwrap()]);
    let by_source = ["--by", "source"];
    let before = summary_agrees_with_scan(&dir, &by_source, true);
    let karpov = "karpov_miles_tilburg_1986";
    let games = |d: &Path| std::fs::read(d.join(format!("games/source={karpov}/part-00000.parquet"))).unwrap();
    let karpov_games = games(&dir);
    std::fs::remove_dir_all(dir.join(format!("summary/source={karpov}"))).unwrap();

    let old = run_ok(&["report", dir.to_str().unwrap(), "--json", "--by", "source"]);
    let said = String::from_utf8_lossy(&old.stderr);
    let lines: Vec<&str> = said.lines().filter(|l| l.starts_with(READS_GAMES)).collect();
    assert_eq!(lines.len(), 1, "{said}");
    assert!(lines[0].contains(karpov) && !lines[0].contains("lichess_db"), "{said}");
    assert_eq!(serde_json::from_slice::<Value>(&old.stdout).unwrap(), before, "the same report, from the games");
    // The Lichess source has its summary: a report over it alone needs no game.
    summary_agrees_with_scan(&dir, &["--source", "lichess*"], true);

    let again = run_ok(&["ingest", "--out", dir.to_str().unwrap(), samples.to_str().unwrap()]);
    assert!(dir.join(format!("summary/source={karpov}/part-00000.parquet")).is_file(), "the summary is written");
    assert_eq!(games(&dir), karpov_games, "the games are the same bytes");
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("1 ingested, 2 up to date"), "only that source is ingested again: {said}");
    assert_eq!(summary_agrees_with_scan(&dir, &by_source, true), before);
}

#[test]
fn a_filter_that_matches_no_game_gives_an_empty_report_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    run_ok(&["ingest", "--quiet", "--out", dir.to_str().unwrap(), root().join("data-samples").to_str().unwrap()]);
    let out = run_ok(&["report", dir.to_str().unwrap(), "--source", "no-such-source*", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((num(&report["matched"]), num(&report["overall"]["games"])), (0, 0));
    assert_eq!(num(&report["rows"]), 303, "rows count the whole dataset");
    let text = String::from_utf8(run_ok(&["report", dir.to_str().unwrap(), "--until", "1900"]).stdout).unwrap();
    assert!(text.contains("No replayed game matches"), "{text}");
    // Filters that cannot be right are refused before any work, with the usage exit code.
    for args in [
        &["--time-class", "fast"][..],
        &["--since", "2021-13"],
        &["--since", "2022", "--until", "2021"],
        &["--min-elo", "2000", "--max-elo", "1000"],
        &["--by", "collection"],
        &["--collections", "x.csv"],
    ] {
        let mut all = vec!["report", dir.to_str().unwrap()];
        all.extend(args);
        let out = Command::new(common::bin()).args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}: printed a report");
    }
}

/// A part whose events are not its games' (here another source's) is an error, not figures over
/// whatever happens to match. (A report from the summary, counted at ingest from each game with
/// its events, reads neither table: reading them is `--scan`'s.)
#[test]
fn regression_events_of_games_not_in_the_games_table_fail_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    run_ok(&["ingest", "--quiet", "--out", dir.to_str().unwrap(), root().join("data-samples").to_str().unwrap()]);
    let events = dir.join("events");
    std::fs::copy(
        events.join("source=lichess_db_standard_rated_2013-01-first300/part-00000.parquet"),
        events.join("source=karpov_miles_tilburg_1986/part-00000.parquet"),
    )
    .unwrap();
    let out = Command::new(common::bin()).args(["report", dir.to_str().unwrap(), "--scan"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("not in the games table"), "{said}");
}

#[test]
fn every_query_says_what_it_asks_and_how_to_run_it() {
    for q in QUERIES {
        let text = std::fs::read_to_string(root().join(format!("queries/{q}.sql"))).unwrap();
        assert!(text.starts_with("-- Question:"), "{q}");
        assert!(text.contains("-- Columns:"), "{q}");
        assert!(text.contains(&format!("duckdb -init DIR/views.sql -c \".read queries/{q}.sql\"")), "{q}");
        assert!(text.contains(&format!("python -c \"import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/{q}.sql').read()))\"")), "{q}");
        let twin = root().join(format!("queries/summary/{q}.sql"));
        if let Ok(text) = std::fs::read_to_string(&twin) {
            assert!(text.starts_with(&format!("-- Question: the same as queries/{q}.sql")), "{}", twin.display());
            assert!(text.contains(&format!("duckdb -init DIR/views.sql -c \".read queries/summary/{q}.sql\"")), "{q}");
        }
    }
}

#[test]
fn report_refuses_a_directory_that_is_not_a_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(common::bin()).args(["report", tmp.path().to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threefold dataset"));
}

/// A dataset moved elsewhere opens again once `threefold views` has written its views for the
/// new place (DuckDB reads the views' paths from its working directory, not from the file);
/// `views --print` gives the same views and writes nothing.
#[test]
fn a_moved_dataset_opens_after_threefold_views() {
    const COUNT: &str = r#"
import duckdb, json, os, sys
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")  # nothing but the result on stdout
con.execute(open(os.path.join(sys.argv[1], "views.sql")).read())
print(json.dumps([con.sql(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in ("games", "events")]))
"#;
    let tmp = tempfile::tempdir().unwrap();
    let (first, moved) = (tmp.path().join("first"), tmp.path().join("elsewhere/moved"));
    let sample = root().join("data-samples/karpov_miles_tilburg_1986.pgn");
    run_ok(&["ingest", "--quiet", sample.to_str().unwrap(), "--out", first.to_str().unwrap()]);
    let counts = run_python(COUNT, &[first.to_str().unwrap()]);
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&first, &moved).unwrap();
    let old = std::fs::read(moved.join("views.sql")).unwrap();
    let printed = run_ok(&["views", moved.to_str().unwrap(), "--print"]).stdout;
    assert_eq!(std::fs::read(moved.join("views.sql")).unwrap(), old, "--print wrote views.sql");
    assert_ne!(printed, old);
    run_ok(&["views", moved.to_str().unwrap()]);
    assert_eq!(std::fs::read(moved.join("views.sql")).unwrap(), printed);
    assert_eq!(run_python(COUNT, &[moved.to_str().unwrap()]), counts);
    assert_eq!(counts[0], 2);
}

/// `--by month` and `--by year` against DuckDB where a source is named like a Lichess monthly
/// dump: its games without a date (Karpov–Miles, `1986.??.??`) are in the dump's month.
#[test]
fn groups_by_month_and_year_take_an_undated_game_s_month_from_its_monthly_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let samples = root().join("data-samples");
    run_ok(&["ingest", "--quiet", "--out", dir.to_str().unwrap(), samples.to_str().unwrap()]);
    let karpov = samples.join("karpov_miles_tilburg_1986.pgn");
    let dump = "lichess_db_standard_rated_1986-11";
    run_ok(&["ingest", "--quiet", "--out", dir.to_str().unwrap(), karpov.to_str().unwrap(), "--source", dump]);
    let cases = [
        Case { args: vec!["--by", "month"], condition: String::new(), group: Some(month_group()) },
        Case { args: vec!["--by", "year", "--source", "*"], condition: String::new(), group: Some(year_group()) },
    ];
    for case in &cases {
        check_case(&dir, case);
    }
    let report: Value =
        serde_json::from_slice(&run_ok(&["report", dir.to_str().unwrap(), "--by", "month", "--json"]).stdout).unwrap();
    let labels: Vec<&str> = report["groups"].as_array().unwrap().iter().map(|g| g["label"].as_str().unwrap()).collect();
    assert_eq!(labels.first(), Some(&"1986-11"), "{labels:?}");
    assert_eq!(labels.last(), Some(&"undated"), "the other copy of Karpov–Miles has no date: {labels:?}");
    let karpov = &report["groups"][0]["overall"]["games"];
    assert_eq!(karpov, 2, "both games of the dump-named source are in its month");
    // --sort orders the groups of --by; anything else is refused before any work.
    for args in [&["--sort", "value"][..], &["--by", "month", "--sort", "size"]] {
        let mut all = vec!["report", dir.to_str().unwrap()];
        all.extend(args);
        let out = Command::new(common::bin()).args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}: printed a report");
    }
}

/// 150 monthly sources (`bench/many_sources.sh`: the Lichess 2013 sample cut into 150 files
/// named like the dumps): `--by source` stays readable — at most 600 terminal lines, the groups
/// as rows, every group's figures in the JSON and on the page — and the same at any --threads.
#[test]
fn many_groups_as_rows() {
    let Some(corpus) = common::corpus("the report over 150 monthly sources") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root().join("bench/many_sources.sh"))
        .arg(tmp.path())
        .env("THREEFOLD", common::bin())
        .env("THREEFOLD_CORPUS", &corpus)
        .output()
        .unwrap();
    assert!(out.status.success(), "bench/many_sources.sh: {}", String::from_utf8_lossy(&out.stderr));
    let dir = tmp.path().join("dataset");
    let dir = dir.to_str().unwrap();
    let page = tmp.path().join("report.html");
    let text =
        String::from_utf8(run_ok(&["report", dir, "--by", "source", "--html", page.to_str().unwrap()]).stdout).unwrap();
    let lines = text.lines().count();
    assert!(lines <= 600, "{lines} terminal lines for 150 sources");
    check_html_against_text(&read_html(&page), &text);
    let html = std::fs::metadata(&page).unwrap().len();
    assert!(html <= 2_000_000, "a page of {html} bytes for 150 sources");

    let json = |args: &[&str]| -> Value {
        let mut all = vec!["report", dir, "--by", "source", "--json"];
        all.extend(args);
        serde_json::from_slice(&run_ok(&all).stdout).unwrap()
    };
    let report = json(&["--threads", "1"]);
    assert_eq!(report, json(&["--threads", "2"]), "the report depends on the number of threads");
    let labels: Vec<&str> = report["groups"].as_array().unwrap().iter().map(|g| g["label"].as_str().unwrap()).collect();
    assert_eq!(labels.len(), 150);
    assert_eq!((labels[0], labels[149]), ("lichess_db_standard_rated_2013-01", "lichess_db_standard_rated_2025-06"));
    let total: u64 = report["groups"].as_array().unwrap().iter().map(|g| num(&g["overall"]["games"])).sum();
    assert_eq!(total, num(&report["overall"]["games"]));
    for chart in report["figures"].as_array().unwrap() {
        let id = chart["id"].as_str().unwrap();
        let rows = if chart["kind"] == "dots" { &chart["rows"] } else { &chart["by_group"] };
        let Some(rows) = rows.as_array() else {
            assert_eq!(chart["kind"], "area", "{id}: no group's rows");
            continue;
        };
        let key = if chart["kind"] == "dots" { "label" } else { "series" };
        let mut seen: Vec<&str> = rows.iter().map(|r| r[key].as_str().unwrap()).collect();
        seen.dedup();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, labels, "{id}: every group");
    }
    // Groups as rows: one per group, each rate with its interval; no chart side by side.
    let dots: Vec<&Value> = report["figures"].as_array().unwrap().iter().filter(|c| c["kind"] == "dots").collect();
    assert_eq!(dots.len(), 2);
    for chart in report["figures"].as_array().unwrap() {
        let series = chart["series"].as_array().unwrap();
        assert!(series.iter().all(|s| !labels.contains(&s.as_str().unwrap())), "{}: groups side by side", chart["id"]);
    }
    // The answers name the extremes and the spread, not every source.
    let answers = text.split("\n\n").nth(1).unwrap();
    assert!(answers.contains("highest") && answers.contains("of 150 sources between"), "{answers}");
    let named = labels.iter().filter(|l| answers.contains(*l)).count();
    assert!(named <= 6, "{named} sources named in the answers");

    // --sort value: each chart of groups as rows highest first.
    let sorted = json(&["--sort", "value"]);
    for chart in sorted["figures"].as_array().unwrap().iter().filter(|c| c["kind"] == "dots") {
        let values: Vec<f64> =
            chart["rows"].as_array().unwrap().iter().map(|r| r["magnitude"].as_f64().unwrap_or(-1.0)).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{}: not highest first", chart["id"]);
    }
}

/// The summary against `--scan` over every file of the corpus in one dataset (about 416,000
/// games of 72 sources, some of several parts): the same JSON, figure by figure, for the plain
/// report, every grouping, and filters the summary answers.
#[test]
fn the_whole_corpus_reports_the_same_from_the_summary_and_the_games() {
    let Some(corpus) = common::corpus("summary against --scan over the whole corpus") else { return };
    let mut files: Vec<PathBuf> = walk(&corpus).into_iter().filter(|p| !p.to_string_lossy().ends_with(".md")).collect();
    files.sort();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    // Parts of 100,000 games: the large collections are merged from several parts' summaries.
    let mut args = vec!["ingest", "--quiet", "--part-games", "100000", "--out", dir.to_str().unwrap()];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    // Files that break naive parsers fail alone (exit 1): the rest is committed.
    let out = Command::new(common::bin()).args(&args).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    let cases: [&[&str]; 11] = [
        &[],
        &["--by", "source"],
        &["--by", "venue"],
        &["--venue", "lichess", "--venue", "online", "--by", "year"],
        &["--by", "month"],
        &["--by", "year"],
        &["--by", "variant"],
        &["--by", "time-class"],
        &["--by", "rating-band", "--sort", "value"],
        &["--source", "lichess*", "--since", "2013", "--until", "2021-12", "--min-elo", "1500", "--max-elo", "2199"],
        &["--source", "*pgnmentor*", "--source", "tcec*", "--by", "source"],
    ];
    let reports: Vec<Value> = std::thread::scope(|s| {
        let runs: Vec<_> = cases.iter().map(|&args| s.spawn(|| summary_agrees_with_scan(&dir, args, true))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert!(num(&reports[0]["rows"]) > 400_000, "{}", reports[0]["rows"]);
    assert!(reports[1]["groups"].as_array().unwrap().len() > 60, "the corpus's sources");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}
