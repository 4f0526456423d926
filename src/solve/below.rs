//! The finished layers a layer of the tables is built from: in memory, or
//! in the table file being written, read back a block at a time (so that
//! only the layer being built need be in memory).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

/// The layers below the one being built.
pub(super) enum Below<'a> {
    Memory(&'a [Vec<i8>]),
    /// Layer `k` starts at byte `starts[k]` of `file`; the last entry is
    /// where the layers written so far end.
    File {
        file: &'a File,
        starts: Vec<u64>,
        /// The first read that failed (the layer is then built wrong,
        /// and the build reports it instead).
        failed: OnceLock<io::Error>,
    },
}

/// Bytes read from the file at a time, and blocks kept by each reader.
const BLOCK: usize = 1 << 12;
const SLOTS: usize = 256;

/// One thread's reads of the layers below: a few recent blocks of the file
/// kept, each in the slot its number picks.
pub(super) struct Reader<'a> {
    below: &'a Below<'a>,
    tags: Vec<u64>,
    blocks: Vec<u8>,
}

impl<'a> Below<'a> {
    pub fn reader(&'a self) -> Reader<'a> {
        let slots = match self {
            Below::Memory(_) => 0,
            Below::File { .. } => SLOTS,
        };
        Reader {
            below: self,
            tags: vec![u64::MAX; slots],
            blocks: vec![0; slots * BLOCK],
        }
    }

    /// The first read that failed, if one did.
    pub fn take_error(self) -> io::Result<()> {
        match self {
            Below::File { failed, .. } => failed.into_inner().map_or(Ok(()), Err),
            Below::Memory(_) => Ok(()),
        }
    }
}

impl Reader<'_> {
    /// The byte of position `index` of layer `k`.
    pub fn get(&mut self, k: usize, index: u64) -> i8 {
        let (file, starts, failed) = match self.below {
            Below::Memory(layers) => return layers[k][index as usize],
            Below::File {
                file,
                starts,
                failed,
            } => (file, starts, failed),
        };
        let at = starts[k] + index;
        let number = at / BLOCK as u64;
        let slot = (number % SLOTS as u64) as usize;
        let block = &mut self.blocks[slot * BLOCK..(slot + 1) * BLOCK];
        if self.tags[slot] != number {
            let from = number * BLOCK as u64;
            let end = starts
                .last()
                .map_or(from, |&end| end.min(from + BLOCK as u64));
            let len = end.saturating_sub(from) as usize;
            if let Err(e) = file.read_exact_at(&mut block[..len], from) {
                let _ = failed.set(e);
                return 0;
            }
            self.tags[slot] = number;
        }
        block[(at % BLOCK as u64) as usize] as i8
    }
}
