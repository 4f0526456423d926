//! The rules as this referee applies them, in words, for `mancala rules`
//! and for players who ask by mail. The texts live in `src/guide/*.md`.

use crate::engine::Ruleset;

const INTRO: &str = include_str!("guide/intro.md");

/// One game's rules.
pub fn ruleset_text(ruleset: Ruleset) -> &'static str {
    match ruleset {
        Ruleset::SuperWari => include_str!("guide/super-wari.md"),
        Ruleset::Wari => include_str!("guide/wari.md"),
        Ruleset::Waurie => include_str!("guide/waurie.md"),
        Ruleset::Mankala => include_str!("guide/mankala.md"),
    }
}

/// One game's rules in a few lines, for a mail that must stay short.
pub fn summary(ruleset: Ruleset) -> &'static str {
    match ruleset {
        Ruleset::SuperWari | Ruleset::Wari => {
            "\
Sow anti-clockwise, skipping the pit you moved from on a lap. A last stone
that makes an opponent's pit 2 or 3 captures it, and the unbroken run of
2s and 3s behind it, to the edge of their row. No move may leave the
opponent without stones (when none can help, the mover takes all that is
left). A position seen before ends the game, each taking their own side.
More than half the stones captured wins at once; equal is a draw.
"
        }
        Ruleset::Waurie => {
            "\
Sow anti-clockwise into your own endpit but never the opponent's; the
emptied pit is sown again on a lap. Ending in your own endpit sows again
(a free turn). No captures. The player to move who has no seeds wins.
"
        }
        Ruleset::Mankala => {
            "\
Sow anti-clockwise into your own home but never the opponent's. Ending in
your home is another turn. Ending in an empty pit of your own brings the
opposite pit's stones into that pit. The game ends as soon as a row is
empty; each scores their pits plus home, and the higher score wins.
"
        }
    }
}

/// One game's rules, or the introduction and every game's.
pub fn rules_text(ruleset: Option<Ruleset>) -> String {
    match ruleset {
        Some(r) => ruleset_text(r).to_string(),
        None => {
            let mut text = INTRO.to_string();
            for r in Ruleset::ALL {
                text.push('\n');
                text.push_str(ruleset_text(r));
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_its_rules_and_names_itself() {
        for r in Ruleset::ALL {
            let text = ruleset_text(r);
            assert!(text.contains(r.title()), "{r}");
            assert!(text.contains(&format!("`{}`", r.as_str())), "{r}");
        }
        assert!(rules_text(None).contains("Clarification"));
    }
}
