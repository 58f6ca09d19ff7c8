//! A sharded run (`--shard K/N`): each input's share ([`super::shard`]) written under the
//! shard's own name, and the source committed once every shard is complete
//! ([`crate::dataset::shards`]); and `--finish`, which commits what is complete and says what
//! is not.

use std::process::ExitCode;

use anyhow::{Context, Result};

use super::{Disposition, RowCounts, RunContext, Unit, ingest_input, ingest_one, plan::Input, up_to_date};
use crate::{
    dataset::{
        Dataset, lock,
        manifest::InputStatus,
        partition::{self, read_record, unit_name},
        shards::{self, Finished},
    },
    read::input::Layout,
    {
        reader::Span,
        shard::{Shard, Share},
    },
};

/// Ingests this shard's share of one input. `whole_inputs` counts the inputs read whole so far
/// (they take turns among the shards).
pub(super) fn ingest_shard(
    input: &Input,
    shard: Shard,
    whole_inputs: &mut u32,
    context: RunContext,
) -> Result<(Disposition, RowCounts)> {
    let path = input.path.display();
    // A Parquet input is cut by row groups, so never read whole.
    let layout = input.layout().with_context(|| format!("cannot open {path}"))?;
    if layout == Layout::Stream {
        let turn = *whole_inputs;
        *whole_inputs += 1;
        return if turn % shard.n == shard.k {
            ingest_one(input, Unit::whole(&input.source), context)
        } else {
            Ok((Disposition::OtherShard, RowCounts::default()))
        };
    }
    let RunContext { dataset, pools, plan, share, .. } = context;
    let name = unit_name(&input.source, Some((shard.k, shard.n)));
    let _lock = match lock::try_unit(dataset.root(), &name)? {
        Ok(lock) => lock,
        Err(holder) => {
            eprintln!(
                "threefold: {path}: skipped, shard {shard} of source {:?} is being written by {holder}",
                input.source
            );
            return Ok((Disposition::Busy, RowCounts::default()));
        }
    };
    let fingerprint = input.fingerprint();
    if up_to_date(input, dataset, fingerprint.as_ref(), plan.force).is_some() {
        partition::discard_staging(dataset.root(), &name)?;
        if !plan.quiet {
            eprintln!("threefold: {path}: up to date (source {:?})", input.source);
        }
        return Ok((Disposition::UpToDate, RowCounts::default()));
    }
    let staged = read_record(dataset.root(), &name).filter(|r| {
        r.complete.is_some()
            && fingerprint.as_ref().is_some_and(|f| r.key.fingerprint.as_deref() == Some(f.sample_hash.as_str()))
            && !plan.force
    });
    let outcome = match staged {
        Some(_) => {
            if !plan.quiet {
                eprintln!("threefold: {path}: shard {shard} of source {:?} was staged earlier", input.source);
            }
            (Disposition::Staged, RowCounts::default())
        }
        None => {
            let span =
                match input.share(layout, shard).with_context(|| format!("cannot work out shard {shard} of {path}"))? {
                    Share::Span(Some(span)) => span,
                    // No game starts in this shard's frames: an empty span.
                    _ => Span { lo: Default::default(), hi: Some(Default::default()) },
                };
            let unit = Unit { name, shard: Some((shard.k, shard.n)), span, kept: Vec::new() };
            let (entry, tally, _) = ingest_input(input, &unit, dataset, pools, plan, fingerprint, share)?;
            if entry.status != InputStatus::Ok {
                eprintln!("threefold: {} (shard {shard})", entry.error.unwrap_or_default());
                return Ok((Disposition::Failed, tally));
            }
            (Disposition::Staged, tally)
        }
    };
    // The last shard to be complete commits the source.
    match shards::finish(dataset, &input.source, shard.n, Some(shard.k), threefold_count::summary::summarizer)? {
        Finished::Committed(entry) => {
            if !plan.quiet {
                eprintln!(
                    "threefold: source {:?} committed: all {} shards complete, {} games",
                    input.source, shard.n, entry.games
                );
            }
            Ok((Disposition::Ingested, outcome.1))
        }
        Finished::Waiting(missing) => {
            if !plan.quiet {
                eprintln!(
                    "threefold: {path}: shard {shard} staged; source {:?} waits for shard(s) {}",
                    input.source,
                    list(&missing)
                );
            }
            Ok(outcome)
        }
        Finished::Busy(holder) => {
            if !plan.quiet {
                eprintln!(
                    "threefold: {path}: shard {shard} staged; source {:?} is being committed by {holder}",
                    input.source
                );
            }
            Ok(outcome)
        }
    }
}

fn list(shards: &[u32]) -> String {
    shards.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// `--finish`: commits every sharded source whose shards are all complete. Exit status 1 if
/// some source still waits for shards.
pub(super) fn finish_all(dataset: &mut Dataset, quiet: bool) -> Result<ExitCode> {
    let pending = shards::pending(dataset)?;
    let mut waiting = 0;
    for (source, n) in &pending {
        match shards::finish(dataset, source, *n, None, threefold_count::summary::summarizer)? {
            Finished::Committed(entry) => {
                if !quiet {
                    eprintln!("threefold: source {source:?} committed from {n} shards: {} games", entry.games);
                }
            }
            Finished::Waiting(missing) => {
                waiting += 1;
                let failed: Vec<String> = missing
                    .iter()
                    .filter(|&&k| read_record(dataset.root(), &unit_name(source, Some((k, *n)))).is_none())
                    .map(u32::to_string)
                    .collect();
                eprintln!(
                    "threefold: source {source:?} is not complete: shard(s) {} of {n} missing (never run, failed, or still running{}); rerun them with --shard K/{n}",
                    list(&missing),
                    if failed.is_empty() {
                        String::new()
                    } else {
                        format!("; no record at all for {}", failed.join(", "))
                    }
                );
            }
            Finished::Busy(holder) => {
                eprintln!("threefold: source {source:?} is being committed by {holder}");
            }
        }
    }
    dataset.flush_manifest()?;
    if !quiet {
        eprintln!(
            "threefold: --finish: {} sharded source(s) found, {} still incomplete; dataset {}",
            pending.len(),
            waiting,
            dataset.root().display()
        );
    }
    Ok(if waiting > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
