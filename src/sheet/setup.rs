//! The `Set up:` line and `--position` text: a position written as rows of
//! counts, with the stores when given.

/// A position as the `Set up:` line and `--position` write it: each row's
/// pits from its owner's `a`, and the stores (or Wari's captured totals)
/// when given, South's first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetUpLine {
    pub south: Vec<u8>,
    pub north: Vec<u8>,
    pub stores: Option<[u8; 2]>,
}

/// Text that is not a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetUpTextError {
    #[error("'{0}' is not two rows: write SOUTH / NORTH, each row's pits from its owner's a, as in '1 0 0 0 1 1 / 0 0 1 0 0 0'")]
    Rows(String),
    #[error("'{0}' is not a number of stones")]
    Count(String),
    #[error("'{0}' is not two counts: write SOUTH,NORTH, as in '22,22'")]
    Pair(String),
}

fn stone_count(text: &str) -> Result<u8, SetUpTextError> {
    text.parse()
        .map_err(|_| SetUpTextError::Count(text.to_string()))
}

/// `1 0 0 0 1 1 / 0 0 1 0 0 0` (blanks or commas between the counts): the
/// South row, then the North row.
pub fn parse_rows(text: &str) -> Result<(Vec<u8>, Vec<u8>), SetUpTextError> {
    let Some((south, north)) = text.split_once('/') else {
        return Err(SetUpTextError::Rows(text.trim().to_string()));
    };
    let row = |text: &str| -> Result<Vec<u8>, SetUpTextError> {
        text.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(stone_count)
            .collect()
    };
    if north.contains('/') {
        return Err(SetUpTextError::Rows(text.trim().to_string()));
    }
    Ok((row(south)?, row(north)?))
}

/// `22,22` or `22 22`: South's count, then North's.
pub fn parse_pair(text: &str) -> Result<[u8; 2], SetUpTextError> {
    let counts: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    match counts.as_slice() {
        [south, north] => Ok([stone_count(south)?, stone_count(north)?]),
        _ => Err(SetUpTextError::Pair(text.trim().to_string())),
    }
}

/// `Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22`.
pub(super) fn setup_line(line: &str) -> Option<Result<SetUpLine, SetUpTextError>> {
    let (key, rest) = line.split_once(':')?;
    let key: String = key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if key != "setup" {
        return None;
    }
    // The stores follow their word; the rows are all before it.
    let lower = rest.to_ascii_lowercase();
    let (rows, stores) = match ["stores", "captured"]
        .iter()
        .find_map(|word| lower.find(word).map(|at| (at, at + word.len())))
    {
        Some((at, counts)) => (&rest[..at], Some(&rest[counts..])),
        None => (rest, None),
    };
    let parsed = (|| {
        let (south, north) = parse_rows(rows.trim().trim_end_matches(',').trim())?;
        let stores = stores.map(parse_pair).transpose()?;
        Ok(SetUpLine {
            south,
            north,
            stores,
        })
    })();
    Some(parsed)
}
