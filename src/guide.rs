//! The rules as this referee applies them, in words, for `mancala rules`
//! and for players who ask by mail. The texts live in `src/guide/*.md`.

use crate::engine::Ruleset;

const INTRO: &str = include_str!("guide/intro.md");

/// One game's rules, from the ruleset's entry in the table.
pub fn ruleset_text(ruleset: Ruleset) -> &'static str {
    ruleset.spec().guide
}

/// One game's rules in a few lines, for a mail that must stay short.
pub fn summary(ruleset: Ruleset) -> &'static str {
    ruleset.spec().summary
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

/// One game's rules as `rules` says them: the ruleset's text, and which of
/// its variants is played.
pub fn rules_text_of(rules: &crate::engine::Rules) -> String {
    let mut text = ruleset_text(rules.ruleset).to_string();
    if let Some(variant) = rules.variant() {
        text.push_str(&format!(
            "\nPlayed here as the variant `{}`: {}.\n",
            variant.name, variant.summary
        ));
    }
    text
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
