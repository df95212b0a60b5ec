//! The transposition table: a fixed-size array of packed entries, each holding proven bounds on
//! the board value of one house configuration, the move that last proved something, and how much
//! work the proof took. Threads share one table.
//!
//! Board values depend on the houses only (not the stores, not the side), so an entry is keyed by
//! [`Position::house_key`](crate::board::Position::house_key) and the number of houses per side
//! ([`TableKey`]) and stores values relative to the node: nothing needs adjusting when the same
//! houses are reached with other stores. The whole key is kept, so a hit is never a collision and
//! bounds read back are always proven. (The house key alone would not do: three houses per side
//! with counts `a b c` read the same as four with `a b c 0`.)
//!
//! Layout: one 64-byte cache line per bucket: a 4-byte version, then three entries of five 4-byte
//! words (the key's 16 bytes, then the data: bounds, move, work, houses per side). The version
//! makes each bucket a sequence lock: a writer makes it odd while it writes, a reader that sees it
//! odd or changed treats the read as a miss (4 bytes wrap round only after 2^31 writes to one
//! bucket, far more than a reader is ever held up for). A writer that finds the bucket locked
//! drops its store (the table may always forget), so no thread ever waits, and no reader ever sees
//! half of one entry with half of another. Three entries a line instead of two (8-byte words: a
//! version, two entries of three words and a spare word) hold half as many positions again in the
//! same memory:
//! empty-capture Kalah(6,5) over the 24-seed database (1 GiB, 2 threads) 651 M nodes and 129.6 s
//! with two, 602 M and 125.1 s with three; the mid-game position of the search notes (one thread)
//! 43.4 M nodes and 19.1 s against 42.9 M and 17.8 s.
//! Bounds are kept in one byte each: beyond the byte's range they are weakened (a lower bound
//! above 127 is kept as 127), or kept as none (-128 for the lower, 127 for the upper), which only
//! boards with over 127 seeds ever need.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering, fence};

use memmap2::{MmapMut, MmapOptions};

use super::SearchError;
use crate::board::Position;

/// No move recorded.
pub const NO_MOVE: u8 = u8::MAX;

/// 4-byte words per bucket: the version, then [`ENTRIES`] entries of [`ENTRY_WORDS`] words.
const BUCKET_WORDS: usize = 16;
/// Entries per bucket.
const ENTRIES: usize = 3;
/// Words per entry: the key's four, then the data.
const ENTRY_WORDS: usize = 5;
/// The data word's move field when there is none.
const NO_MOVE_BITS: u32 = 0xF;

/// A position as the table knows it: its houses and how many there are per side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableKey {
    houses: u128,
    size: u8,
}

impl TableKey {
    /// The key of `position`'s houses.
    #[inline]
    pub fn of(position: &Position) -> TableKey {
        TableKey { houses: position.house_key(), size: position.houses() as u8 }
    }

    /// The houses mixed with `salt` into 64 bits: keys are small dense bytes, so they need
    /// mixing. The table's bucket numbers take no salt; other caches salt it to keep their
    /// users apart.
    #[inline]
    pub(super) fn hash(self, salt: u64) -> u64 {
        let houses = self.houses;
        crate::board::mix64(
            (houses as u64) ^ ((houses >> 64) as u64).rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt,
        )
    }
}

/// What the table holds for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// Proven lower bound on the board value.
    pub lower: i32,
    /// Proven upper bound on the board value.
    pub upper: i32,
    /// The 0-based house that last raised the lower bound, or [`NO_MOVE`].
    pub best: u8,
    /// Log2 of the nodes the proof took (0: none recorded).
    pub work: u8,
}

/// One entry's data word: bounds (one byte each, see the module notes), best move (4 bits), work
/// (log2 of the nodes behind the proof, 6 bits) and the houses per side of the position (the rest
/// of its key, 4 bits). An empty entry's word is 0: a stored one always has houses.
#[derive(Clone, Copy)]
struct Data {
    lower: i8,
    upper: i8,
    best: u8,
    work: u8,
    size: u8,
}

/// A lower bound's byte: itself, weakened to 127 above, or -128 (none) below -127.
fn lower_byte(lower: i32) -> i8 {
    lower.clamp(-128, 127) as i8
}

/// An upper bound's byte: itself, weakened to -128 below, or 127 (none) above 126.
fn upper_byte(upper: i32) -> i8 {
    upper.clamp(-128, 127) as i8
}

/// What no bound means, read back: far beyond any board's seeds (the search clamps it to them).
const UNBOUNDED: i32 = 1 << 15;

impl Data {
    fn pack(self) -> u32 {
        let best = if self.best == NO_MOVE { NO_MOVE_BITS } else { u32::from(self.best) & 0x7 };
        u32::from(self.lower as u8)
            | u32::from(self.upper as u8) << 8
            | best << 16
            | u32::from(self.work.min(63)) << 20
            | u32::from(self.size & 0xF) << 26
    }

    fn unpack(word: u32) -> Data {
        let best = (word >> 16) & 0xF;
        Data {
            lower: word as u8 as i8,
            upper: (word >> 8) as u8 as i8,
            best: if best == NO_MOVE_BITS { NO_MOVE } else { best as u8 },
            work: ((word >> 20) & 0x3F) as u8,
            size: ((word >> 26) & 0xF) as u8,
        }
    }

    fn stored(self) -> Stored {
        Stored {
            lower: if self.lower == i8::MIN { -UNBOUNDED } else { i32::from(self.lower) },
            upper: if self.upper == i8::MAX { UNBOUNDED } else { i32::from(self.upper) },
            best: self.best,
            work: self.work,
        }
    }
}

/// A transposition table of a fixed number of buckets, shared by every thread of a search.
pub struct Table {
    /// Keeps the memory mapped; only reached through `words`.
    _memory: MmapMut,
    /// The mapping's words, all accessed atomically.
    words: NonNull<AtomicU32>,
    len: usize,
    buckets: usize,
}

// SAFETY: the table's memory is only ever read and written through atomics (`words`), and the
// mapping it points into lives as long as the table.
unsafe impl Send for Table {}
// SAFETY: as above: shared access is atomic access.
unsafe impl Sync for Table {}

impl Table {
    /// Bytes per bucket (three entries).
    pub const BUCKET_BYTES: usize = BUCKET_WORDS * 4;

    /// A table using at most `bytes` of memory (as many whole buckets as fit, at least one), in
    /// anonymous memory advised for huge pages: every probe is a random read, and with 4 KiB
    /// pages it would also miss the TLB. Fails when the system refuses the memory (see
    /// `Table::for_search`).
    pub fn with_bytes(bytes: usize) -> std::io::Result<Table> {
        let buckets = (bytes / Table::BUCKET_BYTES).max(1);
        let len = buckets * BUCKET_WORDS;
        let mut memory = MmapOptions::new().len(len * 4).map_anon()?;
        #[cfg(target_os = "linux")]
        if len * 4 >= 2 << 20 {
            // Only a hint: without transparent huge pages everything still works.
            let _ = memory.advise(memmap2::Advice::HugePage);
        }
        let words = NonNull::new(memory.as_mut_ptr().cast::<AtomicU32>()).expect("a mapped address");
        Ok(Table { _memory: memory, words, len, buckets })
    }

    /// [`Table::with_bytes`], a refusal being the search's [`SearchError::TableMemory`].
    pub(crate) fn for_search(bytes: usize) -> Result<Table, SearchError> {
        Table::with_bytes(bytes).map_err(|source| SearchError::TableMemory { bytes, source })
    }

    /// Makes the system back every page of the table now, on the threads of the current rayon
    /// pool, instead of one page at a time at the first store into it. Entries are left as they
    /// are, also while other threads use the table: the first word of each 4 KiB page gets an
    /// atomic write that changes nothing, which is what claims the page.
    pub fn touch_all(&self) {
        use rayon::prelude::*;
        const PAGE_WORDS: usize = 4096 / 4;
        self.words().par_chunks(PAGE_WORDS).for_each(|page| {
            let word = page[0].load(Ordering::Relaxed);
            let _ = page[0].compare_exchange(word, word, Ordering::Relaxed, Ordering::Relaxed);
        });
    }

    /// Empties the table: every entry is forgotten, as in a new table of the same size. Only
    /// while no search uses it (an entry stored meanwhile may survive, which is harmless).
    pub fn clear(&self) {
        use rayon::prelude::*;
        self.words().par_iter().for_each(|word| word.store(0, Ordering::Relaxed));
    }

    /// Memory used, in bytes.
    pub fn bytes(&self) -> usize {
        self.len * 4
    }

    #[inline]
    fn words(&self) -> &[AtomicU32] {
        // SAFETY: the mapping is page-aligned (so 4-byte aligned), `len` words long, zeroed at
        // creation (a valid AtomicU32 is any 4 bytes) and alive as long as `self`; every access
        // goes through these atomics.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr(), self.len) }
    }

    /// The bucket of `key`: its hash scaled to the number of buckets (the high word of the
    /// product), so that a table may have any number of them, not only a power of two.
    #[inline]
    fn bucket(&self, key: TableKey) -> &[AtomicU32] {
        let bucket = ((u128::from(key.hash(0)) * self.buckets as u128) >> 64) as usize;
        let start = bucket * BUCKET_WORDS;
        &self.words()[start..start + BUCKET_WORDS]
    }

    /// Starts bringing the bucket of `key` into the cache; no effect on results.
    #[inline]
    pub(crate) fn prefetch(&self, key: TableKey) {
        crate::cpu::prefetch(self.bucket(key).as_ptr().cast());
    }

    /// The bounds proven for `key`, if the table still holds them (and no writer is busy with
    /// its bucket).
    #[inline]
    pub fn probe(&self, key: TableKey) -> Option<Stored> {
        let words = key_words(key);
        let bucket = self.bucket(key);
        let version = bucket[0].load(Ordering::Acquire);
        if version & 1 != 0 {
            return None;
        }
        let mut found = None;
        for entry in bucket[1..].chunks_exact(ENTRY_WORDS) {
            if let Some(data) = held(entry, &words, key.size) {
                found = Some(data);
                break;
            }
        }
        fence(Ordering::Acquire);
        if bucket[0].load(Ordering::Relaxed) != version {
            return None;
        }
        found.map(Data::stored)
    }

    /// Records proven bounds for `key`. Bounds already held for it are kept where tighter: both
    /// are proofs about the same exact value. `nodes` is the work the proof took; a new key takes
    /// the place of the entry with the least work. Dropped when another thread is writing the
    /// same bucket.
    #[inline]
    pub fn store(&self, key: TableKey, lower: i32, upper: i32, best: u8, nodes: u64) {
        debug_assert!(lower <= upper, "bounds {lower}..{upper} contradict");
        let words = key_words(key);
        let work = (64 - nodes.leading_zeros()) as u8;
        let bucket = self.bucket(key);
        let version = bucket[0].load(Ordering::Relaxed);
        if version & 1 != 0
            || bucket[0].compare_exchange(version, version + 1, Ordering::Acquire, Ordering::Relaxed).is_err()
        {
            return;
        }
        fence(Ordering::Release);
        let entry = |i: usize| &bucket[1 + ENTRY_WORDS * i..1 + ENTRY_WORDS * (i + 1)];
        let data = |i: usize| Data::unpack(entry(i)[4].load(Ordering::Relaxed));
        let fresh = Data { lower: lower_byte(lower), upper: upper_byte(upper), best, work, size: key.size };
        let (slot, written) = match (0..ENTRIES).find_map(|i| held(entry(i), &words, key.size).map(|old| (i, old))) {
            Some((i, old)) => {
                let merged = Data {
                    lower: old.lower.max(fresh.lower),
                    upper: old.upper.min(fresh.upper),
                    best: if best != NO_MOVE { best } else { old.best },
                    work: old.work.max(work),
                    size: key.size,
                };
                (i, merged)
            }
            // The cheapest proof goes (an empty entry has none); of equals, the last.
            None => ((0..ENTRIES).rev().min_by_key(|&i| data(i).work).expect("entries"), fresh),
        };
        for (target, word) in entry(slot).iter().zip(words.iter().chain([&written.pack()])) {
            target.store(*word, Ordering::Relaxed);
        }
        bucket[0].store(version.wrapping_add(2), Ordering::Release);
    }
}

/// The data of `entry` when it holds the key with these `words` and houses per side (`size`).
#[inline]
fn held(entry: &[AtomicU32], words: &[u32; 4], size: u8) -> Option<Data> {
    if words.iter().zip(entry).any(|(word, held)| held.load(Ordering::Relaxed) != *word) {
        return None;
    }
    Some(Data::unpack(entry[4].load(Ordering::Relaxed))).filter(|data| data.size == size)
}

/// A key's four words as an entry keeps them.
#[inline]
fn key_words(key: TableKey) -> [u32; 4] {
    let h = key.houses;
    [h as u32, (h >> 32) as u32, (h >> 64) as u32, (h >> 96) as u32]
}

/// First bytes of a saved table.
/// (Version 2: entries name their houses per side; version 3: three entries a bucket; version 4:
/// buckets chosen by the hash's high bits, scaled to their number.)
const SNAPSHOT_MAGIC: &[u8; 8] = b"KALAHTT4";

/// Why a saved table cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Not a saved table, damaged, or saved for another table size or another search.
    #[error("{path}: {reason}")]
    Unusable {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
}

impl Table {
    /// Writes every bucket to `path` (whole or not at all: a temporary file, then a rename), with
    /// `tag` naming what the bounds are about (rules and board) and a checksum. Meant for when no
    /// search runs; a bucket a writer holds at that moment is saved empty.
    pub(crate) fn save(&self, path: &std::path::Path, tag: &str) -> Result<(), SnapshotError> {
        use std::io::Write;
        crate::atomic::write_file(path, |file| {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            file.write_all(SNAPSHOT_MAGIC)?;
            file.write_all(&(self.len as u64).to_le_bytes())?;
            file.write_all(&(tag.len() as u64).to_le_bytes())?;
            file.write_all(tag.as_bytes())?;
            let mut chunk = Vec::with_capacity(1 << 20);
            for bucket in self.words().chunks_exact(BUCKET_WORDS) {
                let locked = bucket[0].load(Ordering::Acquire) & 1 != 0;
                for word in bucket {
                    let word = if locked { 0 } else { word.load(Ordering::Relaxed) };
                    chunk.extend_from_slice(&word.to_le_bytes());
                }
                if chunk.len() >= 1 << 20 {
                    hasher.update(&chunk);
                    file.write_all(&chunk)?;
                    chunk.clear();
                }
            }
            hasher.update(&chunk);
            file.write_all(&chunk)?;
            file.write_all(&hasher.digest().to_le_bytes())
        })
        .map_err(|source| SnapshotError::Io { path: path.to_path_buf(), source })
    }

    /// Replaces the table's contents with the table saved at `path`, which must have this
    /// table's size and the same `tag`. On any error the table is left empty or as it was.
    pub fn load(&self, path: &std::path::Path, tag: &str) -> Result<(), SnapshotError> {
        use std::io::Read;
        let io = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::UnexpectedEof => SnapshotError::Unusable {
                path: path.to_path_buf(),
                reason: "truncated: the file ends before the table does".into(),
            },
            _ => SnapshotError::Io { path: path.to_path_buf(), source },
        };
        let unusable = |reason: String| SnapshotError::Unusable { path: path.to_path_buf(), reason };
        let mut file = std::io::BufReader::with_capacity(1 << 20, crate::input::open(path).map_err(io)?);
        let mut word = [0u8; 8];
        let mut read_word = |file: &mut std::io::BufReader<std::fs::File>| -> Result<u64, SnapshotError> {
            file.read_exact(&mut word).map_err(io)?;
            Ok(u64::from_le_bytes(word))
        };
        let magic = read_word(&mut file)?.to_le_bytes();
        if magic != *SNAPSHOT_MAGIC {
            // The same name but another version number: written by another build of kalah.
            return Err(unusable(if magic[..7] == SNAPSHOT_MAGIC[..7] {
                let (found, reads) = (String::from_utf8_lossy(&magic), String::from_utf8_lossy(SNAPSHOT_MAGIC));
                format!("saved by another version of kalah ({found}, this one reads {reads})")
            } else {
                "not a saved transposition table".into()
            }));
        }
        let len = read_word(&mut file)?;
        if len != self.len as u64 {
            // A damaged length may be any word: no overflow in the message.
            let saved_bytes = u128::from(len) * 4;
            return Err(unusable(format!("saved from a table of {saved_bytes} bytes, this one has {}", self.bytes())));
        }
        let tag_len = read_word(&mut file)?;
        let mut saved_tag = vec![0u8; tag_len.min(1 << 16) as usize];
        file.read_exact(&mut saved_tag).map_err(io)?;
        if saved_tag != tag.as_bytes() {
            return Err(unusable(format!("saved for '{}', not '{tag}'", String::from_utf8_lossy(&saved_tag))));
        }
        let mut contents = || {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            let mut chunk = vec![0u8; 1 << 20];
            for words in self.words().chunks(chunk.len() / 4) {
                let bytes = &mut chunk[..words.len() * 4];
                file.read_exact(bytes).map_err(io)?;
                hasher.update(bytes);
                for (target, bytes) in words.iter().zip(bytes.chunks_exact(4)) {
                    target.store(u32::from_le_bytes(bytes.try_into().expect("4 bytes")), Ordering::Relaxed);
                }
            }
            match read_word(&mut file)? == hasher.digest() {
                true => Ok(()),
                false => Err(unusable("checksum mismatch: the file is damaged".into())),
            }
        };
        contents().inspect_err(|_| {
            // Part of it may be loaded already, unchecked: forget all of it.
            self.words().iter().for_each(|w| w.store(0, Ordering::Relaxed));
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of a 6-house position with these houses.
    fn k(houses: u128) -> TableKey {
        TableKey { houses, size: 6 }
    }

    #[test]
    fn a_cleared_table_holds_nothing_and_stores_again() {
        let table = Table::with_bytes(64 * Table::BUCKET_BYTES).unwrap();
        let keys: Vec<TableKey> = (1..=40u128).map(|h| k(h * 0x9e37_79b9)).collect();
        for (i, &key) in keys.iter().enumerate() {
            table.store(key, -(i as i32), i as i32, 1, 1000);
        }
        assert!(keys.iter().filter(|&&key| table.probe(key).is_some()).count() > 30);
        table.clear();
        assert!(keys.iter().all(|&key| table.probe(key).is_none()), "every entry forgotten");
        table.store(keys[0], 2, 2, 0, 1);
        assert_eq!(table.probe(keys[0]), Some(Stored { lower: 2, upper: 2, best: 0, work: 1 }));
    }

    #[test]
    fn bounds_tighten_and_costly_entries_survive() {
        let table = Table::with_bytes(Table::BUCKET_BYTES).unwrap();
        assert_eq!(table.bytes(), 64);
        table.store(k(7), -3, 10, 2, 1000);
        table.store(k(7), 0, 12, NO_MOVE, 10);
        assert_eq!(table.probe(k(7)), Some(Stored { lower: 0, upper: 10, best: 2, work: 10 }));
        // One bucket of three entries: newcomers take the place of the cheapest proof.
        table.store(k(8), -1, 1, 0, 1);
        table.store(k(9 << 64), 2, 2, 0, 1);
        assert_eq!(table.probe(k(8)).map(|k| k.upper), Some(1), "three entries held");
        table.store(k(10), 5, 5, 1, 1);
        assert_eq!(table.probe(k(7)).map(|k| k.lower), Some(0), "the costly one stays");
        assert_eq!(table.probe(k(10)).map(|k| k.lower), Some(5));
        assert_eq!(
            [k(8), k(9 << 64)].iter().filter(|&&key| table.probe(key).is_some()).count(),
            1,
            "one cheap entry made room"
        );
        assert_eq!(table.probe(k(9)), None, "every word of the key is compared");
        let three_houses = TableKey { houses: 10, size: 3 };
        assert_eq!(table.probe(three_houses), None, "the same houses on a board of another size");
        table.store(three_houses, -4, -4, 1, 1 << 20);
        assert_eq!(table.probe(three_houses).map(|k| k.lower), Some(-4));
        assert_ne!(table.probe(k(10)).map(|k| k.lower), Some(-4), "a 3-house entry read for 6 houses");
    }

    /// Bounds beyond a byte's range come back weakened, never wrong: a lower bound above 127 as
    /// 127, an upper one below -128 as -128, and the other side as no bound at all.
    #[test]
    fn bounds_beyond_a_byte_are_weakened() {
        let table = Table::with_bytes(1 << 16).unwrap();
        table.store(k(1), 150, 300, 3, 5);
        let high = table.probe(k(1)).unwrap();
        assert_eq!(high.lower, 127);
        assert!(high.upper >= 300, "{high:?}");
        table.store(k(2), -300, -150, NO_MOVE, 5);
        let low = table.probe(k(2)).unwrap();
        assert!(low.lower <= -300, "{low:?}");
        assert_eq!((low.upper, low.best), (-128, NO_MOVE));
        // At the edges of the range: -127 and 126 are bounds, -128 and 127 would not be.
        table.store(k(3), -127, 126, 0, 5);
        assert_eq!(table.probe(k(3)).map(|k| (k.lower, k.upper)), Some((-127, 126)));
        table.store(k(4), -128, 127, 0, 5);
        let none = table.probe(k(4)).unwrap();
        assert!(none.lower <= -128 && none.upper >= 127, "{none:?}");
        // Tighter bounds stored later still tighten.
        table.store(k(4), -20, 30, 0, 5);
        assert_eq!(table.probe(k(4)).map(|k| (k.lower, k.upper)), Some((-20, 30)));
    }

    /// A size that is not a power of two is kept whole: 1,000 buckets, not 512, and 3,000 keys
    /// spread over all of them (where 512 buckets could hold at most 1,536).
    #[test]
    fn a_table_of_any_size_uses_all_of_it() {
        let table = Table::with_bytes(1000 * Table::BUCKET_BYTES + 63).unwrap();
        assert_eq!(table.bytes(), 1000 * Table::BUCKET_BYTES);
        let keys = (1..=3000u128).map(|key| k(key * 0x9e37_79b9_7f4a));
        for key in keys.clone() {
            table.store(key, 0, 0, 0, 1);
        }
        // Three keys a bucket on average: about 2,330 fit (a Poisson spread, three a bucket).
        let kept = keys.filter(|&key| table.probe(key).is_some()).count();
        assert!((2000..=3000).contains(&kept), "{kept} of 3,000 kept");
    }

    #[test]
    fn touching_every_page_keeps_every_entry() {
        let table = Table::with_bytes(1 << 16).unwrap();
        let keys = (0..3000u128).map(|key| k(key * 7919));
        for (i, key) in keys.clone().enumerate() {
            table.store(key, -(i as i32 % 5), i as i32 % 9, (i % 6) as u8, i as u64);
        }
        let before: Vec<_> = keys.clone().map(|key| table.probe(key)).collect();
        assert!(before.iter().filter(|known| known.is_some()).count() > 1000, "most entries kept");
        table.touch_all();
        let after: Vec<_> = keys.map(|key| table.probe(key)).collect();
        assert_eq!(before, after);
    }

    #[test]
    fn a_saved_table_loads_back_only_into_a_table_of_its_size_and_tag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        let table = Table::with_bytes(1 << 16).unwrap();
        for key in 0..2000u128 {
            table.store(k(key * 977), -(key as i32 % 7), key as i32 % 11, (key % 6) as u8, key as u64);
        }
        table.save(&path, "standard|6").unwrap();
        let copy = Table::with_bytes(1 << 16).unwrap();
        copy.load(&path, "standard|6").unwrap();
        for key in 0..2000u128 {
            assert_eq!(copy.probe(k(key * 977)), table.probe(k(key * 977)), "{key}");
        }
        assert!(matches!(copy.load(&path, "empty-capture|6"), Err(SnapshotError::Unusable { .. })));
        let mut older = std::fs::read(&path).unwrap();
        older[7] = b'1';
        let older_path = dir.path().join("older.table");
        std::fs::write(&older_path, &older).unwrap();
        let refused = copy.load(&older_path, "standard|6").unwrap_err();
        assert!(refused.to_string().contains("another version of kalah (KALAHTT1"), "{refused}");
        assert!(matches!(
            Table::with_bytes(1 << 17).unwrap().load(&path, "standard|6"),
            Err(SnapshotError::Unusable { .. })
        ));
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let damaged = copy.load(&path, "standard|6").unwrap_err();
        assert!(damaged.to_string().contains("checksum"), "{damaged}");
        assert_eq!(copy.probe(k(977)), None, "a damaged snapshot leaves the table empty");
        table.save(&path, "standard|6").unwrap();
        copy.load(&path, "standard|6").unwrap();
        assert!(copy.probe(k(977)).is_some());
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() - 5000]).unwrap();
        let truncated = copy.load(&path, "standard|6").unwrap_err();
        assert!(truncated.to_string().contains("truncated: the file ends"), "{truncated}");
        assert_eq!(copy.probe(k(977)), None, "a truncated snapshot leaves the table empty");
        // A damaged length word, the largest there is: refused, not an overflow.
        let mut wild = SNAPSHOT_MAGIC.to_vec();
        wild.extend(u64::MAX.to_le_bytes());
        std::fs::write(&path, &wild).unwrap();
        let refused = copy.load(&path, "standard|6").unwrap_err().to_string();
        assert!(refused.contains(&format!("saved from a table of {} bytes", u128::from(u64::MAX) * 4)), "{refused}");
    }

    #[test]
    fn threads_never_read_a_mixed_entry() {
        // Two writers hammer one bucket with entries whose bounds encode their key; readers must
        // only ever see matching pairs.
        let table = Table::with_bytes(Table::BUCKET_BYTES).unwrap();
        std::thread::scope(|scope| {
            for thread in 0..3u64 {
                let table = &table;
                scope.spawn(move || {
                    for i in 0..200_000u64 {
                        let key = u128::from(1 + (i * 7 + thread) % 5);
                        let value = key as i32 * 20;
                        if thread < 2 {
                            table.store(k(key), value, value, (key % 6) as u8, i);
                        } else if let Some(known) = table.probe(k(key)) {
                            assert_eq!((known.lower, known.upper, known.best), (value, value, (key % 6) as u8));
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn memory_the_system_refuses_is_an_error() {
        assert!(Table::with_bytes(1 << 60).is_err(), "no machine maps an exbibyte");
    }
}
