//! A layer's values in memory: a byte per position, or packed ([`PackedLayer`]) at about 4.5 bits.

use std::sync::atomic::AtomicU8;

use memmap2::{MmapMut, MmapOptions};

use super::packed::{PackError, PackedLayer};

/// How loaded layers are held in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Bytes for a database of at most a quarter of the machine's memory at a byte a position
    /// (they read in half the time), packed for a bigger one (`Layout::for_positions`).
    #[default]
    Auto,
    /// About 4.2-4.5 bits a position: 30 seeds of Kalah(6,n) in 6.0 GB instead of 11 GB.
    Packed,
    /// A byte a position: no decoding on a probe, and the fastest to read.
    Bytes,
}

impl Layout {
    /// The layout for a database of `positions` positions: `Auto` resolved against this machine's
    /// memory (packed where it cannot be read).
    pub(crate) fn for_positions(self, positions: u64) -> Layout {
        match self {
            Layout::Auto => match crate::memory::total_bytes() {
                Some(memory) if positions <= memory / 4 => Layout::Bytes,
                _ => Layout::Packed,
            },
            chosen => chosen,
        }
    }

    /// What a layer of `positions` positions will take in memory in this layout (resolved as
    /// [`Layout::for_positions`] would for a database of that size when `Auto`), from above.
    pub(crate) fn memory_estimate(self, positions: u64) -> u64 {
        match self.for_positions(positions) {
            Layout::Packed => PackedLayer::memory_estimate(positions),
            _ => positions,
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = String;

    fn from_str(text: &str) -> Result<Layout, String> {
        match text {
            "auto" => Ok(Layout::Auto),
            "packed" => Ok(Layout::Packed),
            "bytes" => Ok(Layout::Bytes),
            _ => Err(format!("unknown layout '{text}' (auto, packed or bytes)")),
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layout::Auto => "auto",
            Layout::Packed => "packed",
            Layout::Bytes => "bytes",
        })
    }
}

/// A layer's values: a byte a position while a builder writes them, either layout once done.
pub enum LayerValues {
    /// One i8 bit pattern per position.
    Bytes(LayerBuffer),
    /// Packed.
    Packed(PackedLayer),
}

impl LayerValues {
    /// The board value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> i32 {
        match self {
            LayerValues::Bytes(buffer) => i32::from(buffer.bytes()[index] as i8),
            LayerValues::Packed(packed) => packed.get(index),
        }
    }

    /// The address holding the value at `index`, for a prefetch.
    #[inline]
    pub fn address(&self, index: usize) -> *const u8 {
        match self {
            LayerValues::Bytes(buffer) => buffer.bytes().as_ptr().wrapping_add(index),
            LayerValues::Packed(packed) => packed.address(index),
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        match self {
            LayerValues::Bytes(buffer) => buffer.bytes().len(),
            LayerValues::Packed(packed) => packed.len(),
        }
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values of positions `start..start + out.len()`, as i8 bit patterns.
    pub(crate) fn copy_to(&self, start: usize, out: &mut [u8]) {
        match self {
            LayerValues::Bytes(buffer) => out.copy_from_slice(&buffer.bytes()[start..start + out.len()]),
            LayerValues::Packed(packed) => packed.unpack(start, out),
        }
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> u64 {
        match self {
            LayerValues::Bytes(buffer) => buffer.bytes().len() as u64,
            LayerValues::Packed(packed) => packed.memory_bytes(),
        }
    }

    /// Positions whose packed value is in the escape list; `None` for bytes.
    pub fn escapes(&self) -> Option<u64> {
        match self {
            LayerValues::Bytes(_) => None,
            LayerValues::Packed(packed) => Some(packed.escapes() as u64),
        }
    }

    /// These values in `layout` (resolved, not `Auto`): bytes as they are, or packed in their own
    /// memory, which then shrinks ([`PackedLayer::pack_in_place`]).
    /// `seeds` and `parity` describe the layer ([`PackedLayer::pack`]).
    pub(crate) fn into_layout(self, layout: Layout, seeds: usize, parity: bool) -> Result<LayerValues, PackError> {
        match (self, layout) {
            (LayerValues::Bytes(buffer), Layout::Packed) => {
                Ok(LayerValues::Packed(PackedLayer::pack_in_place(buffer, seeds, parity)?))
            }
            (values, _) => Ok(values),
        }
    }
}

/// A layer's bytes in memory: an anonymous map the kernel is asked to back with huge pages.
/// Probes and builders read layers at random, and with 4 KiB pages nearly every read of a large
/// layer would also miss the TLB.
pub struct LayerBuffer {
    map: MmapMut,
    len: usize,
}

impl LayerBuffer {
    /// `len` zero bytes.
    pub(crate) fn zeroed(len: usize) -> std::io::Result<LayerBuffer> {
        // A zero-length anonymous map is refused; one spare byte keeps every buffer mappable.
        let map = MmapOptions::new().len(len.max(1)).map_anon()?;
        #[cfg(target_os = "linux")]
        if len >= 2 << 20 {
            // Only a hint: without transparent huge pages everything still works.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(LayerBuffer { map, len })
    }

    /// The values, i8 bit patterns.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.map[..self.len]
    }

    /// The values, writable.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len]
    }

    /// Keeps the first `len` bytes (at most those held) and gives the memory of the rest back.
    pub(crate) fn truncate(&mut self, len: usize) {
        assert!(len <= self.len, "a buffer of {} bytes cut to {len}", self.len);
        self.len = len;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: the map is anonymous, so there is no file end to run past, and every view
            // of the buffer goes through `self.len`, which no longer reaches beyond the new size.
            // Should the kernel refuse, the memory is only kept.
            let _ = unsafe { self.map.remap(len.max(1), memmap2::RemapOptions::new()) };
        }
    }

    /// The values as atomics, for builders whose threads write disjoint positions.
    pub(crate) fn atomics(&mut self) -> &[AtomicU8] {
        let bytes = self.bytes_mut();
        // SAFETY: AtomicU8 has the same size, alignment and bit validity as u8, and the exclusive
        // borrow guarantees no other view of these bytes exists while the atomic one lives.
        unsafe { &*(bytes as *mut [u8] as *const [AtomicU8]) }
    }
}
