//! The mail adapter: read a player's mail, apply the move in it, and
//! compose the replies. It calls the sheet and engine layers; sending is
//! [`transport`]'s.

pub mod hosted;
pub mod incoming;
pub mod referee;
pub mod text;
pub mod transport;
