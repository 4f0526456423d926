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
