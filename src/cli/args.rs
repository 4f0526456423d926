//! What the user typed, as clap reads it. Each doc comment is the help text.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use mancala::engine::{ruleset_titles, Ruleset, Side};
use mancala::mail::transport::Transport;
use mancala::opponent::Opponent;

#[derive(Debug, Parser)]
#[command(
    name = "mancala",
    version,
    about = about(),
    long_about = about() + ".\n\n\
        A game lives in its sheet: the board grid and numbered move log that players cut and paste. \
        Start one with `mancala new`, play moves with `mancala move`, check one with `mancala show`.",
    after_help = "Pits are letters from each player's own left, in sowing order (a, b, c, ...); digits 1, 2, 3, ... mean the same.\n\
        Exit status: 0 done, 2 usage error, 65 bad sheet or illegal move, 66 file not found, 70 a bug, 74 I/O error, 75 try again later (a mail is kept)."
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

/// Each subcommand's arguments are built only when it runs (`defer`): a
/// mail is a process of its own, and building every subcommand's arguments
/// cost a tenth of its start.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Print the start sheet of a new game, or of one set up by hand
    New {
        #[command(flatten)]
        start: StartArgs,
        /// The name of the player at the top of the board
        #[arg(long, default_value = "North")]
        north: String,
        /// The name of the player at the bottom of the board
        #[arg(long, default_value = "South")]
        south: String,
    },
    /// Play moves for whoever is to move and print the new sheet (or, with --game, your turn
    /// in a game of your mailbox's store, mailed to your opponent)
    Move {
        /// The sheet, or - for standard input (with --game, none: the first argument is the turn)
        file: Option<PathBuf>,
        /// Turns in order, one an argument: `c`, or `c-f` for c and the bonus sowing it earns
        #[arg(required_unless_present = "game")]
        moves: Vec<String>,
        /// Rewrite FILE with the new sheet (atomically) instead of printing it
        #[arg(long, short = 'i', conflicts_with = "game")]
        in_place: bool,
        /// Your turn in the store's game with this id (with --owner): your opponent is mailed
        /// through --send, and your copy printed
        #[arg(long, requires = "owner")]
        game: Option<String>,
        /// The mailbox you referee on, as `mail --owner` takes it
        #[arg(long, requires = "game", env = "MANCALA_OWNER")]
        owner: Option<String>,
        #[command(flatten)]
        store: StoreFolder,
        /// Where your opponent's mail goes, as for `mancala mail`
        #[arg(
            long,
            default_value = "sendmail",
            env = "MANCALA_SEND",
            requires = "game"
        )]
        send: Transport,
    },
    /// Check a sheet by replaying its log, and print it (or a stored game's)
    Show {
        /// The sheet, or - for standard input
        #[arg(required_unless_present = "game")]
        file: Option<PathBuf>,
        /// Show the store's game with this id instead
        #[arg(long, conflicts_with = "file")]
        game: Option<String>,
        #[command(flatten)]
        store: StoreFolder,
        /// Print the position as JSON instead
        #[arg(long)]
        json: bool,
    },
    /// Print every position from the start (or a set-up) through the moves
    Replay {
        #[command(flatten)]
        start: StartArgs,
        /// Turns in order, one an argument: `c`, or `c-f` for c and the bonus sowing it earns
        moves: Vec<String>,
        /// One JSON object per line: the start, then one after every sowing
        #[arg(long)]
        json: bool,
    },
    /// Referee one mail: read it on standard input, play its move, send the replies
    #[command(
        long_about = "Referee one mail: read it on standard input (as procmail, a .forward \
        pipe or an alias hands it over), find the game sheet and the player's move, play it, \
        and send the new sheet to both players, or tell the sender what is wrong.\n\n\
        Exit status: 0 when the mail was handled (an illegal move answered is handled, a bounce \
        ignored is handled); 75 when a reply could not be sent, so the MTA tries again later."
    )]
    Mail(MailArgs),
    /// Referee every message in a Maildir's new/ (filled by mbsync, fetchmail or an MTA), once
    #[command(
        long_about = "Referee every message in MAILDIR/new, oldest first, as `mancala mail` \
        does one: a handled message moves to MAILDIR/cur marked seen; one that met a failure \
        worth retrying (the store, a send) stays in new/ for the next run. Runs wait for each \
        other (a lock in MAILDIR), so two at once never handle a message twice. For cron, or a \
        fetcher's post-sync hook.\n\nExit status: 0 when every message was handled, 75 when \
        some stay for the next run."
    )]
    Maildir {
        /// The Maildir: its new/ is read, its cur/ receives what was handled
        dir: PathBuf,
        #[command(flatten)]
        referee: RefereeArgs,
    },
    /// List the games under way in the store, the newest first (at most 20; --all for every game)
    Games {
        #[command(flatten)]
        listing: Listing,
    },
    /// The players' Glicko-2 ratings from the finished games in the store, best first (the best 20 of each game; --all for everyone)
    Ratings {
        /// Only this game's ratings (default: every game's, a table each)
        ruleset: Option<Ruleset>,
        #[command(flatten)]
        listing: Listing,
    },
    /// Move an earlier mancala's store into the database, or back the store up
    Store {
        #[command(subcommand)]
        action: StoreAction,
    },
    /// Nudge players who have not moved, and forfeit those gone too long (run it from cron)
    Remind {
        /// Remind the player to move after this long: 7d, 36h, 90m or 30s (a unit is needed)
        #[arg(long, default_value = "7d", value_parser = parse_duration)]
        nudge: u64,
        /// Forfeit the game of a player who has not moved for this long (at least --nudge)
        #[arg(long, default_value = "21d", value_parser = parse_duration)]
        forfeit: u64,
        #[command(flatten)]
        store: StoreFolder,
        /// Where the mails go, as for `mancala mail`
        #[arg(long, default_value = "stdout", env = "MANCALA_SEND")]
        send: Transport,
        /// The referee's own address
        #[arg(long, default_value = "referee@localhost", env = "MANCALA_FROM")]
        from: String,
    },
    /// Play against the computer, at a terminal or with moves piped in
    Play {
        #[command(flatten)]
        start: StartArgs,
        /// The side you play
        #[arg(long = "as", default_value = "south")]
        side: Side,
        #[arg(long, help = opponent_help())]
        opponent: Option<Opponent>,
        /// Write the game's sheet here when it ends
        #[arg(long)]
        save: Option<PathBuf>,
    },
    /// Print the move an opponent (perfect play by default, strong where out of reach) would play
    Hint {
        /// The sheet, or - for standard input
        file: PathBuf,
        #[arg(long, help = hint_opponent_help())]
        opponent: Option<Opponent>,
        /// Print {"move": ..., "eval": ..., "depth": ...}
        #[arg(long)]
        json: bool,
    },
    /// The exact value of the sheet's position and of each legal move, under perfect play
    #[command(
        long_about = "The value of the sheet's position for the side to move and the value of \
        each legal move, under perfect play: in Mankala the final score margin (the mover's \
        pits and home at the end less the opponent's), in Waurie +1 win / -1 loss. Exact where \
        the search reaches the end of the game or the endgame tables within --nodes; else \
        \"exact\": false with a depth-limited search's value and depth. In Wari games a \
        position can repeat, ending the game: a value is exact there only where the search of \
        the game's history finishes within --nodes."
    )]
    Solve {
        /// The sheet, or - for standard input
        file: PathBuf,
        /// {"exact": ..., "value": ..., "moves": {"a": ..., ...}}
        #[arg(long)]
        json: bool,
        /// Report each step of the search on standard error (for long solves)
        #[arg(long)]
        verbose: bool,
        /// Megabytes for the transposition table (default: sized to --nodes, at most 1024)
        #[arg(long, value_name = "MB")]
        memory: Option<usize>,
        /// Solve a win-or-loss game (Waurie) by proof numbers (df-pn), not MTD(f)
        #[arg(long)]
        proof_numbers: bool,
        /// Only prove whether the value is at least V, or at most V-1: far
        /// cheaper than the value where the value is far from V
        #[arg(
            long,
            value_name = "V",
            allow_negative_numbers = true,
            conflicts_with = "proof_numbers",
            value_parser = clap::value_parser!(i32).range(-1000..=1000)
        )]
        at_least: Option<i32>,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Each turn of a game valued before and after: the turns that lost value, and where a won position was let go
    Analyze {
        /// The sheet, or - for standard input
        file: PathBuf,
        /// One JSON object for the whole game
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Endgame tables for the solver
    Tables {
        #[command(subcommand)]
        command: TablesCommand,
    },
    /// Play games between two opponents, alternating sides, and count
    Tournament {
        #[command(flatten)]
        rules: RulesArgs,
        /// The first opponent (results are its wins, draws, losses)
        a: Opponent,
        /// The second opponent
        b: Opponent,
        /// How many games
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Seed for the random strategies
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print the rules as this referee applies them
    Rules {
        /// One game's rules (default: all)
        #[arg(value_parser = RulesetParser)]
        ruleset: Option<Ruleset>,
        /// With RULESET: say which of its variants is played
        #[arg(long, requires = "ruleset")]
        variant: Option<String>,
    },
}

// The argument structs have plain comments, not doc comments: as the
// subcommands are deferred, clap would take a struct's doc comment as the
// help of each subcommand it is part of.

// `--store PATH` of the commands that read the hosted referee's store.
#[derive(Debug, clap::Args)]
pub struct StoreFolder {
    /// The store: a SQLite file, or postgresql://... (default: MANCALA_STORE, else
    /// referee.db in the XDG data folder)
    #[arg(long = "store", env = "MANCALA_STORE", value_name = "PATH")]
    pub dir: Option<String>,
}

// `mancala store`'s actions.
#[derive(Debug, Subcommand)]
pub enum StoreAction {
    /// Move a store of an earlier mancala (a folder of game files) into the database,
    /// keys and all; importing twice changes nothing
    Import {
        /// The old store's folder (the one holding `key`)
        folder: PathBuf,
        #[command(flatten)]
        store: StoreFolder,
    },
    /// Copy the store, consistent, into a new SQLite file while mail flows
    /// (a PostgreSQL store: use pg_dump)
    Backup {
        /// The copy to make (it must not exist yet)
        file: PathBuf,
        #[command(flatten)]
        store: StoreFolder,
    },
}

// What `games` and `ratings` list from the store, and how.
#[derive(Debug, clap::Args)]
pub struct Listing {
    #[command(flatten)]
    pub store: StoreFolder,
    /// One JSON object a line
    #[arg(long)]
    pub json: bool,
    /// Every one, not only the first 20 (for games: finished ones too, reading every game file)
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// The game
    #[arg(value_parser = RulesetParser)]
    pub ruleset: Ruleset,
    /// Stones in each pit at the start (default: the game's usual number)
    #[arg(long)]
    pub stones: Option<u8>,
    /// Pits in each row (Kalah: 1 to 6, for the smaller boards of the literature; default 6)
    #[arg(long)]
    pub pits: Option<u8>,
    #[arg(long, help = variant_help())]
    pub variant: Option<String>,
}

// Where a new game starts: the game, who is to move, and a position set
// up by hand if not the usual start.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Who sows first (with --position: who is to move)
    #[arg(long, default_value = "south")]
    pub first: Side,
    /// Start from this position: "SOUTH / NORTH", each row's pits from its owner's a, as in
    /// "1 0 0 0 1 1 / 0 0 1 0 0 0"
    #[arg(long, value_name = "SOUTH / NORTH")]
    pub position: Option<String>,
    /// With --position: the stores (in Wari games the captured totals), South's first, as in
    /// "22,22" (default: the stones not in the pits, shared as evenly as they go)
    #[arg(long, value_name = "S,N", requires = "position")]
    pub stores: Option<String>,
}

/// The one-line description, naming every game of the table.
fn about() -> String {
    format!(
        "Referee for mancala games played by email: {}",
        ruleset_titles()
    )
}

/// The variants, each under its game, from the rulesets' table.
fn variant_help() -> String {
    let games: Vec<String> = Ruleset::ALL
        .iter()
        .filter(|r| !r.spec().variants.is_empty())
        .map(|r| format!("{r}: {}", r.variant_names()))
        .collect();
    format!(
        "Play a variant of the game's rules ({}); see `mancala rules RULESET`",
        games.join("; ")
    )
}

/// Every opponent `--opponent` takes, as `Opponent`'s `FromStr` reads them.
const OPPONENTS: &str = "greedy (Critchlow's), greedy-X (greedy, else strategy X), \
    perfect (exact where the solver reaches within 500,000 positions, with the endgame tables; \
    else strong), strong (1,000,000 positions a move), quick (100,000), blitz (10,000), \
    search-N (N positions a move), random, \
    first, last, first-largest, last-largest, first-smallest, last-smallest";

/// The opponents, and which is each game's default, from the rulesets' table.
fn opponent_help() -> String {
    let mut defaults: Vec<String> = Vec::new();
    for r in Ruleset::ALL {
        let name = Opponent::default_for(r).to_string();
        match defaults
            .iter_mut()
            .find(|d| d.starts_with(&format!("{name} for ")))
        {
            Some(d) => d.push_str(&format!(", {r}")),
            None => defaults.push(format!("{name} for {r}")),
        }
    }
    format!(
        "The computer: {OPPONENTS} (default: {})",
        defaults.join("; ")
    )
}

/// `hint`'s opponents: the same, perfect play by default.
fn hint_opponent_help() -> String {
    format!("Which opponent to ask: {OPPONENTS} (default: perfect)")
}

/// Reads a game's name as [`Ruleset`]'s `FromStr` does (any case, any
/// separator), and lists the games, from the table, as the possible values.
#[derive(Clone, Copy, Debug)]
pub struct RulesetParser;

impl clap::builder::TypedValueParser for RulesetParser {
    type Value = Ruleset;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Ruleset, clap::Error> {
        let text = value.to_string_lossy();
        text.parse().map_err(|e: mancala::engine::RulesError| {
            let arg = arg.map_or("RULESET".to_string(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value '{text}' for '{arg}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(Ruleset::ALL.into_iter().map(|r| {
            clap::builder::PossibleValue::new(r.as_str()).help(r.title())
        })))
    }
}

// `mancala mail`'s arguments.
#[derive(Debug, clap::Args)]
pub struct MailArgs {
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// Referee on this person's own mailbox ('Bill Taylor <bill@example.org>'), as a procmail
    /// filter: the owner holds a seat in every game, kept in the store (with --filter)
    #[arg(long, requires = "filter", conflicts_with = "no_store")]
    pub owner: Option<String>,
    /// With --owner: write the mail to standard output as it came, whole; a mail of a game the
    /// owner plays is refereed, and both players' mails sent through --send
    #[arg(long, requires = "owner")]
    pub filter: bool,
    /// With --owner: the owner's mail system delivers name+anything@domain to name@domain, so
    /// each player's key also goes in the Reply-To (bill+KEY@...)
    #[arg(long, requires = "owner")]
    pub sub_addresses: bool,
}

// How a referee of mail is set up: `mail` and `maildir` share these.
#[derive(Debug, clap::Args)]
pub struct RefereeArgs {
    /// Where replies go: stdout (mbox), sendmail, sendmail:PATH, smtp://HOST:PORT (STARTTLS when offered), smtps://HOST:PORT, or dir:PATH (.eml files). SMTP credentials come from MANCALA_SMTP_USER and MANCALA_SMTP_PASSWORD
    #[arg(long, default_value = "stdout", env = "MANCALA_SEND")]
    pub send: Transport,
    /// The referee's own address: replies come from it, and mail from it is never answered
    #[arg(long, default_value = "referee@localhost", env = "MANCALA_FROM")]
    pub from: String,
    /// Mail larger than this many bytes is refused unread (at least 65536: the
    /// headers, whose From the refusal answers, are read within it)
    #[arg(long, default_value_t = 1_000_000, value_parser = parse_max_size)]
    pub max_size: usize,
    /// Keep games in this store: a SQLite file (made on first use), or postgresql://...
    /// (default: ~/.local/share/mancala-referee/referee.db, by XDG_DATA_HOME)
    #[arg(long, env = "MANCALA_STORE")]
    pub store: Option<String>,
    /// Keep no games: each game lives only in its mails, whose quoted
    /// sheet is checked by replaying its log (no keys, no commands)
    #[arg(long, conflicts_with = "store")]
    pub no_store: bool,
}

/// A mail's headers alone can run to tens of KB (Received, DKIM): a limit
/// below this would cut off the From that a refusal answers.
const LEAST_MAX_SIZE: usize = 65_536;

fn parse_max_size(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(size) if size >= LEAST_MAX_SIZE => Ok(size),
        Ok(_) => Err(format!("at least {LEAST_MAX_SIZE} bytes")),
        Err(e) => Err(e.to_string()),
    }
}

/// `7d`, `36h`, `90m` or `30s`, in seconds; a number alone only if 0
/// (`7` could be days or seconds: the user is asked to say).
fn parse_duration(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let wrong = || format!("'{text}' is not a duration: write 7d, 36h, 90m or 30s");
    let scale = match unit {
        "" if number.bytes().all(|b| b == b'0') && !number.is_empty() => 1,
        "" => {
            return Err(format!(
                "'{text}' has no unit: write {text}d for days ({text}h hours, {text}m minutes, {text}s seconds)"
            ))
        }
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(wrong()),
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(wrong)
}

/// A duration as [`parse_duration`] reads it, in its largest whole unit.
pub fn show_duration(seconds: u64) -> String {
    match seconds {
        0 => "0s".to_string(),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The subcommands are deferred: each one's help must still open with
    /// the line the top-level help lists for it, not an argument struct's.
    #[test]
    fn each_subcommand_s_help_opens_with_its_own_summary() {
        use clap::CommandFactory;
        let command = Args::command();
        assert!(command.get_subcommands().count() > 10);
        for sub in command.get_subcommands() {
            let name = sub.get_name();
            let listed = sub
                .get_about()
                .map(|about| about.to_string())
                .unwrap_or_else(|| panic!("{name} has a summary"));
            let help = Args::try_parse_from(["mancala", name, "-h"])
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(help.starts_with(&listed), "{name}: {help}");
        }
    }

    #[test]
    fn new_takes_names_stones_and_first() {
        let args = Args::try_parse_from([
            "mancala", "new", "Mankala", "--north", "Bill", "--stones", "5", "--first", "north",
        ])
        .unwrap();
        let Command::New {
            start,
            north,
            south,
        } = args.command
        else {
            panic!("parsed as {:?}", args.command);
        };
        assert_eq!(start.rules.ruleset, Ruleset::Mankala);
        assert_eq!((north.as_str(), south.as_str()), ("Bill", "South"));
        assert_eq!((start.rules.stones, start.first), (Some(5), Side::North));
        assert_eq!(start.position, None);
    }

    #[test]
    fn unknown_games_and_sides_are_usage_errors() {
        let err = Args::try_parse_from(["mancala", "new", "chess"]).unwrap_err();
        assert!(err.to_string().contains("unknown game 'chess'"), "{err}");
        let err = Args::try_parse_from(["mancala", "new", "wari", "--first", "east"]).unwrap_err();
        assert!(err.to_string().contains("not a side"), "{err}");
    }

    /// The referee's defaults and variables, as declared (what a shell's
    /// own MANCALA_* variables would change is tested on the binary, in
    /// tests/cli.rs).
    #[test]
    fn mail_defaults_to_mbox_on_stdout() {
        use clap::CommandFactory;
        let mut command = Args::command();
        command.build(); // the deferred subcommands' arguments too
        let mail = command.find_subcommand("mail").unwrap();
        let arg = |id: &str| mail.get_arguments().find(|a| a.get_id() == id).unwrap();
        for (id, default, variable) in [
            ("send", Some("stdout"), Some("MANCALA_SEND")),
            ("from", Some("referee@localhost"), Some("MANCALA_FROM")),
            ("max_size", Some("1000000"), None),
            ("store", None, Some("MANCALA_STORE")),
        ] {
            let arg = arg(id);
            let defaults: Vec<_> = arg.get_default_values().iter().collect();
            assert_eq!(defaults.first().and_then(|d| d.to_str()), default, "{id}");
            assert_eq!(arg.get_env().and_then(|v| v.to_str()), variable, "{id}");
        }
        let args =
            Args::try_parse_from(["mancala", "mail", "--send", "smtp://127.0.0.1:2525"]).unwrap();
        assert!(matches!(
            args.command,
            Command::Mail(MailArgs {
                referee: RefereeArgs {
                    send: Transport::Smtp { port: 2525, .. },
                    ..
                },
                ..
            })
        ));
        let args = Args::try_parse_from(["mancala", "mail", "--max-size=70000"]).unwrap();
        assert!(matches!(
            args.command,
            Command::Mail(MailArgs {
                referee: RefereeArgs {
                    max_size: 70000,
                    ..
                },
                ..
            })
        ));
        assert!(Args::try_parse_from(["mancala", "mail", "--max-size=5000"]).is_err());
        assert!(
            Args::try_parse_from(["mancala", "mail", "--filter"]).is_err(),
            "--filter needs --owner"
        );
        assert!(Args::try_parse_from(["mancala", "mail", "--owner", "b@x.example"]).is_err());
        assert!(Args::try_parse_from(["mancala", "mail", "--send", "pigeon"]).is_err());
        assert!(Args::try_parse_from(["mancala", "mail", "--store", "s", "--no-store"]).is_err());
        assert!(Args::try_parse_from(["mancala", "mail", "--max-size", "5k"]).is_err());
    }

    #[test]
    fn durations_read_as_written() {
        assert_eq!(parse_duration("7d"), Ok(7 * 86_400));
        assert_eq!(parse_duration("36h"), Ok(36 * 3600));
        assert_eq!(parse_duration("90m"), Ok(90 * 60));
        assert_eq!(parse_duration("0"), Ok(0), "nothing is ambiguous about 0");
        let err = parse_duration("7").unwrap_err();
        assert!(err.contains("no unit: write 7d for days"), "{err}");
        assert!(parse_duration("7 days").is_err());
        assert!(parse_duration("d").is_err());
        assert!(
            parse_duration("999999999999999999d").is_err(),
            "no overflow"
        );
    }

    #[test]
    fn durations_show_as_typed() {
        for text in ["7d", "36h", "90m", "30s", "0s"] {
            assert_eq!(show_duration(parse_duration(text).unwrap()), text);
        }
        assert!(Args::try_parse_from(["mancala", "remind", "--nudge", "7"]).is_err());
        assert!(
            Args::try_parse_from(["mancala", "remind", "--nudge", "0", "--forfeit", "0"]).is_ok()
        );
    }

    #[test]
    fn move_needs_a_move() {
        assert!(Args::try_parse_from(["mancala", "move", "sheet.txt"]).is_err());
        let args = Args::try_parse_from(["mancala", "move", "-", "c-f", "--in-place"]).unwrap();
        assert!(matches!(args.command, Command::Move { in_place: true, .. }));
    }
}

// Where the solver finds its tables, and how far it may search.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// A folder of tables (RULESET.tables, as `mancala tables build` writes them), used before
    /// the ones built in (the shipped boards/tables: every game's); it must exist
    #[arg(long, env = "MANCALA_TABLES")]
    pub tables: Option<PathBuf>,
    /// Search without any tables
    #[arg(long, conflicts_with = "tables")]
    pub no_tables: bool,
    /// Positions the exact search may visit before it settles for a depth-limited one
    #[arg(long, default_value_t = 20_000_000)]
    pub nodes: u64,
}

#[derive(Debug, Subcommand)]
pub enum TablesCommand {
    /// Build a ruleset's tables by retrograde analysis, layer by layer of stones in pits
    Build {
        /// The game (Wari and Super-Wari to 21 stones in pits)
        ruleset: Ruleset,
        /// The most stones in pits the tables answer for
        #[arg(long, visible_alias = "stones")]
        stones_in_pits: usize,
        /// Tables for a variant of the game (its file is RULESET-VARIANT.tables)
        #[arg(long, help = variant_help())]
        variant: Option<String>,
        /// The folder to write RULESET.tables into (made if need be); tables there, else the
        /// built-in ones, are extended rather than built anew
        #[arg(long, env = "MANCALA_TABLES")]
        tables: PathBuf,
        /// Megabytes of memory for the tables while they are built: past it the finished layers
        /// are read back from the file being written (by default three quarters of the memory
        /// available)
        #[arg(long, value_name = "MB")]
        memory: Option<usize>,
    },
    /// Check every position of a ruleset's tables against the engine's moves: each is worth
    /// the best of its moves, as the engine plays them and the tables value them
    Check {
        /// The game
        ruleset: Ruleset,
        /// Tables for a variant of the game (its file is RULESET-VARIANT.tables)
        #[arg(long, help = variant_help())]
        variant: Option<String>,
        /// The folder holding RULESET.tables, as for `solve` (without one there, the built-in
        /// tables are checked)
        #[arg(long, env = "MANCALA_TABLES")]
        tables: Option<PathBuf>,
    },
}
