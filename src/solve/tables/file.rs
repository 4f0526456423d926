//! Building tables into a file: layer by layer, each written as it is
//! finished, the finished ones read back from the file once they no longer
//! fit in memory; and extending a file of tables without reading it whole.

use std::fs::File;
use std::io::Seek;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

use super::{header, parse_header, Below, Budget, TableError, Tables, MOST_THREADS};
use crate::engine::Rules;

/// What [`Tables::build_file`] wrote: the positions (one byte each), the
/// file's bytes, and whether the finished layers were read back from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub positions: u64,
    /// Of them, those the tables had before.
    pub kept: u64,
    pub bytes: u64,
    pub on_disk: bool,
}

impl Tables {
    /// Writes these tables extended to `max` stones in pits into `file`
    /// (from its start, the bytes [`Tables::write`] would write), each
    /// layer as it is finished. The finished layers stay in memory while
    /// they fit in `budget.memory` bytes beside the layer being built; past
    /// that they are in `file` alone, read back from it, and only the layer
    /// being built is in memory.
    ///
    /// # Errors
    /// As [`Tables::extend`]; I/O; a layer that alone needs more memory
    /// than `budget.memory` (before any layer of it is built).
    pub fn build_file(
        self,
        max: usize,
        budget: Budget,
        file: &File,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Written, TableError> {
        let first = self.layers.len();
        self.fits(first, max, budget)?;
        let head = format!("{}\n", header(&self.rules, max));
        file.set_len(0)?;
        file.write_all_at(head.as_bytes(), 0)?;
        let mut starts = vec![head.len() as u64];
        for layer in &self.layers {
            starts.push(write_layer(file, &starts, layer)?);
        }
        self.grow_in_file(starts, max, budget, file, progress)
    }

    /// [`Tables::build_file`] for the tables in `old`, a file of `rules`'
    /// tables to fewer than `max` stones in pits. Tables that fit in
    /// `budget.memory` beside the first layer to build are read; larger
    /// ones are copied into `file` a piece at a time, and read back from
    /// it, never held.
    ///
    /// # Errors
    /// As [`Tables::build_file`]; `old` not such a file.
    pub fn extend_file(
        rules: &Rules,
        old: &File,
        max: usize,
        budget: Budget,
        file: &File,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Written, TableError> {
        let had = Tables::stones_in(rules, old)?;
        if had >= max {
            return Err(TableError::Header {
                expected: format!("tables to fewer than {max} stones in pits"),
                found: format!("tables to {had}"),
            });
        }
        let tables = Tables::new(rules)?;
        let kept = tables.positions_to(had);
        // Reading them holds their file's bytes beside their layers.
        if 2 * kept + tables.working(had + 1) <= budget.memory as u64 {
            let mut reader = old;
            reader.seek(std::io::SeekFrom::Start(0))?;
            return Tables::read(rules, &mut reader)?.build_file(max, budget, file, progress);
        }
        tables.fits(had + 1, max, budget)?;
        let old_head = header(rules, had).len() as u64 + 1;
        let head = format!("{}\n", header(rules, max));
        file.set_len(0)?;
        file.write_all_at(head.as_bytes(), 0)?;
        let mut starts = vec![head.len() as u64];
        let mut piece = vec![0u8; 1 << 20];
        for stones in 0..=had {
            let (end, mut at) = (starts[stones] + tables.size(stones), starts[stones]);
            while at < end {
                let n = piece.len().min((end - at) as usize);
                let from = old_head + at - starts[0];
                old.read_exact_at(&mut piece[..n], from)?;
                file.write_all_at(&piece[..n], at)?;
                at += n as u64;
            }
            starts.push(end);
        }
        drop(piece);
        tables.grow_in_file(starts, max, budget, file, progress)
    }

    /// The stones in pits the tables in `file` reach, from its header, if
    /// the file is as long as its header says.
    ///
    /// # Errors
    /// I/O; not a whole file of `rules`' tables.
    pub fn stones_in(rules: &Rules, file: &File) -> Result<usize, TableError> {
        let mut head = [0u8; 256];
        let read = file.read_at(&mut head, 0)?;
        let line = head[..read]
            .split(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        let text = String::from_utf8_lossy(line);
        let had = parse_header(rules, &text)?;
        let tables = Tables::new(rules)?;
        let values = tables.positions_to(had);
        let (bytes, needed) = (file.metadata()?.len(), line.len() as u64 + 1 + values);
        match bytes == needed {
            true => Ok(had),
            false => Err(TableError::Header {
                expected: format!("{text} and its values"),
                found: format!("{bytes} bytes"),
            }),
        }
    }

    /// The positions of the layers up to `stones` stones in pits.
    fn positions_to(&self, stones: usize) -> u64 {
        (0..=stones).map(|k| self.size(k)).sum()
    }

    /// Refuses, before anything is built, a layer from `first` to `max`
    /// that alone needs more than `budget.memory`.
    fn fits(&self, first: usize, max: usize, budget: Budget) -> Result<(), TableError> {
        self.check(max)?;
        let memory = budget.memory as u64;
        match (first..=max).find(|&k| self.working(k) > memory) {
            Some(stones) => Err(TableError::Memory {
                stones,
                needs: self.working(stones).div_ceil(1 << 20),
                memory: memory >> 20,
            }),
            None => Ok(()),
        }
    }

    /// Builds the layers after those `starts` holds (in `file`, and in
    /// `self` too unless it holds none) up to `max`, each written to
    /// `file` as it is finished.
    fn grow_in_file(
        mut self,
        mut starts: Vec<u64>,
        max: usize,
        budget: Budget,
        file: &File,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Written, TableError> {
        let memory = budget.memory as u64;
        let first = starts.len() - 1;
        let kept = starts[first] - starts[0];
        let threads = budget.threads.clamp(1, MOST_THREADS);
        let total: u64 = (first..=max).map(|k| self.size(k)).sum();
        let (mut before, mut on_disk) = (0, self.layers.len() < first);
        for stones in first..=max {
            let held = self.positions() as u64;
            if !on_disk && held + self.working(stones) > memory {
                on_disk = true;
                self.layers = Vec::new();
            }
            let below = match on_disk {
                true => Below::File {
                    file,
                    starts: starts.clone(),
                    failed: OnceLock::new(),
                },
                false => Below::Memory(&self.layers),
            };
            let room = memory - self.working(stones) - self.positions() as u64;
            let layer = self.layer((stones, &below), threads, room as usize, &mut |done| {
                progress(before + done, total)
            })?;
            below.take_error()?;
            starts.push(write_layer(file, &starts, &layer)?);
            if !on_disk {
                self.layers.push(layer);
            }
            before += self.size(stones);
        }
        progress(total, total);
        let bytes = starts.last().copied().unwrap_or(0);
        Ok(Written {
            positions: bytes - starts[0],
            kept,
            bytes,
            on_disk,
        })
    }
}

/// Writes `layer` where the layers of `starts` end; returns its end.
fn write_layer(file: &File, starts: &[u64], layer: &[i8]) -> std::io::Result<u64> {
    let mut at = starts.last().copied().unwrap_or(0);
    // A piece at a time: a copy of a whole large layer would double it.
    for piece in layer.chunks(1 << 16) {
        let bytes: Vec<u8> = piece.iter().map(|&v| v as u8).collect();
        file.write_all_at(&bytes, at)?;
        at += bytes.len() as u64;
    }
    Ok(at)
}
