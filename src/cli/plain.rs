//! The rules' Markdown as plain text, for `mancala rules` at a terminal:
//! headings underlined, `**bold**` and `` `code` `` marks dropped. Only the
//! markup `src/guide/*.md` uses; lists and paragraphs read as they are.

/// `markdown` without its markup.
pub fn plain(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        let level = line.bytes().take_while(|&b| b == b'#').count();
        match line[level..].strip_prefix(' ') {
            Some(title) if (1..=3).contains(&level) => {
                let title = inline(title);
                let rule = ["=", "-", "~"][level - 1].repeat(title.chars().count());
                out.push_str(&format!("{title}\n{rule}\n"));
            }
            _ => {
                out.push_str(&inline(line));
                out.push('\n');
            }
        }
    }
    out
}

/// A line without its `**` and backticks.
fn inline(line: &str) -> String {
    line.replace("**", "").replace('`', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_underlined_and_marks_dropped() {
        let text = plain(
            "# The rules\n\n## Kalah (`kalah`)\n\n- **Clarification**: `c-f` is one turn.\n  \
             So it is.\n### Variants (`--variant`)\n#hashtag\n",
        );
        assert_eq!(
            text,
            "The rules\n=========\n\nKalah (kalah)\n-------------\n\n\
             - Clarification: c-f is one turn.\n  So it is.\n\
             Variants (--variant)\n~~~~~~~~~~~~~~~~~~~~\n#hashtag\n"
        );
    }

    #[test]
    fn every_guide_reads_without_markup() {
        let text = plain(&mancala::guide::rules_text(None));
        for mark in ["**", "`", "\n#"] {
            assert!(!text.contains(mark), "{mark} left in\n{text}");
        }
        assert!(text.contains("Clarification: "));
    }
}
