//! `mancala`: the command line. It only parses arguments, calls down into
//! the library, and maps the result to an exit code. std's own start opens
//! closed standard descriptors on /dev/null (so no store file becomes
//! standard output) and ignores SIGPIPE (a reader gone is an error to
//! report, not a kill): both kept by `tests/cli.rs`.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli::main())
}
