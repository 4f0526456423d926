//! Perfect play at the command line: `solve`, `analyze`, `tables build` and `tables check`,
//! thin over [`mancala::solve`].

use std::path::Path;

use mancala::engine::Rules;
use mancala::opponent::Opponent;
use mancala::sheet::Sheet;
use mancala::solve::{analyze, Budget, Proved, Solution, Solver, Tables};

use super::args::SearchArgs;
use super::{print, CliResult, Failure};

/// Where the tables of `rules` are in `dir`: `RULESET.tables`.
fn file_in(dir: &Path, rules: &Rules) -> std::path::PathBuf {
    dir.join(format!("{}.tables", Tables::game_name(rules)))
}

/// The tables of `rules`: `RULESET.tables` in `dir` when there is one, else
/// the built-in ones; `None` when neither has them. A `dir` that is not a
/// folder, or a file that cannot be read, is an error.
fn find(dir: Option<&Path>, rules: &Rules) -> Result<Option<Tables>, Failure> {
    let name = Tables::game_name(rules);
    if let Some(dir) = dir {
        if !dir.is_dir() {
            return Err(Failure {
                code: super::exit::NO_INPUT,
                message: format!("--tables {}: no such folder", dir.display()),
            });
        }
        let path = file_in(dir, rules);
        match std::fs::File::open(&path) {
            Ok(mut file) => {
                return Tables::read(rules, &mut file)
                    .map(Some)
                    .map_err(|e| Failure::data(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::io(path.display(), &e)),
        }
    }
    Tables::built_in(rules).map_err(|e| Failure::data(format!("the built-in {name} tables: {e}")))
}

/// The tables the solver uses for `rules` (see [`find`]), or none, said
/// on standard error: a search without them is slower, never wrong.
fn tables_for(dir: Option<&Path>, rules: &Rules) -> Result<Option<Tables>, Failure> {
    let tables = find(dir, rules)?;
    if tables.is_none() {
        eprintln!(
            "mancala: no endgame tables for {}: the search goes on without them \
             (see `mancala tables build --help`)",
            Tables::game_name(rules)
        );
    }
    Ok(tables)
}

/// The tables `--tables`/`--no-tables` ask for.
fn searched_with(search: &SearchArgs, rules: &Rules) -> Result<Option<Tables>, Failure> {
    match search.no_tables {
        true => Ok(None),
        false => tables_for(search.tables.as_deref(), rules),
    }
}

/// `opponent`, given the tables of `rules` (in `MANCALA_TABLES`, else
/// built in) if it plays perfectly, kept for the process's life.
pub fn with_tables(opponent: Opponent, rules: &Rules) -> Result<Opponent, Failure> {
    let Opponent::Perfect { nodes, .. } = opponent else {
        return Ok(opponent);
    };
    let dir = std::env::var_os("MANCALA_TABLES").map(std::path::PathBuf::from);
    let tables = tables_for(dir.as_deref(), rules)?;
    Ok(Opponent::Perfect {
        nodes,
        tables: tables.map(|t| &*Box::leak(Box::new(t))),
    })
}

fn json_of(solution: &Solution) -> serde_json::Value {
    let moves: serde_json::Map<String, serde_json::Value> = solution
        .moves
        .iter()
        .map(|(pit, v)| (pit.to_string(), (*v).into()))
        .collect();
    let mut value = serde_json::json!({
        "exact": solution.exact,
        "value": solution.value,
        "moves": moves,
        "nodes": solution.nodes,
    });
    if let Some(depth) = solution.depth {
        value["depth"] = depth.into();
    }
    value
}

/// How `mancala solve` searches, beside its tables and budget.
pub struct SolveOptions {
    /// Report each step on standard error.
    pub verbose: bool,
    /// Megabytes for the transposition table.
    pub memory: Option<usize>,
    /// Solve Waurie by df-pn.
    pub proof_numbers: bool,
    /// Only prove whether the value reaches this bound.
    pub at_least: Option<i32>,
}

/// `mancala solve`.
pub fn solve(sheet: &Sheet, json: bool, options: SolveOptions, search: &SearchArgs) -> CliResult {
    let SolveOptions {
        verbose,
        memory,
        proof_numbers,
        at_least,
    } = options;
    if sheet.game.is_over() {
        return Err(Failure::data("the game is over: there is no move to value"));
    }
    let position = sheet.game.position();
    let tables = searched_with(search, position.rules())?;
    let mut solver = match memory {
        Some(mb) => Solver::with_memory(tables.as_ref(), search.nodes, mb)
            .map_err(|e| Failure::data(format!("a transposition table of {mb} MB: {e}")))?,
        None => Solver::new(tables.as_ref(), search.nodes),
    };
    if proof_numbers {
        solver = solver.by_proof_numbers();
    }
    // Every core, as the tables are built: each search on all of them.
    solver = solver.on_cores(mancala::solve::tables::default_threads());
    if verbose {
        let reach = tables.as_ref().map_or("no tables".to_string(), |t| {
            format!("tables to {} stones in pits", t.max_stones())
        });
        eprintln!(
            "mancala: {reach}, a transposition table of at most {} KB",
            solver.memory() >> 10
        );
        solver = solver.traced(|step| eprintln!("mancala: {step}"));
    }
    if let Some(bound) = at_least {
        return bound_test(sheet, json, solver, bound, search.nodes);
    }
    let solution = solver.solve_game(&sheet.game);
    if json {
        return print(&format!("{}\n", json_of(&solution)));
    }
    let side = position.to_move();
    let name = sheet.name(side);
    // Worded from `exact`, as the JSON says it: the two never disagree.
    let mut out = match (solution.exact, solution.depth) {
        (true, _) => format!("exact value for {name} ({side}) to move: {:+}\n", solution.value),
        (false, Some(depth)) => format!(
            "not exact (out of reach within {} positions): {:+} for {name} ({side}) by a search of depth {depth}\n",
            search.nodes, solution.value,
        ),
        (false, None) => format!(
            "not exact (play can repeat a position here, and the search of the game's \
             history did not finish within {} positions): {:+} for {name} ({side}), \
             each move valued as a fresh start by the tables\n",
            search.nodes, solution.value,
        ),
    };
    for (pit, value) in &solution.moves {
        out.push_str(&format!("  {pit}: {value:+}\n"));
    }
    print(&out)
}

/// `mancala solve --at-least V`: whether the value reaches `bound`, and
/// each first move's proven bound.
fn bound_test(sheet: &Sheet, json: bool, mut solver: Solver, bound: i32, nodes: u64) -> CliResult {
    let position = sheet.game.position();
    let Some(test) = solver.at_least_in(&sheet.game, bound) else {
        // Out of reach, as an inexact solve is: an answer, not an error.
        return print(&match json {
            true => format!(
                "{}\n",
                serde_json::json!({ "bound": null, "nodes": solver.nodes })
            ),
            false => format!(
                "not proven within {nodes} positions (or play can cycle here, or the \
                 game has no exact search)\n"
            ),
        });
    };
    let proved = Proved::of_test(bound, test.holds);
    if json {
        let moves: serde_json::Map<String, serde_json::Value> = test
            .moves
            .iter()
            .map(|(pit, p)| (pit.to_string(), json_of_bound(*p)))
            .collect();
        let value = serde_json::json!({
            "bound": json_of_bound(proved),
            "moves": moves,
            "nodes": solver.nodes,
        });
        return print(&format!("{value}\n"));
    }
    let side = position.to_move();
    let mut out = format!(
        "value for {} ({side}) to move: {proved}\n",
        sheet.name(side)
    );
    for (pit, p) in &test.moves {
        out.push_str(&format!("  {pit}: {p}\n"));
    }
    print(&out)
}

fn json_of_bound(proved: Proved) -> serde_json::Value {
    match proved {
        Proved::AtLeast(v) => serde_json::json!({ "at_least": v }),
        Proved::AtMost(v) => serde_json::json!({ "at_most": v }),
    }
}

pub fn analyze_game(sheet: &Sheet, json: bool, search: &SearchArgs) -> CliResult {
    let tables = searched_with(search, sheet.game.rules())?;
    let analysis = analyze(&sheet.game, tables.as_ref(), search.nodes);
    if json {
        let text = serde_json::to_string(&analysis).map_err(Failure::data)?;
        return print(&format!("{text}\n"));
    }
    let out = analysis.text(|side| sheet.name(side).to_string());
    match out.is_empty() {
        true => print("no turn played yet: nothing to analyze\n"),
        false => print(&out),
    }
}

/// `mancala tables build`: the tables of `rules` to `stones` in `dir`,
/// the finished layers read back from the file being written when they
/// do not fit in `memory` MB (by default three quarters of the memory
/// the system has available).
pub fn build_tables(rules: Rules, stones: usize, dir: &Path, memory: Option<usize>) -> CliResult {
    let game = Tables::game_name(&rules);
    let bar = progress_bar(format!("{game} up to {stones} stones in pits"))?;
    let started = std::time::Instant::now();
    let mut track = |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let budget = Budget {
        threads: mancala::solve::tables::default_threads(),
        memory: memory.map_or_else(available_memory, |mb| mb.saturating_mul(1 << 20)),
    };
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir.display(), &e))?;
    let path = file_in(dir, &rules);
    // Tables already built to fewer stones, in the folder or built in, are
    // extended, not built again. (A file that cannot be read is built anew
    // over.)
    let old = std::fs::File::open(&path).ok();
    let had = old
        .as_ref()
        .and_then(|file| Tables::stones_in(&rules, file).ok());
    // Deeper tables hold the ones asked for: never rebuilt smaller over them.
    if let Some(had) = had.filter(|&had| had >= stones) {
        return print(&format!(
            "{}: already tables to {had} stones in pits; nothing built\n",
            path.display()
        ));
    }
    let old = old.filter(|_| had.is_some());
    // (Read only when there is no file to extend.)
    let built_in = match old {
        Some(_) => None,
        None => Tables::built_in(&rules)
            .ok()
            .flatten()
            .filter(|tables| tables.max_stones() < stones),
    };
    let mut seconds = 0.0;
    let written = mancala::files::write_atomically_with(dir, &path, |file| {
        let written = match (&old, built_in) {
            (Some(old), _) => Tables::extend_file(&rules, old, stones, budget, file, &mut track),
            (None, Some(tables)) => tables.build_file(stones, budget, file, &mut track),
            (None, None) => {
                Tables::new(&rules).and_then(|t| t.build_file(stones, budget, file, &mut track))
            }
        };
        bar.finish();
        seconds = started.elapsed().as_secs_f64();
        written
    })
    .map_err(|e| Failure::io(path.display(), &e))?
    .map_err(Failure::data)?;
    let built = written.positions - written.kept;
    let read_back = match written.on_disk {
        true => ", the finished layers read back from the file",
        false => "",
    };
    print(&format!(
        "{}: {} positions, {built} of them built in {seconds:.1} s ({:.0} a second{read_back}), {} bytes\n",
        path.display(),
        written.positions,
        built as f64 / seconds.max(1e-9),
        written.bytes
    ))
}

/// `mancala tables check`: every position of the tables the solver uses
/// for `rules` (`RULESET.tables` in `dir`, else the built-in ones) against
/// the engine's moves.
pub fn check_tables(rules: Rules, dir: Option<&Path>) -> CliResult {
    let game = Tables::game_name(&rules);
    let file = dir
        .map(|dir| file_in(dir, &rules))
        .filter(|file| file.exists());
    let what = match &file {
        Some(file) => file.display().to_string(),
        None => format!("the built-in {game} tables"),
    };
    let tables = find(dir, &rules)?.ok_or_else(|| Failure {
        code: super::exit::NO_INPUT,
        message: format!("no {game} tables to check: none built in, and none in --tables"),
    })?;
    let bar = progress_bar(format!("checking {what}"))?;
    let started = std::time::Instant::now();
    let checked = tables.check_against_engine(&|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish();
    let checked = checked.map_err(|found| Failure::data(format!("{what} are wrong at {found}")))?;
    print(&format!(
        "{what}, to {} stones in pits: all {checked} positions agree with the engine's moves \
         (those already over are the rules' to value) ({:.1} s)\n",
        tables.max_stones(),
        started.elapsed().as_secs_f64()
    ))
}

/// A bar for minutes of work over positions, drawn on standard error.
fn progress_bar(message: String) -> Result<indicatif::ProgressBar, Failure> {
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {pos}/{len} positions, {per_sec}, {eta} left",
        )
        .map_err(Failure::data)?
        .progress_chars("=> "),
    );
    bar.set_message(message);
    Ok(bar)
}

/// Three quarters of the memory the system says is available (all of
/// it, as far as a build is concerned, where it does not say).
fn available_memory() -> usize {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kb = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
        });
    kb.map_or(usize::MAX, |kb| kb.saturating_mul(1024) / 4 * 3)
}
