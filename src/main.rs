//! `mancala`: the command line. It only parses arguments, calls down into
//! the library, and maps the result to an exit code.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
