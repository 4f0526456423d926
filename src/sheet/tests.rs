//! The sheet read back from every way mail and editors mangle it.

use super::*;
use crate::engine::{Ruleset, Side};

const BROADCAST: &str = include_str!("../../tests/data/seed-000.txt");

fn sheet_after(ruleset: Ruleset, moves: &str) -> Sheet {
    let mut sheet = Sheet::new(ruleset.rules(), Players::named("Yourname", "Bill"));
    sheet.play(&parse_sowings(moves).unwrap()).unwrap();
    sheet
}

/// Why `text` is not read as a sheet.
fn refused(text: &str) -> String {
    Sheet::parse(text).unwrap_err().to_string()
}

/// Why the sheet after `moves` is not read once each `(from, to)` edit is
/// made (the first `from` becomes `to`).
fn refused_edited(ruleset: Ruleset, moves: &str, edits: &[(&str, &str)]) -> String {
    let mut text = sheet_after(ruleset, moves).to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "no {from:?} in {text}");
        text = text.replacen(from, to, 1);
    }
    refused(&text)
}

#[test]
fn the_broadcast_parses_as_the_super_wari_start() {
    let sheet = Sheet::parse(BROADCAST).unwrap();
    assert_eq!(sheet.game.rules().ruleset, Ruleset::SuperWari);
    assert_eq!(sheet.game.ply(), 0);
    assert_eq!(sheet.game.to_move(), Some(Side::South));
    assert_eq!(sheet.name(Side::North), "Bill");
    assert_eq!(sheet.name(Side::South), "Yourname");
}

#[test]
fn new_super_wari_prints_the_broadcasts_grid_and_log_heading() {
    let text = Sheet::new(
        Ruleset::SuperWari.rules(),
        Players::named("Yourname", "Bill"),
    )
    .to_string();
    let lines: Vec<&str> = BROADCAST.lines().collect();
    let grid_start = lines
        .iter()
        .position(|l| l.starts_with("   h    g"))
        .unwrap();
    // From the letters over the board to the letters under it.
    let grid = lines[grid_start..grid_start + 7].join("\n") + "\n";
    assert!(grid.ends_with("   a    b    c    d    e    f    g    h\n"));
    assert!(text.contains(&grid), "{text}");
    let log = lines[grid_start + 8..grid_start + 13].join("\n") + "\n";
    assert_eq!(log, "   Yourname  Bill\n1.    ?\n2.\n3.\n4.\n");
    assert!(text.contains(&log), "{text}");
}

#[test]
fn every_start_sheet_reads_back_as_written() {
    for ruleset in Ruleset::ALL {
        for first in Side::BOTH {
            let sheet = Sheet::with_first(ruleset.rules(), Players::named("Ann Lee", "Bo"), first);
            let text = sheet.to_string();
            let again = Sheet::parse(&text).unwrap_or_else(|e| panic!("{ruleset}: {e}\n{text}"));
            assert_eq!(again.to_string(), text);
            assert_eq!(again.game.first(), first);
        }
    }
}

#[test]
fn a_board_quoted_with_bars_is_weighed_against_one_quoted_with_marks() {
    // A thread: the newer board quoted with `| `, an older one with `> `.
    let quote = |sheet: &Sheet, mark: &str| -> String {
        sheet
            .to_string()
            .lines()
            .map(|l| format!("{mark}{l}\n"))
            .collect()
    };
    let (older, newer) = (
        sheet_after(Ruleset::Waurie, "c-f"),
        sheet_after(Ruleset::Waurie, "c-f a"),
    );
    for text in [
        format!("{}\n{}", quote(&newer, "| "), quote(&older, "> ")),
        format!("{}\n{}", quote(&older, "> "), quote(&newer, "| ")),
    ] {
        assert_eq!(
            Sheet::parse(&text).unwrap().game.ply(),
            newer.game.ply(),
            "{text}"
        );
    }
    // Two of one length that log different moves: neither is read.
    let other = sheet_after(Ruleset::Waurie, "c-f b");
    for (one, two) in [("> ", "| "), ("| ", "> "), ("> ", "> ")] {
        let text = format!("{}\n{}", quote(&newer, one), quote(&other, two));
        assert!(
            matches!(
                RawSheet::find(&text),
                Err(SheetError::SheetsDisagree { .. })
            ),
            "{text}"
        );
        let same = format!("{}\n{}", quote(&newer, one), quote(&newer, two));
        assert_eq!(Sheet::parse(&same).unwrap().game.ply(), newer.game.ply());
    }
    assert_eq!(
        refused(&format!("{}\n{}", quote(&newer, "> "), quote(&other, "> "))),
        "two sheets of this game in your mail log different moves (a and b), so neither was played: send one"
    );
    // The older one quoted with bars loses to the newer one.
    let text = format!("{}\n{}", quote(&older, "| "), quote(&newer, "> "));
    assert_eq!(
        Sheet::parse(&text).unwrap().game.ply(),
        newer.game.ply(),
        "{text}"
    );
}

#[test]
fn a_sheet_reads_back_from_any_quoting_and_spacing() {
    let sheet = sheet_after(Ruleset::Waurie, "c-f a");
    let text = sheet.to_string();
    let mangled: Vec<(&str, String)> = vec![
        (
            "> quoted",
            text.lines().map(|l| format!("> {l}\n")).collect(),
        ),
        (">quoted", text.lines().map(|l| format!(">{l}\n")).collect()),
        (
            "> > nested",
            text.lines().map(|l| format!("> > {l}\n")).collect(),
        ),
        (
            "| quoted",
            text.lines().map(|l| format!("| {l}\n")).collect(),
        ),
        (
            "> : quoted",
            text.lines().map(|l| format!("> : {l}\n")).collect(),
        ),
        (
            "indented",
            text.lines().map(|l| format!("    {l}\n")).collect(),
        ),
        (
            "tabs",
            text.lines()
                .map(|l| format!("\t{}\n", l.replace("    ", "\t")))
                .collect(),
        ),
        ("CRLF", text.replace('\n', "\r\n")),
        (
            "trailing blanks",
            text.lines().map(|l| format!("{l}   \n")).collect(),
        ),
        (
            "cell spacing",
            text.replace("|  4 ", "| 4  ").replace("|  0 ", "|0 "),
        ),
        (
            "prose around",
            format!("Hi Bill,\n\nmy move.\n\n{text}\n-- \nAnn | 555 1234\n"),
        ),
    ];
    for (how, text) in mangled {
        let again = Sheet::parse(&text).unwrap_or_else(|e| panic!("{how}: {e}\n{text}"));
        assert_eq!(again.game.sowings(), sheet.game.sowings(), "{how}");
        assert_eq!(again.players, sheet.players, "{how}");
    }
}

#[test]
fn the_log_writes_bonus_sowings_joined_and_awaits_with_a_question_mark() {
    let sheet = sheet_after(Ruleset::Waurie, "c-f a");
    let text = sheet.to_string();
    assert!(text.contains("\n1.    c-f       a\n2.    ?\n"), "{text}");
    // A bonus still to sow is awaited inside the turn.
    let sheet = sheet_after(Ruleset::Waurie, "c");
    assert!(sheet.to_string().contains("\n1.    c-?\n"), "{sheet}");
    assert_eq!(
        Sheet::parse(&sheet.to_string()).unwrap().game.to_move(),
        Some(Side::South)
    );
}

#[test]
fn a_six_cell_sheet_must_name_its_game() {
    let text = sheet_after(Ruleset::Wari, "a").to_string();
    let unnamed: String = text
        .lines()
        .filter(|l| !l.starts_with("Game:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let err = Sheet::parse(&unnamed).unwrap_err();
    assert!(
        matches!(err, SheetError::UnnamedGame { pits: 6, .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "a 6-pit sheet must say which game it is, with a line like 'Game: wari' above the board"
    );
}

/// The line names the players beside their sides; a sheet of earlier
/// referees, by side alone, reads the same.
#[test]
fn the_captured_line_names_the_players_and_reads_as_sides_too() {
    let mut sheet = Sheet::new(Ruleset::Wari.rules(), Players::named("Ann Lee", "Bo"));
    sheet
        .play(&crate::sheet::parse_sowings("c e").unwrap())
        .unwrap();
    let text = sheet.to_string();
    assert!(
        text.contains("\nCaptured: Ann Lee (south) 0, Bo (north) 0\n"),
        "{text}"
    );
    let by_side = text.replace("Ann Lee (south) 0, Bo (north) 0", "south 0, north 0");
    for text in [text, by_side] {
        assert_eq!(Sheet::parse(&text).unwrap().game.ply(), 2, "{text}");
        let wrong = text
            .replace("(north) 0", "(north) 2")
            .replace("north 0", "north 2");
        assert!(Sheet::parse(&wrong).is_err(), "{wrong}");
    }
}

#[test]
fn the_board_is_checked_against_the_log() {
    // Draw North's b (second cell from the right on the top row) wrong.
    let north_b = (
        "|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Bill",
        "|  3 |  3 |  3 |  3 |  3 |  3 |  9 |  3 |   Bill",
    );
    assert_eq!(
        refused_edited(Ruleset::SuperWari, "c", &[north_b]),
        "the board does not match the log: North's b shows 9, the log gives 3"
    );
    let captured = (
        "Captured: Yourname (south) 0, Bill (north) 0",
        "Captured: Yourname (south) 2, Bill (north) 0",
    );
    assert_eq!(
        refused_edited(Ruleset::SuperWari, "c", &[captured]),
        "the board does not match the log: South's captured total shows 2, the log gives 0"
    );
}

#[test]
fn an_illegal_move_in_the_log_names_its_line() {
    let edits = [
        ("1.    c         a", "1.    c         a\n2.    c"),
        ("\n2.    ?", ""),
    ];
    assert_eq!(
        refused_edited(Ruleset::SuperWari, "c a", &edits),
        "move 2: South's c is empty; legal: a, b, d, e, f, g, h"
    );
}

#[test]
fn a_missing_bonus_sowing_is_named() {
    let edits = [("1.    c-f       a", "1.    c         a")];
    assert_eq!(
        refused_edited(Ruleset::Waurie, "c-f a", &edits),
        "move 1: South's c ends in the store and earns another sowing; write it as c-<pit>"
    );
}

#[test]
fn the_first_mover_comes_from_the_log_heading() {
    let sheet = Sheet::with_first(
        Ruleset::SuperWari.rules(),
        Players::named("Yourname", "Bill"),
        Side::North,
    );
    let text: String = sheet
        .to_string()
        .lines()
        .filter(|l| !l.starts_with("Game:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(text.contains("   Bill  Yourname\n"));
    assert_eq!(Sheet::parse(&text).unwrap().game.first(), Side::North);
}

#[test]
fn addresses_and_results_read_back() {
    let mut sheet = sheet_after(Ruleset::Mankala, "a");
    sheet.players.south.address = Some("ann@players.example".into());
    sheet.players.north.address = Some("bill@players.example".into());
    sheet.game.resign(Side::North);
    let text = sheet.to_string();
    assert!(
        text.contains("Result: Yourname (South) wins\n        (the opponent resigned).\n"),
        "{text}"
    );
    assert!(
        text.contains("South: Yourname <ann@players.example>\n"),
        "{text}"
    );
    let again = Sheet::parse(&text).unwrap();
    assert_eq!(again.players, sheet.players);
    assert_eq!(again.game.outcome(), sheet.game.outcome());
    assert_eq!(again.to_string(), text);
}

#[test]
fn no_sheet_and_broken_rows_are_errors_not_panics() {
    for text in [
        "",
        "+----+",
        "+----+----+\n|  3 |\n+----+----+\n|  3 |  3 |\n+----+----+\n",
        "+--+--+--+\n| x | 1 |\n+--+--+--+\n| 1 | 1 |\n+--+--+--+\n1. a\n",
        "+--+--+--+--+--+--+--+--+--+--+--+--+\n|1|1|1|1|1|1|1|1|1|1|1|\n+--+--+--+--+--+--+--+--+--+--+--+--+\n|1|1|1|1|1|1|1|1|1|1|1|\n+--+--+--+--+--+--+--+--+--+--+--+--+\n",
        "1.    ?\n2.\n",
    ] {
        assert!(Sheet::parse(text).is_err(), "{text:?}");
    }
}

#[test]
fn moves_are_read_as_players_write_them() {
    let pits = |s: &str| written(&parse_sowings(s).unwrap());
    assert_eq!(pits("c"), "c");
    assert_eq!(pits("C-F"), "c-f");
    assert_eq!(pits("c f, 3"), "c-f-c");
    assert!(parse_sowings("c-x").is_err());
}

#[test]
fn every_variant_is_written_on_the_game_line_and_read_back() {
    let mut seen = 0;
    for ruleset in Ruleset::ALL {
        for variant in ruleset.spec().variants {
            let rules = ruleset.rules().with_variant(variant.name).unwrap();
            let mut sheet = Sheet::new(rules, Players::named("Ann", "Bo"));
            sheet.play(&parse_sowings("a").unwrap()).unwrap();
            let text = sheet.to_string();
            let line = format!(
                "Game: {ruleset}, {} stones, south first, variant {}\n",
                rules.stones, variant.name
            );
            assert!(text.starts_with(&line), "{text}");
            let again = Sheet::parse(&text).unwrap();
            assert_eq!(again.game.rules(), &rules);
            assert_eq!(again.to_string(), text);
            seen += 1;
        }
    }
    assert_eq!(seen, 3);
    let text = sheet_after(Ruleset::Waurie, "a").to_string();
    let wrong = text.replacen("south first", "south first, variant sideways", 1);
    assert_eq!(
        refused(&wrong),
        "waurie has no variant 'sideways'; its variants are first-empty-wins and both-stores"
    );
}

#[test]
fn a_smaller_kalah_board_reads_back_with_its_pits() {
    let rules = Ruleset::Kalah.rules().with_pits(3).unwrap();
    let mut sheet = Sheet::new(rules, Players::named("Ann", "Bo"));
    sheet.play(&parse_sowings("c b").unwrap()).unwrap();
    let text = sheet.to_string();
    assert!(text.contains("        c    b    a\n"), "{text}");
    let again = Sheet::parse(&text).unwrap();
    assert_eq!(again.game.rules(), &rules);
    assert_eq!(again.to_string(), text);
    // The games of one size only still refuse a board of another.
    let wari = sheet_after(Ruleset::Wari, "").to_string();
    let narrow = wari.replace(
        "|  4 |  4 |  4 |  4 |  4 |  4 |",
        "|  4 |  4 |  4 |  4 |  4 |",
    );
    assert!(Sheet::parse(&narrow).is_err());
}

#[test]
fn a_set_up_position_is_written_on_its_own_line_and_the_log_counts_from_it() {
    let start = crate::engine::Position::set_up(
        Ruleset::Waurie.rules(),
        &[1, 0, 0, 0, 1, 1],
        &[0, 0, 1, 0, 0, 0],
        None,
        Side::South,
    )
    .unwrap();
    let mut sheet = Sheet::from_position(start, Players::named("Ann", "Bo"));
    sheet.play(&parse_sowings("e c a").unwrap()).unwrap();
    let text = sheet.to_string();
    assert!(
        text.starts_with(
            "Game: waurie, 4 stones, south first\nSet up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22\n\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n1.    e    c\n2.    a    ?\n"), "{text}");
    let again = Sheet::parse(&text).unwrap();
    assert_eq!(again.game.start(), &start);
    assert_eq!(again.game.ply(), 3);
    assert_eq!(again.to_string(), text);
    // Quoted and re-spaced, as mail does it.
    let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
    assert_eq!(Sheet::parse(&quoted).unwrap().game.ply(), 3);
    // Without its Set up: line the log is replayed from the usual start,
    // and the board drawn does not match.
    let cut: String = text
        .lines()
        .filter(|l| !l.starts_with("Set up:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(Sheet::parse(&cut).is_err());
    // A Wari set-up writes captured totals.
    let wari = crate::engine::Position::set_up(
        Ruleset::Wari.rules(),
        &[0, 0, 0, 0, 0, 1],
        &[0, 0, 1, 0, 0, 0],
        Some([23, 23]),
        Side::South,
    )
    .unwrap();
    let text = Sheet::from_position(wari, Players::default()).to_string();
    assert!(
        text.contains("\nSet up: 0 0 0 0 0 1 / 0 0 1 0 0 0, captured 23,23\n"),
        "{text}"
    );
    assert_eq!(Sheet::parse(&text).unwrap().to_string(), text);
}

#[test]
fn a_set_up_line_that_cannot_be_or_is_impossible_is_refused_with_the_reason() {
    let text = sheet_after(Ruleset::Waurie, "").to_string();
    let with = |line: &str| {
        let sheet = text.replacen("south first\n", &format!("south first\n{line}\n"), 1);
        refused(&sheet)
    };
    assert_eq!(
        with("Set up: 1 0 0 0 1 1, stores 22,22"),
        "the 'Set up:' line cannot be read: '1 0 0 0 1 1' is not two rows: write SOUTH / NORTH, \
         each row's pits from its owner's a, as in '1 0 0 0 1 1 / 0 0 1 0 0 0'"
    );
    assert_eq!(
        with("Set up: 1 0 0 0 1 x / 0 0 1 0 0 0"),
        "the 'Set up:' line cannot be read: 'x' is not a number of stones"
    );
    assert_eq!(
        with("Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, homes 22,22"),
        "the 'Set up:' line cannot be read: 'homes' is not a number of stones"
    );
    assert_eq!(
        with("Set up: 30 30 0 0 0 0 / 0 0 1 0 0 0"),
        "the position set up cannot start a game: the pits hold 61 stones, more than the 48 of the game"
    );
}

/// Of several sheets in a text, the one whose log is longest is read,
/// wherever it stands; one that cannot be read is passed over for one that
/// can, and reported only when none can.
#[test]
fn of_several_sheets_the_longest_log_is_read() {
    let older = sheet_after(Ruleset::SuperWari, "c").to_string();
    let newer = sheet_after(Ruleset::SuperWari, "c d").to_string();
    for text in [format!("{older}\n{newer}"), format!("{newer}\n{older}")] {
        assert_eq!(RawSheet::find(&text).unwrap().sowing_count(), 2, "{text}");
    }
    let broken = newer.replacen("+----+", "+--x-+", 1);
    assert!(RawSheet::find(&broken).is_err());
    let both = format!("{broken}\n{older}");
    assert_eq!(RawSheet::find(&both).unwrap().sowing_count(), 1);
    // Another game's sheet (a `games` list) is passed over, however long.
    let of =
        |sheet: &str, id: &str| sheet.replacen("south first", &format!("south first, id {id}"), 1);
    let listed = format!("{}\n{}", of(&older, "aaaaaa"), of(&newer, "bbbbbb"));
    let read = RawSheet::find(&listed).unwrap();
    assert_eq!(
        (read.id.as_deref(), read.sowing_count()),
        (Some("aaaaaa"), 1),
        "{listed}"
    );
}

/// A turn made on the grid alone, the log and the `Captured:` line left
/// as they were, is read as that turn: a Wari capture, a Kalah turn with
/// its bonus sowing. A grid no single turn draws is none.
#[test]
fn a_turn_made_on_the_grid_alone_is_read() {
    let grid = |text: &str| -> Vec<String> {
        let lines = text.lines().filter(|l| l.starts_with(['|', '+']));
        lines.map(str::to_string).collect()
    };
    let drawn_on = |before: &Sheet, after: &Sheet| -> String {
        let mut rows = grid(&after.to_string()).into_iter();
        let lines = before.to_string();
        let lines = lines.lines().map(|l| match l.starts_with(['|', '+']) {
            true => rows.next().unwrap(),
            false => l.to_string(),
        });
        lines.map(|l| l + "\n").collect()
    };
    let mut rng = crate::engine::SplitMix64::new(7);
    let mut before = sheet_after(Ruleset::Wari, "");
    let capture = loop {
        let legal = before.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        let mut after = before.clone();
        after.play(&[pit]).unwrap();
        if after.game.position().store(Side::South) > before.game.position().store(Side::South)
            && before.game.to_move() == Some(Side::South)
        {
            break (pit, after);
        }
        before = after;
    };
    let (pit, after) = capture;
    let text = drawn_on(&before, &after);
    assert!(text.contains("Captured: Yourname (south) 0"), "{text}");
    let raw = RawSheet::find(&text).unwrap();
    assert_eq!(raw.turns_drawn(&before.game), [vec![pit]]);

    let before = sheet_after(Ruleset::Kalah, "");
    let after = sheet_after(Ruleset::Kalah, "c-f");
    let raw = RawSheet::find(&drawn_on(&before, &after)).unwrap();
    assert_eq!(
        raw.turns_drawn(&before.game),
        [parse_sowings("c-f").unwrap()]
    );
    // Drawn up to the free sowing still to make: that far.
    let begun = sheet_after(Ruleset::Kalah, "c");
    assert_eq!(
        begun.game.to_move(),
        Some(Side::South),
        "c earns a free turn"
    );
    let raw = RawSheet::find(&drawn_on(&before, &begun)).unwrap();
    assert_eq!(raw.turns_drawn(&before.game), [parse_sowings("c").unwrap()]);
    let two_turns = sheet_after(Ruleset::Kalah, "c-f a");
    let raw = RawSheet::find(&drawn_on(&before, &two_turns)).unwrap();
    assert!(raw.turns_drawn(&before.game).is_empty());
}
