//! Packed layers: every board value of a layer, exact, in about 4.2 to 4.6 bits a position.
//!
//! A layer of s seeds holds values in ±s, and under rules that leave no seed unclaimed all of them
//! have the parity of s (the two sides share the s seeds), so a value is a *code*
//! `(value + s) / step` with `step` 2 (1 where seeds may be discarded or positions repeat:
//! [`crate::rules::Rules::values_share_parity`]). Neighbouring positions share the mover's row and
//! differ a little in the opponent's, and their values lie close together (see
//! docs/performance-history.md for the measured spread). So a line of 64 bytes, one cache line,
//! holds 124 consecutive positions: a base code and a 4-bit offset from it for each; offset 15
//! escapes, and the value is then in the layer's escape list, a few dozen sorted entries per
//! `GROUP_LINES` lines. Almost every probe is one memory read, like a byte per position.

use rayon::prelude::*;

use super::LayerBuffer;

/// Positions per line: 62 bytes of two 4-bit offsets each.
pub const LINE_POSITIONS: usize = 124;
/// Bytes per line: a cache line.
const LINE_BYTES: usize = 64;
/// Where the offsets start in a line: after the base code and a reserved byte.
const OFFSETS_AT: usize = 2;
/// The offset that sends a probe to the escape list.
const ESCAPE: u8 = 15;
/// Lines per escape group: the escape list is indexed by group, searched within one.
const GROUP_LINES: usize = 64;
/// Positions per escape group (a multiple of the line, so groups never split a line).
pub const GROUP_POSITIONS: usize = GROUP_LINES * LINE_POSITIONS;
/// Bytes of an escape group's lines.
const GROUP_BYTES: usize = GROUP_LINES * LINE_BYTES;

/// What makes a layer's values unpackable: they are not the values of a layer of these seeds.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A value beyond ±seeds.
    #[error("a value beyond ±{seeds}, the seeds on the board")]
    OutOfRange {
        /// The layer's seeds.
        seeds: usize,
    },
    /// A value of the wrong parity where every value must share the parity of the seeds.
    #[error("a value whose parity differs from that of the {seeds} seeds on the board")]
    WrongParity {
        /// The layer's seeds.
        seeds: usize,
    },
    /// The memory for the packed layer could not be had.
    #[error("no memory for a packed layer: {0}")]
    Memory(#[from] std::io::Error),
}

/// The values of one layer, packed. Built by a [`Packer`].
pub struct PackedLayer {
    lines: LayerBuffer,
    len: usize,
    seeds: i32,
    step: i32,
    /// Each escaped position's offset in its group (high bits) and value (low byte, i8).
    escapes: Vec<u32>,
    /// The escapes of group g are `escapes[group_starts[g]..group_starts[g + 1]]`.
    group_starts: Vec<u64>,
}

impl PackedLayer {
    /// Packs a whole layer's values (i8 bit patterns) in parallel on the current rayon pool.
    pub(crate) fn pack(values: &[u8], seeds: usize, parity: bool) -> Result<PackedLayer, PackError> {
        let mut packer = Packer::new(values.len(), seeds, parity)?;
        packer.push(values)?;
        Ok(packer.finish())
    }

    /// Packs a layer's values (i8 bit patterns, the whole of `buffer`) into the front of their
    /// own buffer, which then shrinks to the packed lines: the same layer as [`PackedLayer::pack`]
    /// without holding it twice, so a build needs the top layer's bytes but not also its packed
    /// copy. In parallel on the current rayon pool, a batch of groups at a time.
    pub(crate) fn pack_in_place(mut buffer: LayerBuffer, seeds: usize, parity: bool) -> Result<PackedLayer, PackError> {
        let len = buffer.bytes().len();
        let lines_len = len.div_ceil(LINE_POSITIONS) * LINE_BYTES;
        if lines_len > len {
            // Fewer positions than the bytes of their lines: a copy costs next to nothing.
            return PackedLayer::pack(buffer.bytes(), seeds, parity);
        }
        check_values(buffer.bytes(), seeds, parity)?;
        let codes = codes(seeds, parity);
        let groups = len.div_ceil(GROUP_POSITIONS);
        let (mut escapes, mut group_starts) = (Vec::new(), Vec::with_capacity(groups + 1));
        group_starts.push(0);
        let bytes = buffer.bytes_mut();
        let mut first = 0;
        while first < groups {
            // Group g's lines start at g * GROUP_BYTES, its values at g * GROUP_POSITIONS, further
            // on. Groups first..end go side by side when all their lines end before the first of
            // their values; a group alone first copies its values out.
            let end = (first * GROUP_POSITIONS / GROUP_BYTES).clamp(first + 1, groups);
            let (lines_start, lines_end) = (first * GROUP_BYTES, (end * GROUP_BYTES).min(lines_len));
            let values_end = (end * GROUP_POSITIONS).min(len);
            let batch: Vec<Vec<u32>> = if end == first + 1 {
                let values = bytes[first * GROUP_POSITIONS..values_end].to_vec();
                vec![pack_group(&values, &mut bytes[lines_start..lines_end], &codes)]
            } else {
                let (lines, values) = bytes.split_at_mut(first * GROUP_POSITIONS);
                let values = &values[..values_end - first * GROUP_POSITIONS];
                values
                    .par_chunks(GROUP_POSITIONS)
                    .zip(lines[lines_start..lines_end].par_chunks_mut(GROUP_BYTES))
                    .map(|(values, lines)| pack_group(values, lines, &codes))
                    .collect()
            };
            for group in batch {
                escapes.extend_from_slice(&group);
                group_starts.push(escapes.len() as u64);
            }
            first = end;
        }
        buffer.truncate(lines_len);
        escapes.shrink_to_fit();
        let step = if parity { 2 } else { 1 };
        Ok(PackedLayer { lines: buffer, len, seeds: seeds as i32, step, escapes, group_starts })
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the layer has no positions.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The board value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> i32 {
        let (line, slot) = (index / LINE_POSITIONS, index % LINE_POSITIONS);
        let line = &self.lines.bytes()[line * LINE_BYTES..][..LINE_BYTES];
        let offset = (line[OFFSETS_AT + slot / 2] >> ((slot & 1) * 4)) & 0xf;
        if offset == ESCAPE {
            return self.escaped(index);
        }
        (i32::from(line[0]) + i32::from(offset)) * self.step - self.seeds
    }

    /// The address holding the value at `index`, for a prefetch.
    #[inline]
    pub fn address(&self, index: usize) -> *const u8 {
        self.lines.bytes().as_ptr().wrapping_add(index / LINE_POSITIONS * LINE_BYTES)
    }

    /// The value of an escaped position, from the escape list.
    #[cold]
    fn escaped(&self, index: usize) -> i32 {
        let group = index / GROUP_POSITIONS;
        let offset = (index % GROUP_POSITIONS) as u32;
        let entries = &self.escapes[self.group_starts[group] as usize..self.group_starts[group + 1] as usize];
        let found = entries.binary_search_by_key(&offset, |entry| entry >> 8);
        // The packer writes an escape entry for every escaped offset: a miss is a bug.
        let entry = entries[found.expect("an escaped position has an escape entry")];
        i32::from(entry as u8 as i8)
    }

    /// The values of positions `start..start + out.len()`, as i8 bit patterns.
    pub(crate) fn unpack(&self, start: usize, out: &mut [u8]) {
        for (index, value) in (start..).zip(out.iter_mut()) {
            *value = self.get(index) as i8 as u8;
        }
    }

    /// Bytes of memory the layer takes.
    pub fn memory_bytes(&self) -> u64 {
        (self.lines.bytes().len() + 4 * self.escapes.len() + 8 * self.group_starts.len()) as u64
    }

    /// What a layer of `positions` positions will take packed, from above: its lines, escapes for
    /// one position in 40 (1.3% at most measured, on 6-house layers up to 32 seeds) and 64 more
    /// (the few positions of a small layer spread wider), and the escape groups' starts.
    pub(crate) fn memory_estimate(positions: u64) -> u64 {
        let lines = positions.div_ceil(LINE_POSITIONS as u64) * LINE_BYTES as u64;
        let escapes = positions.div_ceil(40) + 64;
        lines + 4 * escapes + 8 * (positions.div_ceil(GROUP_POSITIONS as u64) + 1)
    }

    /// Escaped positions.
    pub fn escapes(&self) -> usize {
        self.escapes.len()
    }
}

/// Packs a layer from its values given in order, in pieces ([`Packer::push`]), so that a layer
/// read from a compressed file never needs a byte per position in memory.
pub struct Packer {
    layer: PackedLayer,
    /// Positions packed so far (a multiple of [`GROUP_POSITIONS`] until the last push).
    packed: usize,
    /// Values pushed that do not fill a group yet.
    carry: Vec<u8>,
}

impl Packer {
    /// A packer for `len` values of a layer of `seeds` seeds; `parity` when every value has the
    /// parity of `seeds` ([`crate::rules::Rules::values_share_parity`]).
    pub fn new(len: usize, seeds: usize, parity: bool) -> Result<Packer, PackError> {
        let lines = len.div_ceil(LINE_POSITIONS);
        let groups = len.div_ceil(GROUP_POSITIONS);
        let layer = PackedLayer {
            lines: LayerBuffer::zeroed(lines * LINE_BYTES)?,
            len,
            seeds: seeds as i32,
            step: if parity { 2 } else { 1 },
            escapes: Vec::new(),
            group_starts: Vec::with_capacity(groups + 1),
        };
        let mut packer = Packer { layer, packed: 0, carry: Vec::new() };
        packer.layer.group_starts.push(0);
        Ok(packer)
    }

    /// Packs the next values, in order: whole groups now (in parallel), the rest with the next push.
    pub fn push(&mut self, mut values: &[u8]) -> Result<(), PackError> {
        if !self.carry.is_empty() {
            let missing = (GROUP_POSITIONS - self.carry.len()).min(values.len());
            self.carry.extend_from_slice(&values[..missing]);
            values = &values[missing..];
            if self.carry.len() < GROUP_POSITIONS && self.packed + self.carry.len() < self.layer.len {
                return Ok(());
            }
            let carry = std::mem::take(&mut self.carry);
            self.pack_groups(&carry)?;
        }
        let whole = if self.packed + values.len() == self.layer.len {
            values.len()
        } else {
            values.len() / GROUP_POSITIONS * GROUP_POSITIONS
        };
        self.pack_groups(&values[..whole])?;
        self.carry.extend_from_slice(&values[whole..]);
        Ok(())
    }

    /// The packed layer. Every value must have been pushed: the push that completes the layer
    /// packs its last values.
    pub fn finish(mut self) -> PackedLayer {
        assert_eq!(self.packed, self.layer.len, "every value of the layer was pushed");
        self.layer.escapes.shrink_to_fit();
        self.layer
    }

    /// Packs values that start at a group boundary: whole groups, or the layer's last values.
    fn pack_groups(&mut self, values: &[u8]) -> Result<(), PackError> {
        if values.is_empty() {
            return Ok(());
        }
        let (seeds, parity) = (self.layer.seeds as usize, self.layer.step == 2);
        check_values(values, seeds, parity)?;
        let first_line = self.packed / LINE_POSITIONS;
        let line_count = values.len().div_ceil(LINE_POSITIONS);
        let lines = &mut self.layer.lines.bytes_mut()[first_line * LINE_BYTES..][..line_count * LINE_BYTES];
        let codes = codes(seeds, parity);
        let escapes: Vec<Vec<u32>> = values
            .par_chunks(GROUP_POSITIONS)
            .zip(lines.par_chunks_mut(GROUP_BYTES))
            .map(|(group, lines)| pack_group(group, lines, &codes))
            .collect();
        for group in escapes {
            self.layer.escapes.extend_from_slice(&group);
            self.layer.group_starts.push(self.layer.escapes.len() as u64);
        }
        self.packed += values.len();
        Ok(())
    }
}

/// The code of each value of a layer of `seeds` seeds whose values were checked
/// ([`check_values`]): v + seeds is then in 0..=2 * seeds, and even when they share its parity.
fn codes(seeds: usize, parity: bool) -> impl Fn(u8) -> u8 + Sync {
    let (seeds, shift) = (seeds as i32, u32::from(parity));
    move |v: u8| ((i32::from(v as i8) + seeds) >> shift) as u8
}

/// Packs one escape group's values (or the layer's last ones) into its `lines`, whatever they held
/// before, and returns its escape entries.
fn pack_group(values: &[u8], lines: &mut [u8], code: &impl Fn(u8) -> u8) -> Vec<u32> {
    lines.fill(0);
    let mut escapes = Vec::new();
    for (k, (line_values, line)) in values.chunks(LINE_POSITIONS).zip(lines.chunks_mut(LINE_BYTES)).enumerate() {
        let line_start = k * LINE_POSITIONS;
        pack_line(line_values, line, code, |slot, value| {
            escapes.push(((line_start + slot) as u32) << 8 | u32::from(value));
        });
    }
    escapes
}

/// Checks that `values` (i8 bit patterns) can be those of a layer of `seeds` seeds: each within
/// ±seeds, and of the parity of `seeds` when `parity`. In parallel on the current rayon pool.
pub(crate) fn check_values(values: &[u8], seeds: usize, parity: bool) -> Result<(), PackError> {
    let s = seeds as i32;
    // What each byte says of a value, worked out once: the check is then one load a value.
    let verdict = |byte: u8| {
        let v = i32::from(byte as i8);
        if v.abs() > s {
            Some(PackError::OutOfRange { seeds })
        } else if parity && (v + s) % 2 != 0 {
            Some(PackError::WrongParity { seeds })
        } else {
            None
        }
    };
    let mut valid = [false; 256];
    for byte in 0..=u8::MAX {
        valid[usize::from(byte)] = verdict(byte).is_none();
    }
    match values.par_chunks(1 << 16).find_any(|chunk| !chunk.iter().all(|&v| valid[usize::from(v)])) {
        Some(chunk) => Err(chunk.iter().find_map(|&v| verdict(v)).expect("a chunk with an invalid value")),
        None => Ok(()),
    }
}

/// Packs up to [`LINE_POSITIONS`] values into one line: the base code that leaves fewest values
/// outside base..base + 15, each value's offset from it, and `escape(slot, value)` for the rest.
/// `code` turns a checked value into its code.
fn pack_line(values: &[u8], line: &mut [u8], code: &impl Fn(u8) -> u8, mut escape: impl FnMut(usize, u8)) {
    let mut codes = [0u8; LINE_POSITIONS];
    let codes = &mut codes[..values.len()];
    let (mut low, mut high) = (u8::MAX, 0);
    for (c, &value) in codes.iter_mut().zip(values) {
        *c = code(value);
        (low, high) = (low.min(*c), high.max(*c));
    }
    let base = if high - low < ESCAPE { low } else { best_base(codes, low, high) };
    line[0] = base;
    for (slot, (&c, &value)) in codes.iter().zip(values).enumerate() {
        let mut offset = c.wrapping_sub(base);
        if offset >= ESCAPE {
            escape(slot, value);
            offset = ESCAPE;
        }
        line[OFFSETS_AT + slot / 2] |= offset << ((slot & 1) * 4);
    }
}

/// The lowest base whose window of 15 codes holds the most of `codes` (spread from `low` to `high`).
#[cold]
fn best_base(codes: &[u8], low: u8, high: u8) -> u8 {
    let mut counts = [0u8; 256];
    for &c in codes {
        counts[usize::from(c)] += 1;
    }
    let (low, window) = (usize::from(low), usize::from(ESCAPE));
    let (mut base, mut best, mut held) = (low, 0, 0);
    for c in low..=usize::from(high) {
        held += usize::from(counts[c]);
        if c >= low + window {
            held -= usize::from(counts[c - window]);
        }
        if held > best {
            (best, base) = (held, (c + 1).saturating_sub(window).max(low));
        }
    }
    base as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn packed(values: &[i8], seeds: usize, parity: bool) -> PackedLayer {
        let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        PackedLayer::pack(&bytes, seeds, parity).unwrap()
    }

    #[test]
    fn values_spread_wider_than_a_line_window_come_back_through_escapes() {
        // 3 lines of values alternating between the ends of ±30: half of each line escapes.
        let values: Vec<i8> = (0..3 * LINE_POSITIONS).map(|i| if i % 2 == 0 { -30 } else { 30 }).collect();
        let layer = packed(&values, 30, true);
        assert!(layer.escapes() >= values.len() / 2 - 3, "{} escapes", layer.escapes());
        for (index, &value) in values.iter().enumerate() {
            assert_eq!(layer.get(index), i32::from(value), "position {index}");
        }
    }

    #[test]
    fn pieces_of_any_size_pack_like_the_whole() {
        let values: Vec<u8> = (0..3 * GROUP_POSITIONS + 77).map(|i| ((i * 7919 % 41) as i8 - 20) as u8).collect();
        let whole = PackedLayer::pack(&values, 20, false).unwrap();
        let mut packer = Packer::new(values.len(), 20, false).unwrap();
        for piece in values.chunks(5000) {
            packer.push(piece).unwrap();
        }
        let pieces = packer.finish();
        assert_eq!(whole.lines.bytes(), pieces.lines.bytes());
        assert_eq!(whole.escapes, pieces.escapes);
        assert_eq!(whole.group_starts, pieces.group_starts);
        let mut out = vec![0; values.len()];
        pieces.unpack(0, &mut out);
        assert_eq!(out, values);
    }

    /// Values of a layer of `len` positions and `seeds` seeds, clustered with outliers.
    fn layer_values(len: usize, seeds: usize, parity: bool) -> Vec<u8> {
        let s = seeds as i32;
        (0..len)
            .map(|i| {
                let v = if i % 97 == 0 { (i * 31 % (2 * seeds + 1)) as i32 - s } else { (i * 7919 % 9) as i32 - 4 };
                let v = v.clamp(-s, s);
                let v = if parity && (v + s) % 2 != 0 { if v < s { v + 1 } else { v - 1 } } else { v };
                v as i8 as u8
            })
            .collect()
    }

    #[test]
    fn packing_in_place_gives_the_layer_of_a_copy_and_shrinks_to_its_lines() {
        // Layers smaller than their lines' bytes (packed by a copy), groups packed alone, batches
        // of groups side by side, and a last group cut short.
        let sizes = [(1, 3, false), (100, 8, true), (131, 9, false), (5 * GROUP_POSITIONS + 3, 20, false)];
        for (len, seeds, parity) in sizes.into_iter().chain([(12 * GROUP_POSITIONS, 31, true)]) {
            let values = layer_values(len, seeds, parity);
            let copy = PackedLayer::pack(&values, seeds, parity).unwrap();
            let mut buffer = LayerBuffer::zeroed(len).unwrap();
            buffer.bytes_mut().copy_from_slice(&values);
            let in_place = PackedLayer::pack_in_place(buffer, seeds, parity).unwrap();
            assert_eq!(in_place.lines.bytes(), copy.lines.bytes(), "{len} positions");
            assert_eq!(in_place.escapes, copy.escapes, "{len} positions");
            assert_eq!(in_place.group_starts, copy.group_starts, "{len} positions");
            assert_eq!(in_place.memory_bytes(), copy.memory_bytes(), "{len} positions");
            let mut out = vec![0; len];
            in_place.unpack(0, &mut out);
            assert_eq!(out, values, "{len} positions");
        }
    }

    #[test]
    fn packing_in_place_refuses_what_a_copy_refuses() {
        let mut buffer = LayerBuffer::zeroed(2 * GROUP_POSITIONS).unwrap();
        buffer.bytes_mut()[GROUP_POSITIONS + 5] = 9;
        let refused = PackedLayer::pack_in_place(buffer, 8, false).err().map(|e| e.to_string());
        assert_eq!(refused, Some(PackError::OutOfRange { seeds: 8 }.to_string()));
    }

    #[test]
    fn values_no_layer_can_hold_are_refused() {
        let bytes = |values: &[i8]| values.iter().map(|&v| v as u8).collect::<Vec<u8>>();
        assert_eq!(
            PackedLayer::pack(&bytes(&[2, 4, 6]), 4, true).err().map(|e| e.to_string()),
            Some(PackError::OutOfRange { seeds: 4 }.to_string())
        );
        assert_eq!(
            PackedLayer::pack(&bytes(&[2, 3]), 4, true).err().map(|e| e.to_string()),
            Some(PackError::WrongParity { seeds: 4 }.to_string())
        );
        assert!(PackedLayer::pack(&bytes(&[2, 3, -4]), 4, false).is_ok());
    }

    proptest! {
        #[test]
        fn every_value_comes_back(
            seeds in 1usize..=60,
            raw in prop::collection::vec(any::<u16>(), 1..2000),
            parity: bool,
        ) {
            let s = seeds as i32;
            // Values of the layer's range and parity, clustered like real layers with outliers.
            let values: Vec<i8> = raw
                .iter()
                .map(|&r| {
                    let v = if r % 10 == 0 { i32::from(r >> 4) % (2 * s + 1) - s } else { i32::from(r >> 4) % 9 - 4 };
                    let v = v.clamp(-s, s);
                    (if parity && (v + s) % 2 != 0 { if v < s { v + 1 } else { v - 1 } } else { v }) as i8
                })
                .collect();
            let layer = packed(&values, seeds, parity);
            for (index, &value) in values.iter().enumerate() {
                prop_assert_eq!(layer.get(index), i32::from(value));
            }
        }
    }
}
