//! `mancala-referee`: a referee for mancala games played by email.
//!
//! The layers depend one way: [`engine`] (rules, no text) ← [`sheet`]
//! (the board grid and move log players cut and paste) ← `hosted` (a
//! stored game's rules, in events) ← `mail` ← the `mancala` command line.
#![forbid(unsafe_code)]

#[cfg(feature = "mail")]
pub mod address;
pub mod engine;
#[cfg(feature = "mail")]
pub mod files;
pub mod guide;
#[cfg(feature = "mail")]
pub mod hosted;
#[cfg(feature = "mail")]
pub mod mail;
pub mod opponent;
#[cfg(feature = "mail")]
pub mod record;
pub mod sheet;
pub mod solve;
#[cfg(feature = "mail")]
pub mod store;
