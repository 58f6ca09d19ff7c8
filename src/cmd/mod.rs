//! Command line: arguments parsed into a validated command, errors mapped to exit codes.

pub mod board_svg;
pub mod dump;
pub mod explain;
pub mod explain_page;
pub mod locate;
pub mod words;

use std::{
    io,
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::{ingest, read::chunk, read::input};

#[derive(Parser)]
#[command(
    name = "threefold",
    version,
    about = "Find every repetition of a position under the FIDE Laws (Art. 9.2, 9.6) in PGN collections"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each game's events and summary as one JSON object per line.
    ///
    /// Example: threefold dump games.pgn.zst --limit 100 > games.jsonl
    Dump {
        /// PGN file (plain, .zst, .bz2 or .gz; detected from its bytes), or - for stdin (PGN only); or
        /// a .parquet file or folder of them (Lichess's Parquet: one game per row).
        file: PathBuf,
        /// Stop after this many games.
        #[arg(long)]
        limit: Option<u64>,
    },
    /// Print a readable timeline of one game's repetition events.
    ///
    /// A game is named as the dataset names it: by its key, the tables' `byte_offset` (or
    /// `frame_offset:byte_offset` when frame_offset is not 0), as `threefold report` prints it
    /// after `@`. In a dataset folder, --source names the input (through the manifest).
    ///
    /// Examples:
    ///   threefold explain karpov_miles_tilburg_1986.pgn --game 1021
    ///   threefold explain dataset --source lichess_db_standard_rated_2024-01 --game 8388620:51233
    ///   threefold explain karpov_miles_tilburg_1986.pgn --game 1021 --html km.html --svg km-boards
    #[command(verbatim_doc_comment)]
    Explain {
        /// PGN file, Parquet file or month folder of games, a dataset folder, or - for stdin.
        file: PathBuf,
        /// The game's key: BYTE or FRAME:BYTE (Parquet: ROW or ROW_GROUP:ROW); default: the first game.
        #[arg(long, value_name = "KEY", value_parser = crate::read::key::GameKey::parse)]
        game: Option<crate::read::key::GameKey>,
        /// The dataset's source the game is in (when FILE is a dataset folder of several).
        #[arg(long, value_name = "NAME")]
        source: Option<String>,
        /// Also write a self-contained HTML page to FILE (atomically): each event's position and
        /// its earlier occurrences as boards, what differs marked.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Also write every board of that page as an SVG file of its own into DIR
        /// (ply-046-event-03.svg: ply, then event number).
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
    },
    /// Turn PGN collections into a Parquet dataset of games and repetition events.
    ///
    /// Writes DIR/games/source=<name>/part-NNNNN.parquet, DIR/events/source=<name>/part-NNNNN.parquet,
    /// DIR/views.sql (DuckDB views) and DIR/_manifest.json. An input whose partition is complete
    /// and whose file is unchanged is skipped (up to date; --force ingests it anyway); a new or
    /// changed one replaces its source's partition as a whole; a killed run's rerun resumes after
    /// the last complete part; a source another run is writing is skipped. Exit status 1 when an
    /// input could not be read to its end or failed --verify-sha256 (see the manifest); 2 on a
    /// usage error or an output error (disk full, ...), which stops the run.
    ///
    /// With --shard K/N, N runs (on N machines sharing DIR, or one after another) each process
    /// a deterministic 1/N of every input and together write the dataset one run would; the
    /// last shard to finish commits each source (--finish does what a killed one left undone).
    ///
    /// Examples:
    ///   threefold ingest lichess_db_standard_rated_2024-01.pgn.zst --out dataset
    ///   threefold ingest data-samples/ --out dataset --threads 4
    ///   threefold ingest /data/lichess --out dataset --shard 2/8   (the third of eight)
    ///   threefold ingest --out dataset --finish
    ///   zstdcat x.pgn.zst | threefold ingest - --out dataset --source 2024-01
    ///   duckdb -c ".read dataset/views.sql" -c "SELECT count(*) FROM games"
    #[command(verbatim_doc_comment)]
    Ingest {
        /// PGN files (plain, .zst, .bz2, .gz; detected from their bytes), Parquet files of games
        /// (a `movetext` column, tags as columns: Lichess's Hugging Face layout; a month folder's
        /// files are one input), directories (searched recursively for .pgn, .pgn.zst,
        /// .pgn.bz2, .pgn.gz, .parquet), or - for stdin.
        #[arg(required_unless_present = "finish")]
        inputs: Vec<PathBuf>,
        /// Dataset directory: new, empty, or an earlier threefold dataset.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Partition name for the (single) input; default: its file name without extensions
        /// (Parquet: DATASET@YYYY-MM for a month folder, NAME@parquet otherwise).
        #[arg(long, value_name = "NAME")]
        source: Option<String>,
        /// Replay threads; default: all cores.
        ///
        /// Reading (decompressing, splitting) and writing run on threads of their own beside the
        /// replay threads, so `--threads 1` keeps more than one core busy (on a slow-to-decompress
        /// file, nearly two); to hold a run to given cores, start it with `taskset`.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// No progress bar, log lines or summary on stderr.
        #[arg(long)]
        quiet: bool,
        /// Ingest every input, also those found up to date.
        #[arg(long)]
        force: bool,
        /// Check each input's SHA-256 (computed while it is read) against FILE, in `sha256sum`'s
        /// format as Lichess publishes it (`<hex>  <file name>`); a mismatch fails that input.
        #[arg(long, value_name = "FILE")]
        verify_sha256: Option<PathBuf>,
        /// Process shard K of N (K from 0): pzstd frames and plain-text bytes m·K/N to m·(K+1)/N
        /// of each input (cut at game starts), and every N-th input that is one compressed
        /// stream. Each shard stages its share; the last one complete commits the source.
        #[arg(long, value_name = "K/N")]
        shard: Option<crate::ingest::shard::Shard>,
        /// Commit every sharded source in DIR whose shards are all complete, and list those that
        /// are not (exit status 1); takes no inputs. For the job that runs after a cluster's
        /// shards (whose last one normally commits already).
        #[arg(long)]
        finish: bool,
        /// The venue of every game of the inputs (otb, lichess, online, engine, unknown), instead
        /// of what each game's tags say: the venue decides which rules the report applies
        /// (docs/events.md, "Venue and time class"). Recorded in the manifest; a run with
        /// another venue reads the inputs again.
        #[arg(long, value_name = "VENUE")]
        venue: Option<crate::pgn::venue::Venue>,
        /// Games per part file of a partition: a killed run's next run resumes after the last
        /// complete part (testing; the default suits any machine).
        #[arg(long, hide = true, default_value_t = crate::dataset::partition::PART_GAMES)]
        part_games: u64,
        /// Target size of the chunks of games handed to the threads (testing).
        #[arg(long, hide = true, default_value_t = chunk::CHUNK_BYTES)]
        chunk_bytes: usize,
    },
    /// Write DIR/views.sql again for where the dataset is now (after moving or copying it).
    ///
    /// DuckDB resolves the views' paths from its working directory, so views.sql names the
    /// partitions by absolute path; a dataset moved elsewhere needs them written again.
    ///
    /// Example: threefold views /mnt/shared/dataset && duckdb -c ".read /mnt/shared/dataset/views.sql"
    Views {
        /// Dataset directory written by `threefold ingest`.
        dir: PathBuf,
    },
    /// Answer the research questions over a dataset: sentences, then tables (optionally an HTML
    /// page of charts), every rate with its 95% Wilson interval.
    ///
    /// Reads DIR/games and DIR/events (written by ingest) directly, in bounded memory. Rates leave
    /// out skipped variants; rating band = the venue (its own rating pool) and the lower rating
    /// of the two players, bands of 200; a game's date is UTCDate, else Date where it is a full
    /// date.
    ///
    /// Examples:
    ///   threefold report dataset
    ///   threefold report dataset --html report.html
    ///   threefold report dataset --source 'lichess*' --since 2021-01 --time-class blitz --min-elo 1800
    ///   threefold report dataset --by source --html by-source.html
    ///   threefold report dataset --by collection --collections collections.csv
    ///   threefold report dataset --by month --sort value --html by-month.html
    ///   threefold report dataset --json > figures.json
    #[command(verbatim_doc_comment)]
    Report {
        /// Dataset directory written by `threefold ingest`.
        dir: PathBuf,
        /// Only sources matching GLOB (repeatable: any of them), e.g. 'lichess_db_*'.
        #[arg(long = "source", value_name = "GLOB")]
        sources: Vec<String>,
        /// Only games dated on or after DATE (YYYY-MM-DD, YYYY-MM or YYYY); undated games drop out.
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// Only games dated on or before DATE (YYYY-MM-DD; YYYY-MM or YYYY to its end).
        #[arg(long, value_name = "DATE")]
        until: Option<String>,
        /// Only games of this time class (repeatable): ultrabullet, bullet, blitz, rapid,
        /// classical, correspondence, unknown.
        #[arg(long = "time-class", value_name = "CLASS")]
        time_classes: Vec<String>,
        /// Only games played at this venue (repeatable): otb, lichess, online, engine, unknown.
        /// Their rules differ (docs/events.md, "The rules in force").
        #[arg(long = "venue", value_name = "VENUE")]
        venues: Vec<String>,
        /// Only games whose lower Elo is at least N (games without both Elos drop out).
        #[arg(long, value_name = "N")]
        min_elo: Option<i32>,
        /// Only games whose lower Elo is at most N (games without both Elos drop out).
        #[arg(long, value_name = "N")]
        max_elo: Option<i32>,
        /// Put groups side by side in every table and chart.
        #[arg(long, value_enum, value_name = "GROUPING")]
        by: Option<crate::report::group::ByKind>,
        /// For --by collection: a file of GLOB,COLLECTION lines naming each source's collection
        /// (first match wins; other sources are in `other`).
        #[arg(long, value_name = "FILE")]
        collections: Option<PathBuf>,
        /// With --by, the order of groups shown as rows: `name` (the grouping's own order: years
        /// and months in time, monthly dumps by their month) or `value` (highest first).
        #[arg(long, value_enum, value_name = "ORDER")]
        sort: Option<crate::report::group::Sort>,
        /// Rates over fewer games than this are greyed and marked "few games".
        #[arg(long, value_name = "N", default_value_t = 30)]
        min_games: u64,
        /// Also write a self-contained HTML page with SVG charts to FILE (atomically).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Print the computed figures as JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// Parquet parts read at once; default: all cores. The report is the same for any number.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        /// Read every game even where the summary ingest wrote could answer (whole months,
        /// bands of 100 Elo): the same figures, slower; for checking.
        #[arg(long)]
        scan: bool,
        /// Count each game once: the same game (same fingerprint) in two sources, or twice in
        /// one, counts as the first by source and key; says how many copies were left out. Reads
        /// the games twice and holds 16 bytes per selected game.
        #[arg(long)]
        dedup: bool,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(err) => {
            if err.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("threefold: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode> {
    match command {
        Command::Dump { file, limit } => dump::run(&file, limit),
        Command::Explain { file, game, source, html, svg } => {
            explain::run(&file, source.as_deref(), game, html.as_deref(), svg.as_deref())
        }
        Command::Ingest {
            inputs,
            out,
            source,
            threads,
            quiet,
            force,
            verify_sha256,
            shard,
            finish,
            venue,
            part_games,
            chunk_bytes,
        } => ingest::run(ingest::Options {
            inputs,
            out,
            source,
            threads,
            quiet,
            chunk_bytes,
            part_games,
            force,
            verify_sha256,
            shard,
            finish,
            summarize: crate::report::summary::summarizer,
            venue,
        }),
        Command::Views { dir } => {
            crate::dataset::write_views(&dir)?;
            eprintln!("threefold: wrote {}", dir.join("views.sql").display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Report {
            dir,
            sources,
            since,
            until,
            time_classes,
            venues,
            min_elo,
            max_elo,
            by,
            collections,
            sort,
            min_games,
            html,
            json,
            threads,
            scan,
            dedup,
        } => {
            let filter = crate::report::filter::Filter::new(
                sources,
                since.as_deref(),
                until.as_deref(),
                time_classes,
                venues,
                min_elo,
                max_elo,
            )?;
            let mut by = by.map(|kind| crate::report::group::By::new(kind, collections.as_deref())).transpose()?;
            if by.is_none() && collections.is_some() {
                anyhow::bail!("--collections is for --by collection");
            }
            match (&mut by, sort) {
                (Some(by), Some(sort)) => by.sort = sort,
                (None, Some(_)) => anyhow::bail!("--sort orders the groups of --by: give --by too"),
                _ => {}
            }
            crate::report::run(
                &dir,
                &crate::report::Options {
                    filter,
                    by,
                    min_games,
                    html,
                    json,
                    threads: threads.map(usize::from),
                    scan,
                    dedup,
                    example_page: Some(explain::page_of_dataset_game),
                },
            )
        }
    }
}

/// An input opened for reading, its compression detected.
pub(crate) fn open(file: &Path) -> Result<Box<dyn io::Read>> {
    let (_, reader) = input::open(file).with_context(|| format!("cannot open {}", file.display()))?;
    Ok(reader)
}

/// An input that could not be opened or read to its end: exit status 1, as in `ingest` (2 is
/// for usage and output errors).
pub(crate) fn input_failed(err: anyhow::Error) -> ExitCode {
    eprintln!("threefold: {err:#}");
    ExitCode::from(1)
}
