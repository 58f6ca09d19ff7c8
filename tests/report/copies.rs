//! Copies: the same file ingested under two source names. `report --dedup` gives the figures of
//! one copy and names the copies it left out; the estimate on the first lines is close; the
//! `games_unique` view has one row per fingerprint.

use crate::common::{python_with, run_ok, s, sample};

/// The report's JSON without the fields that name the dataset or count all its rows.
fn figures(mut json: serde_json::Value) -> serde_json::Value {
    let o = json.as_object_mut().unwrap();
    for field in ["dataset", "rows", "copies"] {
        o.remove(field);
    }
    json
}

fn report(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["report", s(dir), "--json"];
    all.extend_from_slice(args);
    serde_json::from_slice(&run_ok(&all).stdout).unwrap()
}

#[test]
fn dedup_counts_a_file_under_two_sources_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let pgn = sample("lichess_db_standard_rated_2013-01-first300.pgn");
    run_ok(&["ingest", s(&pgn), "--out", s(&one), "--source", "A"]);
    for name in ["A", "B"] {
        run_ok(&["ingest", s(&pgn), "--out", s(&two), "--source", name]);
    }
    let single = report(&one, &["--dedup"]);
    for threads in ["1", "4"] {
        let double = report(&two, &["--dedup", "--threads", threads]);
        assert_eq!(figures(double.clone()), figures(single.clone()), "--threads {threads}");
        let left_out = &double["copies"]["left_out"];
        assert_eq!(left_out["copies"], 300);
        assert_eq!(left_out["by_source"][0]["source"], "B");
        assert_eq!(left_out["by_source"][0]["of_sources"], serde_json::json!(["A"]));
    }
    assert_eq!(single["copies"]["left_out"]["copies"], 0);

    // The estimate, from the summary and from the games: 300 copies of 600, within a few %.
    for args in [&[][..], &["--scan"]] {
        let r = report(&two, args);
        assert_eq!(r["copies"]["games"], 600);
        let copies = r["copies"]["copies_estimate"].as_u64().unwrap();
        assert!(copies.abs_diff(300) <= 9, "{args:?}: {copies}");
    }
    let text = String::from_utf8(run_ok(&["report", s(&two)]).stdout).unwrap();
    let first: String = text.lines().take(6).collect::<Vec<_>>().join(" ");
    assert!(first.contains("are copies of another game in the selection"), "{text}");
    let text = String::from_utf8(run_ok(&["report", s(&two), "--dedup"]).stdout).unwrap();
    assert!(text.contains("left out 300 copies: 300 of source B (copies of games in A)"), "{text}");

    let Some(python) = python_with(&["duckdb"], "games_unique") else { return };
    let script = "import duckdb, sys\nc = duckdb.connect()\nc.execute(open(sys.argv[1] + '/views.sql').read())\n\
        print(c.sql('SELECT count(*), count(DISTINCT fingerprint), min(source), max(source) FROM games_unique').fetchall()[0])";
    let out = std::process::Command::new(python).args(["-c", script, s(&two)]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "(300, 300, 'A', 'A')");
}
