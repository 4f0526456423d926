//! A ruleset is one entry in one table (`src/engine/rules.rs`): every list
//! of games the program shows, and every per-game default, is derived from
//! `Ruleset::ALL` and the entries, and no other source file names the
//! games one by one.

mod common;

use common::{repo, stderr, stdout};
use mancala::engine::{DefaultOpponent, Ruleset};
use mancala::opponent::Opponent;

fn mancala(args: &[&str]) -> std::process::Output {
    common::run(args, b"")
}

#[test]
fn the_command_line_lists_every_ruleset_of_the_table() {
    let about = stdout(&mancala(&["--help"]));
    for r in Ruleset::ALL {
        assert!(about.contains(r.title()), "--help lacks {r}:\n{about}");
    }
    // Every command that takes a game lists them all as its values.
    for command in ["new", "replay", "play", "tournament", "rules"] {
        let help = stdout(&mancala(&[command, "--help"]));
        for r in Ruleset::ALL {
            assert!(
                help.contains(&format!("- {}:", r.as_str())),
                "`{command} --help` lacks {r}:\n{help}"
            );
        }
    }
    // The variants, each under its game.
    let help = stdout(&mancala(&["new", "--help"]));
    for r in Ruleset::ALL {
        for v in r.spec().variants {
            assert!(help.contains(v.name), "new --help lacks {r}'s {}", v.name);
        }
    }
    // A game it does not know: the error names every one.
    let out = mancala(&["new", "chess"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for r in Ruleset::ALL {
        assert!(err.contains(r.as_str()), "{err}");
    }
    // And every name it lists is taken.
    for r in Ruleset::ALL {
        let out = mancala(&["new", r.as_str()]);
        assert!(out.status.success(), "new {r}: {}", stderr(&out));
        assert!(stdout(&out).starts_with(&format!("Game: {r}, ")));
    }
}

#[test]
fn the_mail_help_lists_every_ruleset_and_variant_of_the_table() {
    let help = mancala::mail::hosted::help_text(None);
    let listed = help
        .split("The games: ")
        .nth(1)
        .expect("a line of the games")
        .replace('\n', " ");
    for r in Ruleset::ALL {
        assert!(listed.contains(r.as_str()), "mail help lacks {r}:\n{help}");
        for v in r.spec().variants {
            assert!(
                listed.contains(v.name),
                "mail help lacks {}:\n{help}",
                v.name
            );
        }
        // The help for one game has its summary, from the same entry.
        assert!(mancala::mail::hosted::help_text(Some(r)).contains(r.spec().summary));
    }
}

#[test]
fn rules_prints_every_rulesets_text_from_the_table() {
    let all = stdout(&mancala(&["rules"]));
    for r in Ruleset::ALL {
        assert!(all.contains(r.spec().guide), "`rules` lacks {r}'s text");
        let one = stdout(&mancala(&["rules", r.as_str()]));
        assert_eq!(one, r.spec().guide, "`rules {r}`");
        assert!(
            one.contains(&format!("(`{}`)", r.as_str())),
            "{r}'s text names it"
        );
    }
    // A variant's rules: the game's text, and which variant is played.
    let out = stdout(&mancala(&["rules", "waurie", "--variant", "both-stores"]));
    assert!(out.starts_with(Ruleset::Waurie.spec().guide));
    assert!(
        out.contains("Played here as the variant `both-stores`"),
        "{out}"
    );
    let out = mancala(&["rules", "mankala", "--variant", "both-stores"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("mankala is played one way only"));
}

#[test]
fn the_opponent_defaults_come_from_the_table() {
    let help = stdout(&mancala(&["play", "--help"]));
    for r in Ruleset::ALL {
        let expected = match r.spec().opponent {
            DefaultOpponent::Greedy => "greedy",
            DefaultOpponent::Strong => "strong",
        };
        assert_eq!(Opponent::default_for(r).to_string(), expected, "{r}");
        assert!(help.contains(r.as_str()), "play --help names {r}'s default");
    }
    // `play` says which computer it plays, the default for the game.
    let out = common::run(&["play", "mankala"], b"quit\n");
    assert!(stdout(&out).starts_with("Mankala against greedy"));
    let out = common::run(&["play", "kalah"], b"quit\n");
    assert!(stdout(&out).starts_with("Kalah against strong"));
}

/// The code of a source file, without its unit tests.
fn code_of(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_but_the_table_names_the_games_one_by_one() {
    let mut files = Vec::new();
    sources(&repo("src"), &mut files);
    assert!(files.len() > 20, "the sources were found");
    let table = repo("src/engine/rules.rs");
    let mut problems = Vec::new();
    for file in files.iter().filter(|f| **f != table) {
        let code = code_of(file);
        let name = file.strip_prefix(repo("")).unwrap().display().to_string();
        for (number, line) in code.lines().enumerate() {
            // A per-ruleset match arm: `Ruleset::Waurie =>` or `Ruleset::Wari |`.
            let arm = Ruleset::ALL.iter().any(|r| {
                let variant = format!("{r:?}");
                [" =>", " |"]
                    .iter()
                    .any(|after| line.contains(&format!("Ruleset::{variant}{after}")))
            });
            // A hand-written list: two games' names in one line of text.
            let names = Ruleset::ALL
                .iter()
                .filter(|r| {
                    line.contains(&format!("{}, ", r.as_str()))
                        || line.contains(&format!("{} or ", r.as_str()))
                        || line.contains(&format!("{}, ", r.title()))
                })
                .count();
            if arm || names >= 2 {
                problems.push(format!("{name}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "lists or matches of the rulesets outside the table:\n{}",
        problems.join("\n")
    );
}
