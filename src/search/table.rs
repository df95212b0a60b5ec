//! The transposition table: a fixed-size array of packed entries, each holding proven bounds on
//! the board value of one house configuration, the move that last proved something, and how much
//! work the proof took.
//!
//! Board values depend on the houses only (not the stores, not the side), so an entry is keyed by
//! [`Position::house_key`](crate::board::Position::house_key) and stores values relative to the
//! node: nothing needs adjusting when the same houses are reached with other stores. The whole key
//! is kept, so a hit is never a collision and bounds read back are always proven.

/// No move recorded.
pub const NO_MOVE: u8 = u8::MAX;

/// Entries per bucket: one kept for the work behind it, one always replaced.
const BUCKET: usize = 2;

/// One entry: 24 bytes. Every bit pattern is a valid entry, all zeros an empty one.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    /// The house key, low and high halves; zero marks an empty entry (an empty board is over and
    /// never stored).
    key_low: u64,
    key_high: u64,
    lower: i16,
    upper: i16,
    best: u8,
    /// log2 of the nodes searched to prove these bounds, for replacement.
    work: u8,
}

/// What the table knows about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// Proven lower bound on the board value.
    pub lower: i32,
    /// Proven upper bound on the board value.
    pub upper: i32,
    /// The 0-based house that last raised the lower bound, or [`NO_MOVE`].
    pub best: u8,
}

/// A transposition table of a fixed number of entries.
pub struct Table {
    /// Anonymous memory advised for huge pages: every probe is a random read, and with 4 KiB
    /// pages it would also miss the TLB.
    memory: crate::database::LayerBuffer,
    mask: usize,
    stores: u64,
}

/// Mixes a house key into a bucket number: keys are small dense bytes, so they need mixing.
#[inline]
fn hash(key: u128) -> u64 {
    // splitmix64's finaliser over both halves.
    let mut z = (key as u64) ^ ((key >> 64) as u64).rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Table {
    /// Bytes per entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    /// A table using at most `bytes` of memory (at least one bucket), a power of two of buckets.
    pub fn with_bytes(bytes: usize) -> Table {
        let buckets = (bytes / (BUCKET * Table::ENTRY_BYTES)).max(1);
        let buckets = if buckets.is_power_of_two() { buckets } else { buckets.next_power_of_two() / 2 };
        let memory = crate::database::LayerBuffer::zeroed(buckets * BUCKET * Table::ENTRY_BYTES)
            .expect("memory for the transposition table");
        Table { memory, mask: buckets - 1, stores: 0 }
    }

    #[inline]
    fn entries(&self) -> &[Entry] {
        let bytes = self.memory.bytes();
        // SAFETY: the buffer is page-aligned and a whole number of entries long; Entry is plain
        // integers with C layout, so every byte pattern is a valid Entry; the borrow of `self`
        // keeps the bytes alive and unaliased by writers.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<Entry>(), bytes.len() / Table::ENTRY_BYTES) }
    }

    #[inline]
    fn entries_mut(&mut self) -> &mut [Entry] {
        let bytes = self.memory.bytes_mut();
        // SAFETY: as in `entries`, and the exclusive borrow of `self` makes this the only view.
        unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<Entry>(), bytes.len() / Table::ENTRY_BYTES) }
    }

    /// Memory used, in bytes.
    pub fn bytes(&self) -> usize {
        self.memory.bytes().len()
    }

    /// Entries written so far (new and updated).
    pub fn stores(&self) -> u64 {
        self.stores
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries_mut().fill(Entry::default());
        self.stores = 0;
    }

    #[inline]
    fn bucket(&self, key: u128) -> usize {
        (hash(key) as usize & self.mask) * BUCKET
    }

    /// Starts bringing the bucket of `key` into the cache; no effect on results.
    #[inline]
    pub fn prefetch(&self, key: u128) {
        crate::database::prefetch(std::ptr::from_ref(&self.entries()[self.bucket(key)]).cast());
    }

    /// The bounds proven for `key`, if the table still holds them.
    #[inline]
    pub fn probe(&self, key: u128) -> Option<Known> {
        let (low, high) = (key as u64, (key >> 64) as u64);
        let start = self.bucket(key);
        self.entries()[start..start + BUCKET].iter().find(|e| e.key_low == low && e.key_high == high).map(|e| Known {
            lower: i32::from(e.lower),
            upper: i32::from(e.upper),
            best: e.best,
        })
    }

    /// Records proven bounds for `key`. Bounds already held for it are kept where tighter: both
    /// are proofs about the same exact value. `nodes` is the work the proof took.
    #[inline]
    pub fn store(&mut self, key: u128, lower: i32, upper: i32, best: u8, nodes: u64) {
        debug_assert!(lower <= upper, "bounds {lower}..{upper} contradict");
        self.stores += 1;
        let (low, high) = (key as u64, (key >> 64) as u64);
        let work = (64 - nodes.leading_zeros()) as u8;
        let start = self.bucket(key);
        let bucket = &mut self.entries_mut()[start..start + BUCKET];
        if let Some(entry) = bucket.iter_mut().find(|e| e.key_low == low && e.key_high == high) {
            entry.lower = entry.lower.max(lower as i16);
            entry.upper = entry.upper.min(upper as i16);
            if best != NO_MOVE {
                entry.best = best;
            }
            entry.work = entry.work.max(work);
            return;
        }
        let fresh = Entry { key_low: low, key_high: high, lower: lower as i16, upper: upper as i16, best, work };
        // The first entry keeps the costliest proof; the one it displaces moves to the second.
        if work >= bucket[0].work {
            bucket[1] = bucket[0];
            bucket[0] = fresh;
        } else {
            bucket[1] = fresh;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_tighten_and_costly_entries_survive() {
        let mut table = Table::with_bytes(Table::ENTRY_BYTES * BUCKET);
        assert_eq!(table.bytes(), 48);
        table.store(7, -3, 10, 2, 1000);
        table.store(7, 0, 12, NO_MOVE, 10);
        assert_eq!(table.probe(7), Some(Known { lower: 0, upper: 10, best: 2 }));
        // One bucket: two cheap newcomers take turns in the second entry, the costly one stays.
        table.store(8, 1, 1, 0, 1);
        table.store(9 << 64, 2, 2, 0, 1);
        assert_eq!(table.probe(7).map(|k| k.lower), Some(0));
        assert_eq!(table.probe(8), None);
        assert_eq!(table.probe(9 << 64).map(|k| k.upper), Some(2));
        assert_eq!(table.probe(9), None, "both halves of the key are compared");
    }
}
