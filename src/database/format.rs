//! The layer file format (FORMAT.md): a self-describing, checksummed header, then the values.
//!
//! Files are written to a temporary name, synced and renamed, so a file under its final name is
//! always complete; the checksums catch any later damage.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use super::DbError;
use super::values::LayerValues;
use crate::rules::Rules;

/// The first eight bytes of every layer file.
pub const MAGIC: [u8; 8] = *b"KALAHDB\0";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// The checksum algorithm, by name, as written in headers.
pub const CHECKSUM: &str = "xxh3-64";
/// Fixed part of the header, before the rules text.
const FIXED: usize = 82;

/// The most bytes a header can take: its fixed part, a rules text of up to `u16::MAX` bytes and
/// its checksum.
pub const MAX_HEADER_LEN: u64 = (FIXED + u16::MAX as usize + 8) as u64;

/// Names are stored NUL-padded in fields of this many bytes.
const NAME_FIELD: usize = 16;

/// How a layer's values are stored after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// One signed byte per position, in index order; probed straight from the memory map.
    RawI8,
    /// The same bytes as zstd frames of [`FRAME_VALUES`] values each (the last one shorter), so
    /// that they compress and decompress in parallel; decompressed into memory when the layer is
    /// first used.
    ZstdI8,
}

impl Encoding {
    /// The name written in headers.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::RawI8 => "raw-i8",
            Encoding::ZstdI8 => "zstd-i8",
        }
    }

    fn from_name(name: &str) -> Option<Encoding> {
        [Encoding::RawI8, Encoding::ZstdI8].into_iter().find(|e| e.name() == name)
    }
}

/// The header of a layer file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Houses per side.
    pub houses: usize,
    /// Seeds on the board in every position of the layer.
    pub seeds: usize,
    /// Number of positions.
    pub entries: u64,
    /// How the payload stores the values.
    pub encoding: Encoding,
    /// Payload size in bytes.
    pub payload_len: u64,
    /// xxh3-64 of the payload.
    pub payload_checksum: u64,
    /// The full rule set, as [`Rules::dimensions`] writes it.
    pub rules: String,
}

fn name_field(name: &str) -> [u8; NAME_FIELD] {
    let mut field = [0u8; NAME_FIELD];
    field[..name.len()].copy_from_slice(name.as_bytes());
    field
}

fn read_name(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

impl Header {
    /// The header's bytes, its own checksum last.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(FIXED + self.rules.len() + 8);
        let total_len = (FIXED + self.rules.len() + 8) as u32;
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&total_len.to_le_bytes());
        bytes.push(self.houses as u8);
        bytes.push(self.seeds as u8);
        bytes.extend_from_slice(&[0u8; 6]);
        bytes.extend_from_slice(&self.entries.to_le_bytes());
        bytes.extend_from_slice(&self.payload_len.to_le_bytes());
        bytes.extend_from_slice(&name_field(self.encoding.name()));
        bytes.extend_from_slice(&name_field(CHECKSUM));
        bytes.extend_from_slice(&self.payload_checksum.to_le_bytes());
        bytes.extend_from_slice(&(self.rules.len() as u16).to_le_bytes());
        debug_assert_eq!(bytes.len(), FIXED);
        bytes.extend_from_slice(self.rules.as_bytes());
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a header from the start of a file's bytes, checking magic, version and the header
    /// checksum. Returns the header and where the payload starts.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<(Header, usize), DbError> {
        let corrupt = |reason: String| DbError::Corrupt { path: path.to_path_buf(), reason };
        let truncated = |needed: usize| DbError::Truncated {
            path: path.to_path_buf(),
            expected: needed as u64,
            actual: bytes.len() as u64,
        };
        if bytes.len() < MAGIC.len() {
            return Err(truncated(FIXED));
        }
        if bytes[..8] != MAGIC {
            return Err(DbError::BadMagic { path: path.to_path_buf() });
        }
        if bytes.len() < FIXED {
            return Err(truncated(FIXED));
        }
        let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().expect("2 bytes"));
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(DbError::UnsupportedVersion { path: path.to_path_buf(), version });
        }
        let header_len = u32_at(12) as usize;
        let rules_len = usize::from(u16_at(80));
        if header_len != FIXED + rules_len + 8 {
            return Err(corrupt(format!("header length {header_len} does not fit a rules text of {rules_len} bytes")));
        }
        if bytes.len() < header_len {
            return Err(truncated(header_len));
        }
        let stored = u64_at(header_len - 8);
        if xxh3_64(&bytes[..header_len - 8]) != stored {
            return Err(corrupt("header checksum mismatch".to_string()));
        }
        if bytes[18..24] != [0; 6] {
            return Err(corrupt("reserved header bytes 18..24 are not zero (written by another format?)".to_string()));
        }
        let checksum_name = read_name(&bytes[56..72]);
        if checksum_name != CHECKSUM {
            return Err(corrupt(format!("unknown checksum algorithm '{checksum_name}'")));
        }
        let encoding_name = read_name(&bytes[40..56]);
        let encoding = Encoding::from_name(&encoding_name)
            .ok_or_else(|| corrupt(format!("unknown encoding '{encoding_name}'")))?;
        let header = Header {
            houses: usize::from(bytes[16]),
            seeds: usize::from(bytes[17]),
            entries: u64_at(24),
            encoding,
            payload_len: u64_at(32),
            payload_checksum: u64_at(72),
            rules: String::from_utf8_lossy(&bytes[FIXED..FIXED + rules_len]).into_owned(),
        };
        Ok((header, header_len))
    }

    /// The rules the header names.
    pub(crate) fn parsed_rules(&self, path: &Path) -> Result<Rules, DbError> {
        self.rules
            .parse()
            .map_err(|err| DbError::Corrupt { path: path.to_path_buf(), reason: format!("rules in header: {err}") })
    }
}

/// Writes a complete layer file atomically ([`crate::atomic::write_file`]).
pub(crate) fn write_layer(path: &Path, header: &Header, payload: &Payload) -> Result<(), DbError> {
    debug_assert_eq!(header.payload_len, payload.len());
    crate::atomic::write_file(path, |file| {
        file.write_all(&header.encode())?;
        payload.parts().into_iter().try_for_each(|part| file.write_all(part))
    })
    .map_err(|source| DbError::Io { path: path.to_path_buf(), source })
}

/// zstd's level for layer files. Level 1 beats the default 3 both ways on these values: the
/// standard 6-house 21-seed layer (129 MB raw) compresses to 52.2 MB in 1.1 s at level 1, to
/// 54.8 MB in 2.4 s at level 3 (`zstd -1` / `zstd -3`, one thread).
const ZSTD_LEVEL: i32 = 1;

/// Values per zstd frame of a `zstd-i8` payload: frames are compressed and decompressed in
/// parallel, and one of 16 MiB is large enough that splitting costs nothing measurable in size
/// (zstd level 1 looks back far less than that).
pub const FRAME_VALUES: usize = 1 << 24;

/// A layer's payload as written: the raw values, or their zstd frames, kept apart so that
/// nothing is copied.
#[derive(Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// `raw-i8`: the values themselves.
    Raw(Cow<'a, [u8]>),
    /// `zstd-i8`: the frames, in order.
    Zstd(Vec<Vec<u8>>),
}

impl Payload<'_> {
    /// The encoding named in the header.
    pub fn encoding(&self) -> Encoding {
        match self {
            Payload::Raw(_) => Encoding::RawI8,
            Payload::Zstd(_) => Encoding::ZstdI8,
        }
    }

    /// The bytes, in the order they are written.
    pub(crate) fn parts(&self) -> Vec<&[u8]> {
        match self {
            Payload::Raw(values) => vec![values.as_ref()],
            Payload::Zstd(frames) => frames.iter().map(Vec::as_slice).collect(),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.parts().iter().map(|part| part.len() as u64).sum()
    }

    /// Whether there are no bytes (a layer with no positions, written raw).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The checksum of the bytes, as [`checksum`] of them all in one piece.
    pub fn checksum(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for part in self.parts() {
            hasher.update(part);
        }
        hasher.digest()
    }
}

/// Encodes a layer's values (i8 bit patterns): zstd when it saves at least a quarter, else raw.
/// The frames are compressed in parallel on the current rayon pool.
pub(crate) fn encode_values(raw: &[u8], allow_compression: bool) -> Payload<'_> {
    match compress(raw.len(), allow_compression, &|start, out| out.copy_from_slice(&raw[start..start + out.len()])) {
        Some(frames) => Payload::Zstd(frames),
        None => Payload::Raw(Cow::Borrowed(raw)),
    }
}

/// [`encode_values`] of a layer held in either layout; a packed one is unpacked a frame at a
/// time (the whole layer only when it is written raw).
pub(crate) fn encode_layer(values: &LayerValues, allow_compression: bool) -> Payload<'_> {
    match values {
        LayerValues::Bytes(buffer) => encode_values(buffer.bytes(), allow_compression),
        LayerValues::Packed(_) => {
            match compress(values.len(), allow_compression, &|start, out| values.copy_to(start, out)) {
                Some(frames) => Payload::Zstd(frames),
                None => {
                    let mut raw = vec![0; values.len()];
                    values.copy_to(0, &mut raw);
                    Payload::Raw(Cow::Owned(raw))
                }
            }
        }
    }
}

/// The zstd frames of `len` values that `fill(start, out)` copies out, compressed in parallel,
/// or `None` when compression is not allowed or saves less than a quarter.
fn compress(len: usize, allow_compression: bool, fill: &(dyn Fn(usize, &mut [u8]) + Sync)) -> Option<Vec<Vec<u8>>> {
    use rayon::prelude::*;
    if !allow_compression || len < 4096 {
        return None;
    }
    let frames: Vec<Vec<u8>> = (0..len.div_ceil(FRAME_VALUES))
        .into_par_iter()
        .map(|frame| {
            let start = frame * FRAME_VALUES;
            let mut values = vec![0; FRAME_VALUES.min(len - start)];
            fill(start, &mut values);
            zstd::bulk::compress(&values, ZSTD_LEVEL).expect("zstd compresses into a growable buffer")
        })
        .collect();
    let compressed_len: usize = frames.iter().map(Vec::len).sum();
    (compressed_len * 4 <= len * 3).then_some(frames)
}

/// Decompresses a `zstd-i8` payload into `values`, whose length is the header's entry count: the
/// frames in parallel on the current rayon pool, each into its own part of `values`. The error
/// says what is wrong with a damaged payload.
pub fn decode_zstd(payload: &[u8], values: &mut [u8]) -> Result<(), String> {
    let frames = zstd_frames(payload, values.len() as u64)?;
    decode_frames(&frames, values)
}

/// Decompresses `frames` (with the values each holds) into consecutive parts of `values`, in
/// parallel on the current rayon pool.
fn decode_frames(frames: &[(&[u8], usize)], values: &mut [u8]) -> Result<(), String> {
    use rayon::prelude::*;
    let mut parts = Vec::with_capacity(frames.len());
    let mut rest = values;
    for &(frame, content) in frames {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(content);
        parts.push((frame, part));
        rest = tail;
    }
    parts.into_par_iter().try_for_each(|(frame, part)| {
        let written = zstd::bulk::decompress_to_buffer(frame, part).map_err(|err| format!("zstd: {err}"))?;
        if written == part.len() {
            Ok(())
        } else {
            Err(format!("a zstd frame decompressed to {written} values, its header says {}", part.len()))
        }
    })
}

/// Decompresses a `zstd-i8` payload of `total` values and hands them to `sink` in order, a batch
/// of frames at a time, so that a caller packing the values never holds the whole layer as bytes.
/// The frames of a batch decompress in parallel on the current rayon pool. The error says what
/// is wrong with a damaged payload, or is the sink's.
pub(crate) fn decode_zstd_in_order(
    payload: &[u8],
    total: u64,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let frames = zstd_frames(payload, total)?;
    // A frame for each thread at a time: the buffer stays small (32 MiB on 2 cores).
    let mut buffer = Vec::new();
    for batch in frames.chunks(rayon::current_num_threads().max(1)) {
        buffer.resize(batch.iter().map(|(_, content)| content).sum(), 0);
        decode_frames(batch, &mut buffer)?;
        sink(&buffer)?;
    }
    Ok(())
}

/// The frames of a `zstd-i8` payload with the number of values each holds, from the frame
/// headers, checked to add up to `total`.
fn zstd_frames(payload: &[u8], total: u64) -> Result<Vec<(&[u8], usize)>, String> {
    use zstd::zstd_safe;
    let mut frames = Vec::new();
    let (mut offset, mut values) = (0, 0u64);
    while offset < payload.len() {
        let frame = &payload[offset..];
        let len = zstd_safe::find_frame_compressed_size(frame).map_err(|code| zstd_message(code, offset))?;
        let content = match zstd_safe::get_frame_content_size(frame) {
            Ok(Some(content)) => content,
            _ => return Err(format!("zstd frame at payload byte {offset} does not say its size")),
        };
        values += content;
        if values > total {
            return Err(format!("the zstd frames hold more than the {total} values of the header"));
        }
        frames.push((&frame[..len], content as usize));
        offset += len;
    }
    if values != total {
        return Err(format!("{values} values in the zstd frames, header says {total}"));
    }
    Ok(frames)
}

fn zstd_message(code: usize, offset: usize) -> String {
    format!("zstd frame at payload byte {offset}: {}", zstd::zstd_safe::get_error_name(code))
}

/// The checksum of a payload.
pub fn checksum(payload: &[u8]) -> u64 {
    xxh3_64(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            houses: 6,
            seeds: 12,
            entries: 1_339_702,
            encoding: Encoding::ZstdI8,
            payload_len: 1234,
            payload_checksum: 0xDEAD_BEEF,
            rules: Rules::STANDARD.dimensions(),
        }
    }

    #[test]
    fn headers_round_trip() {
        let bytes = header().encode();
        let (decoded, payload_start) = Header::decode(Path::new("x"), &bytes).unwrap();
        assert_eq!(decoded, header());
        assert_eq!(payload_start, bytes.len());
        assert_eq!(decoded.parsed_rules(Path::new("x")).unwrap(), Rules::STANDARD);
    }

    #[test]
    fn damaged_headers_are_refused_with_the_reason() {
        let bytes = header().encode();
        let mut flipped = bytes.clone();
        flipped[17] ^= 1;
        assert!(matches!(Header::decode(Path::new("x"), &flipped), Err(DbError::Corrupt { .. })));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert!(matches!(Header::decode(Path::new("x"), &magic), Err(DbError::BadMagic { .. })));
        assert!(matches!(Header::decode(Path::new("x"), &bytes[..40]), Err(DbError::Truncated { .. })));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(matches!(
            Header::decode(Path::new("x"), &version),
            Err(DbError::UnsupportedVersion { version: 9, .. })
        ));
        // A reserved byte set, the header's checksum made to match: still refused.
        let mut reserved = bytes.clone();
        reserved[20] = 1;
        let end = reserved.len() - 8;
        let checksum = xxh3_64(&reserved[..end]).to_le_bytes();
        reserved[end..].copy_from_slice(&checksum);
        let err = Header::decode(Path::new("x"), &reserved).unwrap_err();
        assert!(err.to_string().contains("reserved header bytes"), "{err}");
    }

    #[test]
    fn values_compress_only_when_it_pays() {
        let zeros = vec![0u8; 100_000];
        let payload = encode_values(&zeros, true);
        assert_eq!(payload.encoding(), Encoding::ZstdI8);
        assert!(payload.len() < 1000);
        assert_eq!(encode_values(&zeros, false), Payload::Raw(Cow::Borrowed(&zeros[..])));
        let tiny = [1, -2i8 as u8, 3];
        assert_eq!(encode_values(&tiny, true), Payload::Raw(Cow::Borrowed(&tiny[..])));
    }

    #[test]
    fn frames_decode_in_parallel_to_the_values_and_damage_is_named() {
        // Two and a half frames of values that compress.
        let values: Vec<u8> = (0..FRAME_VALUES * 5 / 2).map(|i| ((i / 7) % 11) as u8).collect();
        let payload = encode_values(&values, true);
        let Payload::Zstd(frames) = &payload else { panic!("the values compress") };
        assert_eq!(frames.len(), 3);
        let bytes = frames.concat();
        assert_eq!(payload.checksum(), checksum(&bytes));
        let mut decoded = vec![0u8; values.len()];
        decode_zstd(&bytes, &mut decoded).unwrap();
        assert!(decoded == values);
        // One frame for all the values, as layers were first written, reads the same.
        let single = zstd::bulk::compress(&values, ZSTD_LEVEL).unwrap();
        decoded.fill(0);
        decode_zstd(&single, &mut decoded).unwrap();
        assert!(decoded == values);
        let mut longer = vec![0u8; values.len() + 1];
        assert!(decode_zstd(&bytes, &mut longer).unwrap_err().contains("header says"));
        let mut shorter = vec![0u8; values.len() - 1];
        assert!(decode_zstd(&bytes, &mut shorter).unwrap_err().contains("more than"));
        assert!(decode_zstd(&bytes[..bytes.len() - 3], &mut decoded).unwrap_err().contains("zstd frame at"));
    }
}
