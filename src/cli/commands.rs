//! One function per command; each calls down into the library.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use mancala::engine::{Game, Pit, Position, Rules, Ruleset};
use mancala::mail::delivery::DeliveryError;
use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::sheet_referee::SheetReferee;
use mancala::mail::transport::{Postbox, Transport};
use mancala::mail::Report;
use mancala::mail::{maildir, Identity, Referee};
use mancala::sheet::{self, Players, PositionJson, Sheet};
use mancala::store::{GameId, Store};

use super::args::{
    Args, Command, Listing, MailArgs, RefereeArgs, RulesArgs, StartArgs, TablesCommand,
};
use super::{display_path, print, read_input, CliResult, Failure};

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::New {
            start,
            north,
            south,
        } => {
            let sheet = Sheet::from_position(start_of(&start)?, Players::named(&south, &north));
            print(&sheet.to_string())
        }
        Command::Move {
            game: Some(game),
            owner: Some(owner),
            file,
            moves,
            store,
            send,
            ..
        } => {
            // (With --game there is no FILE: the first argument is the turn.)
            let first = file.map(|f| f.to_string_lossy().into_owned());
            let turns: Vec<String> = first.into_iter().chain(moves).collect();
            super::owner::owners_move(&owner, &game, &turns, store.dir, send)
        }
        Command::Move {
            file: Some(file),
            moves,
            in_place,
            ..
        } if !moves.is_empty() => play_moves(&file, &moves, in_place),
        Command::Move { file: None, .. } => Err(Failure::usage(
            "move needs a FILE, or --game ID with --owner",
        )),
        Command::Move { .. } => Err(Failure::usage("move needs the turns to play after FILE")),
        Command::Show {
            file,
            json,
            game,
            store,
        } => show(file, game, store.dir, json),
        Command::Replay { start, moves, json } => replay(start_of(&start)?, &moves, json),
        Command::Mail(MailArgs {
            referee,
            owner: Some(owner),
            sub_addresses,
            ..
        }) => super::owner::owners_mailbox(&owner, referee, sub_addresses),
        Command::Mail(MailArgs { referee, .. }) => mail(referee),
        Command::Maildir { dir, referee } => maildir_run(&dir, referee),
        Command::Games { listing } => list_games(listing),
        Command::Ratings { ruleset, listing } => list_ratings(listing, ruleset),
        Command::Remind {
            nudge,
            forfeit,
            store,
            send,
            from,
        } => remind(store.dir, send, &from, (nudge, forfeit)),
        Command::Store { action } => store_action(action),
        Command::Play {
            start,
            side,
            opponent,
            save,
        } => super::play::play(start_of(&start)?, side, opponent, save.as_deref()),
        Command::Hint {
            file,
            opponent,
            json,
        } => super::play::hint(&read_sheet(&file)?, opponent, json),
        Command::Tournament {
            rules,
            a,
            b,
            games,
            seed,
        } => {
            let rules = rules_of(&rules)?;
            let (a, b) = (
                super::solve::with_tables(a, &rules)?,
                super::solve::with_tables(b, &rules)?,
            );
            super::play::tournament(rules, a, b, games, seed)
        }
        Command::Rules {
            ruleset: Some(ruleset),
            variant: Some(variant),
        } => print_rules(&mancala::guide::rules_text_of(&with_variant(
            ruleset,
            Some(variant),
        )?)),
        Command::Rules { ruleset, .. } => print_rules(&mancala::guide::rules_text(ruleset)),
        Command::Solve {
            file,
            json,
            verbose,
            memory,
            proof_numbers,
            at_least,
            search,
        } => super::solve::solve(
            &read_sheet(&file)?,
            json,
            super::solve::SolveOptions {
                verbose,
                memory,
                proof_numbers,
                at_least,
            },
            &search,
        ),
        Command::Analyze { file, json, search } => {
            super::solve::analyze_game(&read_sheet(&file)?, json, &search)
        }
        Command::Tables {
            command:
                TablesCommand::Build {
                    ruleset,
                    stones_in_pits,
                    variant,
                    tables,
                    memory,
                },
        } => super::solve::build_tables(
            with_variant(ruleset, variant)?,
            stones_in_pits,
            &tables,
            memory,
        ),
        Command::Tables {
            command:
                TablesCommand::Check {
                    ruleset,
                    variant,
                    tables,
                },
        } => super::solve::check_tables(with_variant(ruleset, variant)?, tables.as_deref()),
    }
}

/// `ruleset`'s rules, with `variant` if one is named.
fn with_variant(ruleset: Ruleset, variant: Option<String>) -> Result<Rules, Failure> {
    match variant {
        Some(variant) => ruleset
            .rules()
            .with_variant(&variant)
            .map_err(Failure::usage),
        None => Ok(ruleset.rules()),
    }
}

/// `mancala show`: a game sheet from a file or the store, as text or JSON.
fn show(
    file: Option<PathBuf>,
    game: Option<String>,
    store: Option<String>,
    json: bool,
) -> CliResult {
    let sheet = match (game, file) {
        (Some(id), _) => stored_sheet(&open_store_or_default(store)?, &id)?,
        (None, Some(file)) => checked_sheet(&file)?,
        (None, None) => return Err(Failure::usage("show needs a FILE or --game ID")),
    };
    if json {
        print(&(json_line(&sheet.game) + "\n"))
    } else {
        print(&sheet.to_string())
    }
}

/// The sheet in `file`, checked whole: its board against its log (as
/// every command reads a sheet) and its `Result:` line, if it shows one,
/// against the end the log reaches.
fn checked_sheet(file: &Path) -> Result<Sheet, Failure> {
    let (sheet, text) = read_sheet_and_text(file)?;
    let failed = |e: &str| Failure::data(format!("{}: {e}", display_path(file)));
    let result = |text: &str| -> Option<String> {
        let line = text.lines().find_map(|l| {
            let bare = l.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
            bare.starts_with("Result:").then_some(bare)
        })?;
        Some(line.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    match (result(&text), result(&sheet.to_string())) {
        (Some(written), None) => Err(failed(&format!(
            "the sheet shows '{written}', but its game is not over"
        ))),
        (Some(written), Some(drawn)) if written != drawn => Err(failed(&format!(
            "the sheet shows '{written}', but its log ends '{drawn}'"
        ))),
        _ => Ok(sheet),
    }
}

/// `mancala mail`: the one mail on standard input.
fn mail(referee: RefereeArgs) -> CliResult {
    let raw = read_capped(referee.max_size)?;
    with_referee(referee, |referee, postbox, max_size| {
        let letter = Letter::read_capped(&raw, max_size, referee.identity());
        match referee.deliver(&letter, postbox) {
            Ok(report) => {
                log_report(&report);
                Ok(())
            }
            Err(e) => Err(tempfail(&e)),
        }
    })
}

/// `mancala maildir`: every new message of a Maildir, each logged; those
/// that could not be handled stay for the next run (exit 75).
fn maildir_run(dir: &Path, referee: RefereeArgs) -> CliResult {
    with_referee(referee, |referee, postbox, max_size| {
        let run = maildir::handle(dir, referee, postbox, max_size)
            .map_err(|e| Failure::io(dir.display(), &e))?;
        for (name, report) in &run.handled {
            log_report(&Report {
                summary: format!("{name}: {}", report.summary),
                ..report.clone()
            });
        }
        for (name, error) in &run.kept {
            log(&format!("{name}: kept in new/ for the next run: {error}"));
        }
        for (name, why) in &run.skipped {
            log(&format!("{name}: {why}"));
        }
        // An unreadable message is one still to handle; a folder is none.
        let unread = run.skipped.iter().filter(|(_, why)| why.is_a_message());
        match run.kept.len() + unread.count() {
            0 => Ok(()),
            n => Err(Failure::tempfail(format!(
                "{n} message(s) stay in new/ for the next run"
            ))),
        }
    })
}

/// The rules as plain text at a terminal; their Markdown into a pipe or
/// a file (`mancala rules > rules.md`).
fn print_rules(markdown: &str) -> CliResult {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        print(&super::plain::plain(markdown))
    } else {
        print(markdown)
    }
}

/// The rules the arguments name: the game, its stones, pits and variant.
fn rules_of(args: &RulesArgs) -> Result<Rules, Failure> {
    let rules = args
        .ruleset
        .configure(args.stones, args.variant.as_deref())
        .map_err(Failure::usage)?;
    match args.pits {
        Some(pits) => rules.with_pits(pits).map_err(Failure::usage),
        None => Ok(rules),
    }
}

/// The position a new game starts from: the usual start, or the one that
/// `--position` (and `--stores`) set up, refused with every reason when the
/// game cannot have it.
fn start_of(args: &StartArgs) -> Result<Position, Failure> {
    let rules = rules_of(&args.rules)?;
    let Some(text) = &args.position else {
        return Ok(Position::start(rules, args.first));
    };
    let (south, north) =
        sheet::parse_rows(text).map_err(|e| Failure::usage(format!("--position: {e}")))?;
    let stores = match &args.stores {
        Some(text) => {
            Some(sheet::parse_pair(text).map_err(|e| Failure::usage(format!("--stores: {e}")))?)
        }
        None => None,
    };
    Position::set_up(rules, &south, &north, stores, args.first).map_err(|e| {
        Failure::usage(format!(
            "--position: {} cannot start from this position: {e}",
            rules.ruleset
        ))
    })
}

pub(super) fn read_sheet(file: &Path) -> Result<Sheet, Failure> {
    read_sheet_and_text(file).map(|(sheet, _)| sheet)
}

/// The sheet in `file`, and the text it was read from.
fn read_sheet_and_text(file: &Path) -> Result<(Sheet, String), Failure> {
    let text = read_input(file)?;
    let sheet =
        Sheet::parse(&text).map_err(|e| Failure::data(format!("{}: {e}", display_path(file))))?;
    Ok((sheet, text))
}

/// The turns written as arguments, one an argument: `c`, or `c-f` for a
/// sowing and the bonus sowing it earns.
fn turns_of(moves: &[String], rules: &Rules) -> Result<Vec<Vec<Pit>>, Failure> {
    moves
        .iter()
        .map(|m| match super::sowings_in(m, rules) {
            Ok(turn) if turn.is_empty() => Err(Failure::data(format!("'{m}' names no pit"))),
            read => read.map_err(Failure::data),
        })
        .collect()
}

/// Plays `turn` for the side to move, whole or not at all.
fn play_turn(game: &mut Game, turn: &[Pit]) -> Result<(), String> {
    let side = game.to_move().ok_or("the game is over")?;
    game.play_turn(side, turn)
        .map(drop)
        .map_err(|e| e.to_string())
}

fn play_moves(file: &Path, moves: &[String], in_place: bool) -> CliResult {
    let mut sheet = read_sheet(file)?;
    for turn in turns_of(moves, sheet.game.rules())? {
        let line = sheet.log_line_awaited();
        play_turn(&mut sheet.game, &turn)
            .map_err(|e| Failure::data(format!("move {line}: {e}")))?;
    }
    let text = sheet.to_string();
    if in_place && file != Path::new("-") {
        rewrite_sheet(file, &text)
    } else {
        print(&text)
    }
}

/// Writes `text` over the sheet `file` atomically: through a symbolic
/// link to the file it names, keeping that file's permissions (a sheet
/// shared with a group stays shared).
fn rewrite_sheet(file: &Path, text: &str) -> CliResult {
    let failed = |e: std::io::Error| Failure::io(file.display(), &e);
    let target = std::fs::canonicalize(file).map_err(failed)?;
    let permissions = std::fs::metadata(&target).map_err(failed)?.permissions();
    let dir = target.parent().unwrap_or(Path::new("/"));
    mancala::files::write_atomically_with(dir, &target, |mut temp| {
        temp.write_all(text.as_bytes())?;
        temp.set_permissions(permissions)
    })
    .and_then(|written| written)
    .map_err(failed)
}

fn json_line(game: &Game) -> String {
    // Serialising plain numbers and strings cannot fail.
    serde_json::to_string(&PositionJson::of(game)).unwrap_or_default()
}

fn replay(start: Position, moves: &[String], json: bool) -> CliResult {
    let turns = turns_of(moves, start.rules())?;
    let mut game = Game::from_position(start);
    let mut out = String::new();
    let show = |game: &Game, out: &mut String| {
        if json {
            out.push_str(&json_line(game));
            out.push('\n');
        } else {
            let _ = writeln!(out, "{}", sheet::describe_position(game));
        }
    };
    show(&game, &mut out);
    for (i, turn) in turns.iter().enumerate() {
        // The turn is checked whole first, then shown sowing by sowing.
        if let Err(e) = play_turn(&mut game.clone(), turn) {
            print(&out)?;
            return Err(Failure::data(format!("turn {}: {e}", i + 1)));
        }
        for &pit in turn {
            game.play_unchecked(pit);
            show(&game, &mut out);
        }
        // Print as we go on long replays, so a pipe sees progress.
        if out.len() > 1 << 16 {
            print(&std::mem::take(&mut out))?;
        }
    }
    print(&out)
}

/// The referee the arguments ask for (hosted on a store, or on sheets
/// alone) and its postbox, handed to `work`. Exit 0 once a mail is handled
/// (answered, refused, or rightly ignored), 75 when the store or a send
/// failed, so the MTA keeps the mail and tries again; the retry finishes it.
fn with_referee(
    args: super::args::RefereeArgs,
    work: impl FnOnce(&dyn Referee, &Postbox, usize) -> CliResult,
) -> CliResult {
    warn_if_thrown_away(&args.send);
    let identity = Identity::new(&args.from);
    let postbox = Postbox {
        transport: args.send,
        identity: identity.clone(),
    };
    if args.no_store {
        work(&SheetReferee { identity }, &postbox, args.max_size)
    } else {
        let store = open_store_or_default(args.store)?;
        work(&HostedReferee { identity, store }, &postbox, args.max_size)
    }
}

/// Says so when `--send stdout` writes into /dev/null: every reply is
/// thrown away and marked sent. Said, not refused: a closed standard
/// output (which std's start opens on /dev/null, read and write) cannot be
/// told from a `1<>/dev/null`, a systemd `StandardOutput=null` or a
/// Python `DEVNULL` of one's own, and those throw the replies away on
/// purpose, as a `>/dev/null` does.
fn warn_if_thrown_away(send: &Transport) {
    if *send == Transport::Stdout && stdout_is_null() {
        log(
            "- --send stdout, and standard output is /dev/null: the replies are thrown \
             away; to send them, --send dir:PATH, sendmail or smtp://...",
        );
    }
}

#[cfg(unix)]
fn stdout_is_null() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let out = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| std::fs::File::from(fd).metadata());
    match (out, std::fs::metadata("/dev/null")) {
        (Ok(out), Ok(null)) => out.file_type().is_char_device() && out.rdev() == null.rdev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn stdout_is_null() -> bool {
    false
}

pub(super) fn log_report(report: &Report) {
    let game = report.game.as_deref().unwrap_or("-");
    log(&format!("{game} {}", report.summary));
    for (address, why) in &report.refused {
        log(&format!(
            "{game} a reply to {address} was refused for good: {why}"
        ));
    }
}

pub(super) fn tempfail(error: &DeliveryError) -> Failure {
    let then = if error.needs_operator() {
        "the mail is kept: mend the store, and the MTA's next try finishes it"
    } else {
        "the mail is kept: try again later"
    };
    // As every line of the referee's log: the time, then the game (unknown here).
    let now = mancala::mail::transport::timestamp(std::time::SystemTime::now());
    Failure::tempfail(format!("{now} - {error}; {then}"))
}

/// The store named, else the default one.
fn store_location(named: Option<String>) -> String {
    named.unwrap_or_else(|| Store::default_location().display().to_string())
}

pub(super) fn open_store_or_default(named: Option<String>) -> Result<Store, Failure> {
    open_store(&store_location(named))
}

fn stored_sheet(store: &Store, id: &str) -> Result<Sheet, Failure> {
    let no_game = || Failure::data(format!("no game '{id}' in {}", store.location()));
    let id = GameId::parse(id).ok_or_else(no_game)?;
    let record = store
        .load_game(&id)
        .map_err(Failure::data)?
        .ok_or_else(no_game)?;
    mancala::hosted::record_sheet(&record).map_err(|e| Failure::data(format!("game {id}: {e}")))
}

/// The games `mancala games` shows unless told `--all`.
const GAMES_SHOWN: usize = 20;

/// The store named (else the default one) if there is one: a listing of a
/// store not yet made makes nothing.
fn existing_store(named: Option<String>) -> Result<Option<Store>, Failure> {
    let location = store_location(named);
    let path = Path::new(&location);
    // (A folder store beside is opened, to be refused with the command that moves it.)
    let beside_old = path
        .parent()
        .is_some_and(|folder| folder.join("key").is_file());
    if location.contains("://") || path.exists() || beside_old {
        open_store(&location).map(Some)
    } else {
        Ok(None)
    }
}

/// The newest games under way (invited, or playing and not over), from
/// the index, so that its cost does not grow with the store; `--all`
/// reads every game, finished ones too.
fn list_games(listing: Listing) -> CliResult {
    let Listing { store, json, all } = listing;
    let shown = store_location(store.dir.clone());
    let empty = || print(&format!("No games in {shown} yet.\n"));
    let Some(store) = existing_store(store.dir)? else {
        return empty();
    };
    let (mut listing, total) = if all {
        let mut listing = store.list().map_err(Failure::data)?;
        listing.games.reverse(); // newest first, as the games under way
        let total = listing.games.len();
        (listing, total)
    } else {
        store.under_way(Some(GAMES_SHOWN)).map_err(Failure::data)?
    };
    let nothing = listing.games.is_empty() && listing.unreadable.is_empty();
    if nothing && store.is_empty().map_err(Failure::data)? {
        return empty();
    }
    let mut unreadable: Vec<String> = listing.unreadable.iter().map(ToString::to_string).collect();
    let mut rows = Vec::new();
    for record in std::mem::take(&mut listing.games) {
        match record.game() {
            Ok(game) => rows.push((record, game)),
            Err(e) => unreadable.push(format!("game {}: {e}", record.id)),
        }
    }
    let out = if json {
        rows.iter()
            .map(|(record, game)| game_json(record, game) + "\n")
            .collect()
    } else if rows.is_empty() {
        format!("No games under way in {shown}.\n")
    } else {
        games_table(&rows)
    };
    print(&out)?;
    if !all && total > rows.len() + unreadable.len() {
        let note = format!(
            "(The newest {} of {total} games under way; `mancala games --all` lists every game, finished ones too.)",
            rows.len()
        );
        if json {
            log(&note);
        } else {
            print(&format!("\n{note}\n"))?;
        }
    }
    if unreadable.is_empty() {
        return Ok(());
    }
    for line in &unreadable {
        log(line);
    }
    Err(Failure::data(format!(
        "{} game file(s) cannot be read",
        unreadable.len()
    )))
}

/// A game as `mancala games --json` writes it: the position, the players
/// and where it stands (`finished` once the board says it is over).
fn game_json(record: &mancala::store::GameRecord, game: &Game) -> String {
    let mut value = serde_json::to_value(PositionJson::of(game)).unwrap_or_default();
    value["id"] = record.id.to_string().into();
    value["south_player"] = serde_json::to_value(&record.south).unwrap_or_default();
    value["north_player"] = serde_json::to_value(&record.north).unwrap_or_default();
    value["standing"] = serde_json::to_value(record.standing).unwrap_or_default();
    if record.is_playing() && game.is_over() {
        value["standing"]["state"] = "finished".into();
    }
    value["last_activity"] = record.last_activity.into();
    value.to_string()
}

/// The games as aligned columns under a heading.
fn games_table(rows: &[(mancala::store::GameRecord, Game)]) -> String {
    // A name from a damaged store must not draw on the terminal, nor one
    // long name push every column off the screen.
    let clean =
        |n: &str, most| -> String { n.chars().filter(|c| !c.is_control()).take(most).collect() };
    let name = |n: &str| clean(n, 24);
    let lines: Vec<[String; 5]> = rows
        .iter()
        .map(|(record, game)| {
            [
                record.id.to_string(),
                record.ruleset.as_str().to_string(),
                name(&record.south.name),
                name(&record.north.name),
                // A state names a player: "waiting for Bob to accept".
                clean(&mancala::hosted::summary(record, game), 24 + 30),
            ]
        })
        .collect();
    let heading = ["game", "ruleset", "south", "north", "state"].map(String::from);
    let mut widths = [0; 5];
    for line in std::iter::once(&heading).chain(&lines) {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in std::iter::once(&heading).chain(&lines) {
        let cells: Vec<String> = (line.iter().zip(widths))
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// The ratings `mancala ratings` shows of each game unless told `--all`.
const RATINGS_SHOWN: usize = 20;

fn list_ratings(listing: Listing, ruleset: Option<mancala::engine::Ruleset>) -> CliResult {
    let Listing { store, json, all } = listing;
    let dir = store.dir;
    let (list, cut) = match existing_store(dir)? {
        None => (Vec::new(), false),
        Some(store) if all => (store.ratings(ruleset).map_err(Failure::data)?, false),
        Some(store) => {
            let leaders =
                (store.leaders(ruleset, RATINGS_SHOWN, None, None)).map_err(Failure::data)?;
            (leaders.list, leaders.cut)
        }
    };
    let note = format!(
        "(The best {RATINGS_SHOWN} of each game; `mancala ratings --all` lists every player.)"
    );
    if !json {
        let mut text = mancala::mail::compose::ratings_table(&list);
        if cut {
            let _ = writeln!(text, "\n{note}");
        }
        return print(&text);
    }
    let mut out = String::new();
    for rating in &list {
        out.push_str(&serde_json::to_string(rating).map_err(Failure::data)?);
        out.push('\n');
    }
    print(&out)?;
    if cut {
        log(&note);
    }
    Ok(())
}

/// `mancala remind`: its durations checked, and where the mail goes,
/// before the store is opened.
fn remind(
    store: Option<String>,
    send: Transport,
    from: &str,
    (nudge, forfeit): (u64, u64),
) -> CliResult {
    use mancala::mail::hosted::Reminder;
    if forfeit < nudge {
        return Err(Failure::usage(format!(
            "--forfeit ({}) is shorter than --nudge ({}): a player would forfeit before \
             being reminded; give a --forfeit at least as long as --nudge",
            super::args::show_duration(forfeit),
            super::args::show_duration(nudge)
        )));
    }
    warn_if_thrown_away(&send);
    let referee = HostedReferee::new(from, open_store_or_default(store)?);
    let postbox = Postbox {
        transport: send,
        identity: referee.identity.clone(),
    };
    let run = referee
        .remind(mancala::store::now(), nudge, forfeit, &postbox)
        .map_err(|e| tempfail(&e))?;
    for what in &run.done {
        log(&what.to_string());
    }
    for problem in &run.problems {
        log(&problem.to_string());
    }
    let count = |f: fn(&Reminder) -> bool| run.done.iter().filter(|r| f(r)).count();
    let mut skips = run.skipped.clone();
    skips.sort_unstable();
    let why: Vec<String> = skips
        .chunk_by(|a, b| a == b)
        .map(|same| format!("{} {}", same.len(), same[0]))
        .collect();
    let why = match why.is_empty() {
        true => String::new(),
        false => format!(" ({})", why.join(", ")),
    };
    log(&format!(
        "- remind: {} reminded, {} forfeited, {} with notices resent, {} left alone{why}, \
         {} not handled",
        count(|r| matches!(r, Reminder::Nudged { .. })),
        count(|r| matches!(r, Reminder::Forfeited { .. })),
        count(|r| matches!(r, Reminder::Resent { .. })),
        run.skipped.len(),
        run.problems.len()
    ));
    match run.problems.len() {
        0 => Ok(()),
        n => Err(Failure::tempfail(format!(
            "{n} game(s) could not be handled; the next run tries them again"
        ))),
    }
}

fn open_store(location: &str) -> Result<Store, Failure> {
    Store::open(location).map_err(|e| Failure::tempfail(e.to_string()))
}

/// `mancala store import` and `backup`.
fn store_action(action: super::args::StoreAction) -> CliResult {
    use super::args::StoreAction;
    match action {
        StoreAction::Import { folder: dir, store } => {
            let target = store_location(store.dir);
            let done = Store::import(&dir, &target).map_err(|e| match e {
                mancala::store::ImportError::Store(e) => Failure::tempfail(e.to_string()),
                unreadable => Failure::data(unreadable.to_string()),
            })?;
            log(&format!(
                "- imported {} into {target}: {} games ({} there already), {} senders, {} replies owed",
                dir.display(),
                done.games,
                done.present,
                done.senders,
                done.replies_owed
            ));
            Ok(())
        }
        StoreAction::Backup { file, store } => {
            if file.exists() {
                return Err(Failure::usage(format!(
                    "{} exists: name a new file for the copy",
                    file.display()
                )));
            }
            let store = open_store_or_default(store.dir)?;
            store
                .backup(&file)
                .map_err(|e| Failure::tempfail(e.to_string()))?;
            log(&format!(
                "- {} copied to {}",
                store.location(),
                file.display()
            ));
            Ok(())
        }
    }
}

pub(super) fn log(line: &str) {
    use std::io::Write;
    let now = mancala::mail::transport::timestamp(std::time::SystemTime::now());
    // One write, so that lines of concurrent referees never interleave.
    let _ = std::io::stderr().write_all(format!("mancala: {now} {line}\n").as_bytes());
}

/// At most `max + 1` bytes of `input`: more than `max` says it is over.
pub(super) fn read_up_to(input: &mut impl std::io::Read, max: usize) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let mut raw = Vec::new();
    input
        .by_ref()
        .take(max as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|e| Failure::tempfail(format!("standard input: {e}")))?;
    Ok(raw)
}

/// Standard input, up to `max` bytes; past that the rest is read and
/// dropped (so the MTA's pipe does not break), never kept.
fn read_capped(max: usize) -> Result<Vec<u8>, Failure> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let raw = read_up_to(&mut input, max)?;
    if raw.len() > max {
        std::io::copy(&mut input, &mut std::io::sink())
            .map_err(|e| Failure::tempfail(format!("standard input: {e}")))?;
    }
    Ok(raw)
}
