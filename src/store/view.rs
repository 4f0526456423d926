//! A stored game as the sheet shows it, and its state in a few words: for
//! the mail referee's answers and the command line's listings alike.

use super::{GameRecord, ReplayError, Standing};
use crate::engine::{Game, Side};
use crate::sheet::{Player, Players, Sheet};

/// The sheet of a stored game, replayed.
///
/// # Errors
/// When the record's turns are not a legal game.
pub fn record_sheet(record: &GameRecord) -> Result<Sheet, ReplayError> {
    Ok(sheet_of(record, record.game()?))
}

/// The sheet of a stored game: its game, players and id.
pub fn sheet_of(record: &GameRecord, game: Game) -> Sheet {
    Sheet {
        game,
        players: Players {
            south: player_of(record, Side::South),
            north: player_of(record, Side::North),
        },
        id: Some(record.id.to_string()),
    }
}

/// The sheet's player of `side`.
pub fn player_of(record: &GameRecord, side: Side) -> Player {
    let p = record.player(side);
    Player {
        name: p.name.clone(),
        address: p.address.clone(),
    }
}

/// `Alice to move`, `over: Bob won`, `waiting for Bob to accept`.
pub fn summary(record: &GameRecord, game: &Game) -> String {
    let name = |side: Side| record.player(side).name.clone();
    match record.standing {
        Standing::Invited { invitee } => format!("waiting for {} to accept", name(invitee)),
        Standing::Declined => format!("declined by {}", name(record.inviter.other())),
        Standing::Withdrawn => format!("withdrawn by {}", name(record.inviter)),
        Standing::Playing => match (game.to_move(), game.outcome()) {
            (Some(side), _) => format!("{} to move", name(side)),
            (None, Some(outcome)) => match outcome.winner {
                Some(side) => format!("over: {} won", name(side)),
                None => "over: a draw".to_string(),
            },
            (None, None) => "over".to_string(),
        },
    }
}
