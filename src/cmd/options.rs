//! The options of `ingest` and `report` as the command line takes them, and how they become
//! the library's options: checked and packed once, here.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use crate::{ingest, read::chunk, report};

/// `threefold ingest`'s arguments ([`super::Command::Ingest`]).
#[derive(Args)]
pub struct IngestArgs {
    /// PGN files (plain, .zst, .bz2, .gz; detected from their bytes), Parquet files of games
    /// (a `movetext` column, tags as columns: Lichess's Hugging Face layout; a month folder's
    /// files are one input), directories (searched recursively for .pgn, .pgn.zst,
    /// .pgn.bz2, .pgn.gz, .parquet), or - for stdin.
    #[arg(required_unless_present = "finish")]
    pub inputs: Vec<PathBuf>,
    /// Dataset directory: new, empty, or an earlier threefold dataset.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Partition name for the (single) input; default: its file name without extensions
    /// (Parquet: DATASET@YYYY-MM for a month folder, NAME@parquet otherwise).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// Replay threads; default: all cores.
    ///
    /// Reading (decompressing, splitting) and writing run on threads of their own beside the
    /// replay threads, so `--threads 1` keeps more than one core busy (on a slow-to-decompress
    /// file, nearly two); to hold a run to given cores, start it with `taskset`.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar, log lines or summary on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Ingest every input, also those found up to date.
    #[arg(long)]
    pub force: bool,
    /// Check each input's SHA-256 (computed while it is read) against FILE, in `sha256sum`'s
    /// format as Lichess publishes it (`<hex>  <file name>`); a mismatch fails that input.
    #[arg(long, value_name = "FILE")]
    pub verify_sha256: Option<PathBuf>,
    /// Process shard K of N (K from 0): pzstd frames and plain-text bytes m·K/N to m·(K+1)/N
    /// of each input (cut at game starts), and every N-th input that is one compressed
    /// stream. Each shard stages its share; the last one complete commits the source.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::ingest::shard::Shard>,
    /// Commit every sharded source in DIR whose shards are all complete, and list those that
    /// are not (exit status 1); takes no inputs. For the job that runs after a cluster's
    /// shards (whose last one normally commits already).
    #[arg(long)]
    pub finish: bool,
    /// The venue of every game of the inputs (otb, lichess, online, engine, unknown), instead
    /// of what each game's tags say: the venue decides which rules the report applies
    /// (docs/events.md, "Venue and time class"). Recorded in the manifest; a run with
    /// another venue reads the inputs again.
    #[arg(long, value_name = "VENUE")]
    pub venue: Option<crate::pgn::venue::Venue>,
    /// Games per part file of a partition: a killed run's next run resumes after the last
    /// complete part (testing; the default suits any machine).
    #[arg(long, hide = true, default_value_t = crate::dataset::partition::PART_GAMES)]
    pub part_games: u64,
    /// Target size of the chunks of games handed to the threads (testing).
    #[arg(long, hide = true, default_value_t = chunk::CHUNK_BYTES)]
    pub chunk_bytes: usize,
}

impl From<IngestArgs> for ingest::Options {
    fn from(a: IngestArgs) -> ingest::Options {
        ingest::Options {
            inputs: a.inputs,
            out: a.out,
            source: a.source,
            threads: a.threads,
            quiet: a.quiet,
            chunk_bytes: a.chunk_bytes,
            part_games: a.part_games,
            force: a.force,
            verify_sha256: a.verify_sha256,
            shard: a.shard,
            finish: a.finish,
            venue: a.venue,
        }
    }
}

/// `threefold report`'s arguments ([`super::Command::Report`]).
#[derive(Args)]
pub struct ReportArgs {
    /// Dataset directory written by `threefold ingest`.
    pub dir: PathBuf,
    /// Only sources matching GLOB (repeatable: any of them), e.g. 'lichess_db_*'.
    #[arg(long = "source", value_name = "GLOB")]
    pub sources: Vec<String>,
    /// Only games dated on or after DATE (YYYY-MM-DD, YYYY-MM or YYYY); undated games drop out.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only games dated on or before DATE (YYYY-MM-DD; YYYY-MM or YYYY to its end).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Only games of this time class (repeatable): ultrabullet, bullet, blitz, rapid,
    /// classical, correspondence, unknown.
    #[arg(long = "time-class", value_name = "CLASS")]
    pub time_classes: Vec<String>,
    /// Only games played at this venue (repeatable): otb, lichess, online, engine, unknown.
    /// Their rules differ (docs/events.md, "The rules in force").
    #[arg(long = "venue", value_name = "VENUE")]
    pub venues: Vec<String>,
    /// Only games whose lower Elo is at least N (games without both Elos drop out).
    #[arg(long, value_name = "N")]
    pub min_elo: Option<i32>,
    /// Only games whose lower Elo is at most N (games without both Elos drop out).
    #[arg(long, value_name = "N")]
    pub max_elo: Option<i32>,
    /// Put groups side by side in every table and chart.
    #[arg(long, value_enum, value_name = "GROUPING")]
    pub by: Option<crate::report::group::ByKind>,
    /// For --by collection: a file of GLOB,COLLECTION lines naming each source's collection
    /// (first match wins; other sources are in `other`).
    #[arg(long, value_name = "FILE")]
    pub collections: Option<PathBuf>,
    /// With --by, the order of groups shown as rows: `name` (the grouping's own order: years
    /// and months in time, monthly dumps by their month) or `value` (highest first).
    #[arg(long, value_enum, value_name = "ORDER")]
    pub sort: Option<crate::report::group::Sort>,
    /// Rates over fewer games than this are greyed and marked "few games".
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub min_games: u64,
    /// Also write a self-contained HTML page with SVG charts to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print the computed figures as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Parquet parts read at once; default: all cores. The report is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Read every game even where the summary ingest wrote could answer (whole months,
    /// bands of 100 Elo): the same figures, slower; for checking.
    #[arg(long)]
    pub scan: bool,
    /// Count each game once: the same game (same fingerprint) in two sources, or twice in
    /// one, counts as the first by source and key; says how many copies were left out. Reads
    /// the games twice and holds 16 bytes per selected game.
    #[arg(long)]
    pub dedup: bool,
}

impl TryFrom<ReportArgs> for report::Options {
    type Error = anyhow::Error;

    /// The filter and the grouping checked: a bad date, glob or collections file, or `--sort`
    /// or `--collections` without the `--by` they are for, is a usage error before any work.
    fn try_from(a: ReportArgs) -> Result<report::Options> {
        let filter = report::filter::Filter::new(
            a.sources,
            a.since.as_deref(),
            a.until.as_deref(),
            a.time_classes,
            a.venues,
            a.min_elo,
            a.max_elo,
        )?;
        let mut by = a.by.map(|kind| report::group::By::new(kind, a.collections.as_deref())).transpose()?;
        if by.is_none() && a.collections.is_some() {
            bail!("--collections is for --by collection");
        }
        match (&mut by, a.sort) {
            (Some(by), Some(sort)) => by.sort = sort,
            (None, Some(_)) => bail!("--sort orders the groups of --by: give --by too"),
            _ => {}
        }
        Ok(report::Options {
            filter,
            by,
            min_games: a.min_games,
            html: a.html,
            json: a.json,
            threads: a.threads.map(usize::from),
            scan: a.scan,
            dedup: a.dedup,
            example_page: Some(crate::explain::page_of_dataset_game),
        })
    }
}
