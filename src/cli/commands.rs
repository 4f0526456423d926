//! One function per command; each calls down into the library.

use std::fmt::Write as _;
use std::path::Path;

use mancala::engine::{Game, Rules, Ruleset, Side};
use mancala::mail::incoming::Incoming;
use mancala::mail::referee::{Answer, Referee};
use mancala::mail::transport::{self, Transport};
use mancala::sheet::{self, Players, PositionJson, Sheet};
use mancala::store::Store;

use super::args::{Args, Command};
use super::{display_path, print, read_input, CliResult, Failure};

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::New {
            ruleset,
            north,
            south,
            stones,
            first,
        } => {
            let rules = rules_for(ruleset, stones)?;
            let sheet = Sheet::with_first(rules, Players::named(&south, &north), first);
            print(&sheet.to_string())
        }
        Command::Move {
            file,
            moves,
            in_place,
        } => play_moves(&file, &moves, in_place),
        Command::Show {
            file,
            json,
            game,
            store,
        } => {
            let sheet = match (game, file) {
                (Some(id), _) => stored_sheet(&open_store_or_default(store)?, &id)?,
                (None, Some(file)) => read_sheet(&file)?,
                (None, None) => return Err(Failure::usage("show needs a FILE or --game ID")),
            };
            if json {
                print(&(json_line(&sheet.game) + "\n"))
            } else {
                print(&sheet.to_string())
            }
        }
        Command::Replay {
            ruleset,
            stones,
            first,
            moves,
            json,
        } => replay(rules_for(ruleset, stones)?, first, &moves, json),
        Command::Mail {
            send,
            from,
            max_size,
            store,
            no_store,
        } => {
            let referee = if no_store {
                Referee::new(&from)
            } else {
                Referee::with_store(&from, open_store_or_default(store)?)
            };
            referee_mail(&referee, &send, max_size)
        }
        Command::Games { store, json } => list_games(&open_store_or_default(store)?, json),
        Command::Remind {
            nudge,
            forfeit,
            store,
            send,
            from,
        } => {
            let referee = Referee::with_store(&from, open_store_or_default(store)?);
            remind(&referee, &send, nudge, forfeit)
        }
        Command::Play {
            ruleset,
            stones,
            side,
            first,
            opponent,
            save,
        } => super::play::play(
            rules_for(ruleset, stones)?,
            side,
            first,
            opponent,
            save.as_deref(),
        ),
        Command::Hint {
            file,
            opponent,
            json,
        } => super::play::hint(&read_sheet(&file)?, opponent, json),
        Command::Tournament {
            ruleset,
            a,
            b,
            games,
            stones,
            seed,
        } => super::play::tournament(rules_for(ruleset, stones)?, a, b, games, seed),
        Command::Rules { ruleset } => print(&mancala::guide::rules_text(ruleset)),
    }
}

fn rules_for(ruleset: Ruleset, stones: Option<u8>) -> Result<Rules, Failure> {
    match stones {
        Some(n) => ruleset.with_stones(n).map_err(Failure::usage),
        None => Ok(ruleset.rules()),
    }
}

fn read_sheet(file: &Path) -> Result<Sheet, Failure> {
    let text = read_input(file)?;
    Sheet::parse(&text).map_err(|e| Failure::data(format!("{}: {e}", display_path(file))))
}

/// The moves typed, split into sowings: `c-f d` is three.
fn sowings_of(moves: &[String]) -> Result<Vec<mancala::engine::Pit>, Failure> {
    let mut sowings = Vec::new();
    for m in moves {
        sowings.extend(sheet::parse_sowings(m).map_err(Failure::data)?);
    }
    Ok(sowings)
}

fn play_moves(file: &Path, moves: &[String], in_place: bool) -> CliResult {
    let mut sheet = read_sheet(file)?;
    for pit in sowings_of(moves)? {
        let line = sheet.log_line_awaited();
        sheet
            .game
            .play(pit)
            .map_err(|e| Failure::data(format!("move {line}: {e}")))?;
    }
    let text = sheet.to_string();
    if in_place && file != Path::new("-") {
        write_atomically(file, &text)
    } else {
        print(&text)
    }
}

/// Writes `text` beside `file`, syncs it, then renames it over `file`, so a
/// crash leaves the old sheet or the new one, never half of one.
fn write_atomically(file: &Path, text: &str) -> CliResult {
    use std::io::Write;
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut out = std::fs::File::create(&temp)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        std::fs::rename(&temp, file)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        Failure::io(file.display(), &e)
    })
}

fn json_line(game: &Game) -> String {
    // Serialising plain numbers and strings cannot fail.
    serde_json::to_string(&PositionJson::of(game)).unwrap_or_default()
}

fn replay(rules: Rules, first: Side, moves: &[String], json: bool) -> CliResult {
    let sowings = sowings_of(moves)?;
    let mut game = Game::new(rules, first);
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
    for (i, pit) in sowings.into_iter().enumerate() {
        if let Err(e) = game.play(pit) {
            print(&out)?;
            return Err(Failure::data(format!("sowing {}: {e}", i + 1)));
        }
        show(&game, &mut out);
        // Print as we go on long replays, so a pipe sees progress.
        if out.len() > 1 << 16 {
            print(&std::mem::take(&mut out))?;
        }
    }
    print(&out)
}

/// One mail in, its replies out. Every outcome but a failed send is
/// "handled" (exit 0); a failed send exits 75 so the MTA tries again.
fn referee_mail(referee: &Referee, send: &Transport, max_size: usize) -> CliResult {
    let (raw, oversized) = read_capped(max_size)?;
    let incoming = Incoming::parse(&raw);
    let answer = if oversized {
        referee.too_large(&incoming, max_size)
    } else {
        referee.answer(&incoming)
    };
    let (mail, summary, commit) = match answer {
        Answer::Ignore(reason) => {
            log(&reason);
            return Ok(());
        }
        Answer::Retry(reason) => {
            return Err(Failure {
                code: super::exit::TEMPFAIL,
                message: format!("{reason}; try again later"),
            })
        }
        Answer::Reply {
            mail,
            summary,
            commit,
        } => (mail, summary, commit),
    };
    let now = std::time::SystemTime::now();
    let mut messages = Vec::new();
    for out in &mail {
        match transport::build(referee, out, now) {
            Ok(message) => messages.push(message),
            // A bad address from the mail itself: trying again cannot help.
            Err(e) => log(&format!("reply not sent: {e}")),
        }
    }
    match send.send(referee, &messages, now) {
        Ok(()) => {
            log(&summary);
            if let Some(commit) = commit {
                // The replies are out; if this fails, a redelivery resends
                // them, and still moves nothing twice.
                if let Err(e) = referee.commit(&commit) {
                    log(&format!("replies sent, but not recorded as sent: {e}"));
                }
            }
            Ok(())
        }
        Err(e) => Err(Failure {
            code: if e.transient {
                super::exit::TEMPFAIL
            } else {
                super::exit::DATA
            },
            message: format!("reply not sent, try again later: {e}"),
        }),
    }
}

fn open_store_or_default(dir: Option<std::path::PathBuf>) -> Result<Store, Failure> {
    open_store(&dir.unwrap_or_else(Store::default_dir))
}

fn stored_sheet(store: &Store, id: &str) -> Result<Sheet, Failure> {
    let record = store
        .load(id)
        .map_err(Failure::data)?
        .ok_or_else(|| Failure::data(format!("no game '{id}' in {}", store.dir().display())))?;
    record
        .sheet()
        .map_err(|e| Failure::data(format!("game {id}: {e}")))
}

fn list_games(store: &Store, json: bool) -> CliResult {
    let mut out = String::new();
    for record in store.list().map_err(Failure::data)? {
        let Ok(sheet) = record.sheet() else { continue };
        if json {
            let mut value = serde_json::to_value(PositionJson::of(&sheet.game)).unwrap_or_default();
            value["id"] = record.id.clone().into();
            value["south_player"] = serde_json::to_value(&record.south).unwrap_or_default();
            value["north_player"] = serde_json::to_value(&record.north).unwrap_or_default();
            value["last_activity"] = record.last_activity.into();
            out.push_str(&value.to_string());
            out.push('\n');
        } else {
            let _ = writeln!(out, "{}", record.summary());
        }
    }
    print(&out)
}

fn remind(referee: &Referee, send: &Transport, nudge: u64, forfeit: u64) -> CliResult {
    let now = std::time::SystemTime::now();
    let done = referee
        .remind(mancala::store::now(), nudge, forfeit)
        .map_err(|e| Failure {
            code: super::exit::TEMPFAIL,
            message: e.to_string(),
        })?;
    for (what, mail, commit) in done {
        let messages: Vec<_> = mail
            .iter()
            .filter_map(|out| transport::build(referee, out, now).ok())
            .collect();
        // Not sent: the store keeps them, and the next run sends them again.
        send.send(referee, &messages, now).map_err(|e| Failure {
            code: super::exit::TEMPFAIL,
            message: format!("{what:?}: not sent: {e}"),
        })?;
        log(&format!("{what:?}"));
        if let Err(e) = referee.commit(&commit) {
            log(&format!("sent, but not recorded as sent: {e}"));
        }
    }
    Ok(())
}

fn open_store(dir: &Path) -> Result<mancala::store::Store, Failure> {
    mancala::store::Store::open(dir).map_err(|e| Failure {
        code: super::exit::TEMPFAIL,
        message: e.to_string(),
    })
}

fn log(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "mancala: {line}");
}

/// Standard input, up to `max` bytes; past that the rest is read and
/// dropped (so the MTA's pipe does not break), never kept.
fn read_capped(max: usize) -> Result<(Vec<u8>, bool), Failure> {
    use std::io::Read;
    let mut raw = Vec::new();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let tempfail = |e: std::io::Error| Failure {
        code: super::exit::TEMPFAIL,
        message: format!("standard input: {e}"),
    };
    input
        .by_ref()
        .take(max as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(tempfail)?;
    let oversized = raw.len() > max;
    if oversized {
        std::io::copy(&mut input, &mut std::io::sink()).map_err(tempfail)?;
    }
    Ok((raw, oversized))
}
