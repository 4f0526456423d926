//! The referee's own prose, wrapped to a width that survives quoting.

/// The widest line of the referee's own prose: as wide as a sheet (68)
/// quoted twice.
pub const LINE_WIDTH: usize = 72;

/// `text` with each line wider than [`LINE_WIDTH`] broken at single
/// spaces. An indented line (a table's) is left whole, and a double space
/// is never a break: it sets off what to write, as in  move <pit>.
pub fn fill(text: &str) -> String {
    fill_to(text, LINE_WIDTH)
}

/// One item of a list, `text` filled under `indent` (each of its lines
/// starts with it), within [`LINE_WIDTH`] in all.
pub fn item(indent: &str, text: &str) -> String {
    let width = LINE_WIDTH.saturating_sub(indent.chars().count());
    let mut out = String::with_capacity(text.len() + 16);
    for line in fill_to(text, width).split_inclusive('\n') {
        out.push_str(indent);
        out.push_str(line);
    }
    out
}

fn fill_to(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        while rest.trim_end().chars().count() > width && !rest.starts_with(' ') {
            let Some(at) = break_at(rest, width) else {
                break;
            };
            out.push_str(&rest[..at]);
            out.push('\n');
            rest = &rest[at + 1..];
        }
        out.push_str(rest);
    }
    out
}

/// The last single space of `line` within `width` columns, else its first
/// one past them.
fn break_at(line: &str, width: usize) -> Option<usize> {
    let bytes = line.as_bytes();
    let single = |i: &usize| bytes[*i] == b' ' && bytes[*i - 1] != b' ' && bytes[*i + 1] != b' ';
    let limit = line
        .char_indices()
        .nth(width)
        .map_or(line.len(), |(i, _)| i);
    let inside = 1..limit.min(line.len().saturating_sub(1));
    let beyond = limit..line.len().saturating_sub(1);
    inside
        .rev()
        .find(single)
        .or_else(|| beyond.clone().find(single))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_breaks_prose_at_single_spaces_within_the_line_width() {
        let long = "A mail gets at most 3 boards drawn (board N or preview): ask for the rest in another mail.";
        let filled = fill(&format!("Title\n\n{long}\n  an indented table line that is far wider than the seventy-two columns\n"));
        for line in filled.lines().filter(|l| !l.starts_with(' ')) {
            assert!(line.chars().count() <= LINE_WIDTH, "{line:?} in\n{filled}");
        }
        assert_eq!(filled.split_whitespace().collect::<Vec<_>>(), format!("Title {long} an indented table line that is far wider than the seventy-two columns").split_whitespace().collect::<Vec<_>>());
        assert!(filled
            .contains("  an indented table line that is far wider than the seventy-two columns\n"));
        // A double space sets off what to write: never a break.
        let offer = format!(
            "{}'s draw offer stands: answer it with a line  accept  or  decline.",
            "Bob".repeat(8)
        );
        let filled = fill(&offer);
        assert!(filled.contains("  accept  or  decline."), "{filled}");
        assert_eq!(fill("word"), "word");
        let listed = item("  ", long);
        assert!(listed.lines().count() > 1, "{listed}");
        for line in listed.lines() {
            assert!(
                line.starts_with("  ") && line.chars().count() <= LINE_WIDTH,
                "{line:?}"
            );
        }
        assert_eq!(
            fill(&"x".repeat(100)),
            "x".repeat(100),
            "one word stays whole"
        );
    }
}
