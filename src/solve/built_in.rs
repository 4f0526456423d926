//! The endgame tables shipped in `boards/tables/`, built into the program
//! (a few MB), so that any install, the mail referee included, has them in
//! any folder. A file added there needs its line here (a test checks that
//! none is left out).

use super::{TableError, Tables};
use crate::engine::Rules;

const BUILT_IN: &[(&str, &[u8])] = &[
    (
        "super-wari",
        include_bytes!("../../boards/tables/super-wari.tables"),
    ),
    ("wari", include_bytes!("../../boards/tables/wari.tables")),
    ("kalah", include_bytes!("../../boards/tables/kalah.tables")),
    (
        "mankala",
        include_bytes!("../../boards/tables/mankala.tables"),
    ),
    (
        "waurie",
        include_bytes!("../../boards/tables/waurie.tables"),
    ),
];

impl Tables {
    /// The built-in tables of `rules`, if it has any (a variant has none).
    ///
    /// # Errors
    /// Only if the program was built with a damaged file (a test reads
    /// every one).
    pub fn built_in(rules: &Rules) -> Result<Option<Tables>, TableError> {
        let name = Tables::game_name(rules);
        // The built-in tables are for the usual board (a smaller Kalah has none).
        let usual = rules.pits == rules.ruleset.rules().pits;
        let Some((_, mut bytes)) = BUILT_IN.iter().find(|(game, _)| *game == name && usual) else {
            return Ok(None);
        };
        Tables::read(rules, &mut bytes).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Ruleset;

    #[test]
    fn every_shipped_table_is_built_in_and_reads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/tables");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let game = name.strip_suffix(".tables").unwrap_or(&name);
            assert!(
                BUILT_IN.iter().any(|(built, _)| *built == game),
                "boards/tables/{name} is not built in: add it to BUILT_IN in src/solve/built_in.rs"
            );
        }
        for (game, _) in BUILT_IN {
            let rules = game.parse::<Ruleset>().unwrap().rules();
            let tables = Tables::built_in(&rules).unwrap().expect("built in");
            assert!(tables.max_stones() > 0, "{game}");
        }
    }

    #[test]
    fn every_layer_of_every_built_in_table_agrees_with_the_engines_moves() {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        for ruleset in Ruleset::ALL {
            let tables = Tables::built_in(&ruleset.rules()).unwrap().unwrap();
            // The progress reported never passes the total, and ends there.
            let (most, last) = (AtomicU64::new(0), AtomicU64::new(0));
            let checked = tables.check_against_engine(&|done, total| {
                assert!(done <= total, "{ruleset}: {done} of {total}");
                most.fetch_max(done, Relaxed);
                last.store(total, Relaxed);
            });
            assert_eq!(checked, Ok(tables.positions() as u64 - 1), "{ruleset}");
            assert_eq!(most.load(Relaxed), last.load(Relaxed), "{ruleset}");
        }
    }

    #[test]
    fn a_damaged_byte_of_a_table_is_found() {
        for ruleset in [Ruleset::Wari, Ruleset::Kalah] {
            let tables = Tables::built_in(&ruleset.rules()).unwrap().unwrap();
            let mut bytes = Vec::new();
            tables.write(&mut bytes).unwrap();
            // A byte of the last layer: a position of that layer is found
            // wrong (its own, or one whose move reaches it), never another.
            let at = bytes.len() - 1_000;
            bytes[at] = bytes[at].wrapping_add(1);
            let damaged = Tables::read(&ruleset.rules(), &mut &bytes[..]).unwrap();
            let found = damaged.check_against_engine(&|_, _| {}).unwrap_err();
            let layer = usize::from(found.position.stones_in_pits());
            assert_eq!(layer, tables.max_stones(), "{ruleset}: {found}");
        }
    }
}
