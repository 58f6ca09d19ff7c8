//! The rules: where a game starts ([`start`]), its moves played with `shakmaty` ([`replay`];
//! [`san`] finds most of them without a move list),
//! how often each position occurred in the window that can still recur ([`tracker`], by its
//! exact FIDE [`identity`]; [`checks`] notes which moves of a long one gave check), and the records that come
//! out: [`event`]s and a [`summary`], with the [`clocks`] and evaluations the comments gave (whose words [`vocabulary`] spells).
//! The Lichess variants are replayed apart, by [`variant`], so that standard chess keeps its fast paths.

pub mod checks;
pub mod clocks;
pub mod event;
pub mod identity;
pub mod replay;
pub mod san;
pub mod start;
pub mod summary;
pub mod tracker;
pub mod variant;
pub mod vocabulary;
