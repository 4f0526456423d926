//! The command line: arguments as typed ([`args`]), then one function per
//! command, each a thin call into the library.

mod args;
mod commands;
mod owner;
mod plain;
mod play;
mod solve;

use std::io::{self, Read, Write};
use std::path::Path;

use clap::Parser;
use mancala::engine::{ParsePitError, Pit};

pub use args::Args;

/// Exit codes from sysexits.h, which MTAs and scripts understand.
pub mod exit {
    pub const USAGE: u8 = 2;
    /// Bad input data: a sheet that cannot be read, an illegal move.
    pub const DATA: u8 = 65;
    pub const NO_INPUT: u8 = 66;
    /// A bug in this program.
    pub const SOFTWARE: u8 = 70;
    pub const IO: u8 = 74;
    /// Try again later: an MTA keeps the mail and retries.
    pub const TEMPFAIL: u8 = 75;
}

/// A failure, with the exit code it means.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn data(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: exit::DATA,
            message: message.to_string(),
        }
    }

    pub fn usage(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: exit::USAGE,
            message: message.to_string(),
        }
    }

    /// A failure a retry may mend: an MTA keeps the mail and tries again.
    pub fn tempfail(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: exit::TEMPFAIL,
            message: message.to_string(),
        }
    }

    pub fn io(what: impl std::fmt::Display, error: &io::Error) -> Failure {
        let code = if error.kind() == io::ErrorKind::NotFound {
            exit::NO_INPUT
        } else {
            exit::IO
        };
        Failure {
            code,
            message: format!("{what}: {error}"),
        }
    }
}

pub type CliResult = Result<(), Failure>;

/// Runs the command line; returns the exit code.
pub fn main() -> u8 {
    let args = Args::parse();
    // A bug must never lose a player's mail: a panic in the mail command
    // exits 75, so the MTA keeps the mail and tries again later.
    let is_mail = matches!(args.command, args::Command::Mail(_));
    let result = std::panic::catch_unwind(|| commands::run(args)).unwrap_or_else(|_| {
        Err(Failure {
            code: if is_mail {
                exit::TEMPFAIL
            } else {
                exit::SOFTWARE
            },
            message: "internal error (a bug): please report it".to_string(),
        })
    });
    match result {
        Ok(()) => 0,
        Err(failure) => {
            // A closed pipe (`mancala ... | head`) is not worth a message.
            let _ = writeln!(io::stderr(), "mancala: {}", failure.message);
            failure.code
        }
    }
}

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &Path) -> Result<String, Failure> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    let bytes = bytes.map_err(|e| Failure::io(display_path(path), &e))?;
    // Sheets come from mail and editors: take any bytes, never fail on encoding.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn display_path(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The sowings typed (`c-f`, `c f`): what is not a pit is told with the
/// game's own range (`a to f`); a letter past the row is the engine's to
/// refuse, with the legal moves.
pub fn sowings_in(text: &str, rules: &mancala::engine::Rules) -> Result<Vec<Pit>, String> {
    mancala::sheet::parse_sowings(text).map_err(|e| match e {
        ParsePitError::Pit(word) => format!(
            "'{word}' is not a pit: pits are letters a to {} (or digits 1 to {})",
            Pit::new(rules.pits - 1),
            rules.pits
        ),
        other => other.to_string(),
    })
}

/// Writes to standard output; a closed pipe ends quietly.
pub fn print(text: &str) -> CliResult {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| Failure::io("standard output", &e)),
    }
}
