//! The `CF.*` keys' value and its Redis data type: a filter with the
//! counters RedisBloom reports, or a restore under way (`CF.LOADCHUNK`);
//! RDB save and load, AOF rewrite, `MEMORY USAGE`, `COPY`, `DEBUG DIGEST`
//! and free, all through cuckoo-nest's saved format.
//!
//! A filter is saved with `SaveOptions::metadata`, the module's own
//! settings (deletes, MAXITERATIONS, EXPANSION) as the format's caller
//! metadata, so the saved bytes are the whole key: RDB holds them as one
//! string, `CF.SCANDUMP` hands them out in chunks and `CF.LOADCHUNK` takes
//! them back, and two servers fed the same commands dump the same bytes.

use cuckoo_nest::{CuckooFilter, DecodeError, LoadOptions, SaveOptions};
use redis_module::native_types::RedisType;
use redis_module::raw;
use std::cell::RefCell;
use std::ffi::{c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The type's name in RDB files and `TYPE`: nine characters, as Redis
/// requires (RedisBloom's is `MBbloomCF`; this one is not compatible with
/// its RDB encoding, so it has its own name).
pub const TYPE_NAME: &str = "CFnest-rs";
/// The RDB encoding version of [`CfValue`].
const ENCODING: i32 = 0;

/// The first chunk `CF.SCANDUMP` returns: the header and the module's
/// metadata, whatever the filter's size (so `CF.LOADCHUNK` learns the total
/// length from its first chunk), and the table's first bytes.
pub const FIRST_CHUNK: usize = 4096;
/// Every later chunk.
pub const CHUNK: usize = 16 << 20;

/// The metadata's first bytes: this module's settings, version 1.
const META_MAGIC: &[u8; 4] = b"CFr1";
/// Magic, deletes (u64), MAXITERATIONS (u32), EXPANSION (u32), little-endian.
const META_LEN: usize = 4 + 8 + 4 + 4;

/// RedisBloom's default MAXITERATIONS.
pub const DEFAULT_MAX_ITERATIONS: u32 = 20;
/// RedisBloom's default EXPANSION.
pub const DEFAULT_EXPANSION: u32 = 1;

/// A filter and the settings RedisBloom reports beside it.
pub struct Filter {
    pub cf: CuckooFilter,
    /// Successful `CF.DEL`s ("Number of items deleted").
    pub deleted: u64,
    /// MAXITERATIONS as given (reported; cuckoo-nest searches displacement
    /// paths breadth-first with its own bound).
    pub max_iterations: u32,
    /// EXPANSION as given: 0 is a fixed filter, any other a growable one
    /// (which doubles).
    pub expansion: u32,
    /// The saved bytes of the last `CF.SCANDUMP` from cursor 0, kept until
    /// the dump ends or the filter changes, so a dump in many chunks
    /// serialises the filter once and hands out consistent chunks.
    dump: RefCell<Option<Vec<u8>>>,
}

impl Filter {
    pub fn new(cf: CuckooFilter, max_iterations: u32, expansion: u32) -> Self {
        Filter {
            cf,
            deleted: 0,
            max_iterations,
            expansion,
            dump: RefCell::new(None),
        }
    }

    fn metadata(&self) -> [u8; META_LEN] {
        let mut m = [0u8; META_LEN];
        m[..4].copy_from_slice(META_MAGIC);
        m[4..12].copy_from_slice(&self.deleted.to_le_bytes());
        m[12..16].copy_from_slice(&self.max_iterations.to_le_bytes());
        m[16..20].copy_from_slice(&self.expansion.to_le_bytes());
        m
    }

    /// The key in the saved format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let metadata = self.metadata();
        let mut out = Vec::new();
        // META_LEN is far below MAX_METADATA, and a Vec takes every write.
        match SaveOptions::default().metadata(&metadata) {
            Ok(options) if self.cf.save(&mut out, &options).is_ok() => out,
            _ => self.cf.to_bytes(),
        }
    }

    /// A key from the saved format: a filter saved by this module, or by
    /// any cuckoo-nest user (no metadata: RedisBloom's defaults).
    pub fn from_bytes(bytes: &[u8]) -> Result<Filter, String> {
        // No huge pages: the table from Redis's allocator, whatever its size.
        let cf = CuckooFilter::load(bytes, &LoadOptions::default().huge_pages(false))
            .map(|(filter, _)| filter)
            .map_err(|e| e.to_string())?;
        let meta = CuckooFilter::read_metadata(bytes).map_err(|e| e.to_string())?;
        let expansion = if cf.max_capacity().is_some() {
            DEFAULT_EXPANSION
        } else {
            0
        };
        let mut filter = Filter::new(cf, DEFAULT_MAX_ITERATIONS, expansion);
        match meta.len() {
            0 => {}
            META_LEN if &meta[..4] == META_MAGIC => {
                let u32_at =
                    |i: usize| u32::from_le_bytes([meta[i], meta[i + 1], meta[i + 2], meta[i + 3]]);
                let mut deleted = [0u8; 8];
                deleted.copy_from_slice(&meta[4..12]);
                filter.deleted = u64::from_le_bytes(deleted);
                filter.max_iterations = u32_at(12);
                filter.expansion = u32_at(16);
                if (filter.expansion == 0) == filter.cf.max_capacity().is_some() {
                    return Err("the metadata's EXPANSION disagrees with the filter".into());
                }
            }
            _ => return Err("the filter's metadata is not this module's".into()),
        }
        Ok(filter)
    }

    /// The filter changed: a dump under way must start again.
    pub fn changed(&self) {
        self.dump.borrow_mut().take();
    }

    /// The chunk of `CF.SCANDUMP key cursor`: `(next cursor, data)`, or
    /// `None` if the cursor is not one this filter's dump handed out (or
    /// the filter changed since the dump began).
    ///
    /// Cursor 0 starts a dump (and serialises the filter); the chunk
    /// returned with cursor `c` ends at byte offset `c - 1`, and passing
    /// `c` back returns the next one; past the end, `(0, [])`.
    pub fn scandump(&self, cursor: u64) -> Option<(u64, Vec<u8>)> {
        let mut dump = self.dump.borrow_mut();
        if cursor == 0 {
            *dump = Some(self.to_bytes());
        }
        let bytes = dump.as_ref()?;
        let start = if cursor == 0 {
            0
        } else {
            usize::try_from(cursor - 1).ok()?
        };
        if start == bytes.len() {
            *dump = None;
            return Some((0, Vec::new()));
        }
        let end = chunk_end(start, bytes.len())?;
        Some((end as u64 + 1, bytes[start..end].to_vec()))
    }

    fn heap_bytes(&self) -> usize {
        self.cf.memory_usage() + self.dump.borrow().as_ref().map_or(0, Vec::capacity)
    }
}

/// Where the dump chunk starting at byte `start` of a `len`-byte saved
/// filter ends, or `None` if no chunk starts there: the first chunk is
/// [`FIRST_CHUNK`] bytes, every later one [`CHUNK`] (the last, what is
/// left).
pub fn chunk_end(start: usize, len: usize) -> Option<usize> {
    if start >= len {
        return None;
    }
    if start == 0 {
        return Some(FIRST_CHUNK.min(len));
    }
    let past_first = start.checked_sub(FIRST_CHUNK)?;
    (past_first % CHUNK == 0).then(|| (start + CHUNK).min(len))
}

/// A restore under way: the chunks `CF.LOADCHUNK` has received, in order.
pub struct Pending {
    pub bytes: Vec<u8>,
    /// The saved filter's length, from its header in the first chunk.
    pub expected: usize,
}

/// A `CF.*` key's value.
// Boxed whole by Redis (one allocation per key): the restoring state's
// smaller size would save nothing.
#[allow(clippy::large_enum_variant)]
pub enum CfValue {
    Ready(Filter),
    Loading(Pending),
}

/// The length of the saved filter whose dump starts with `received`, the
/// chunks a restore has received (whole chunks, in order, as `CF.LOADCHUNK`
/// takes them), or why these bytes cannot start such a dump: the header in
/// the first chunk is checked (magic, version, its checksum, the
/// configuration, from which the length follows), and `received` must end
/// where a chunk of a dump of that length ends. `CF.LOADCHUNK`'s first chunk
/// and an RDB or `RESTORE` value of a restore under way are both checked so.
pub fn dump_len(received: &[u8]) -> Result<usize, String> {
    let first = &received[..received.len().min(FIRST_CHUNK)];
    let len = match CuckooFilter::from_bytes(first) {
        Ok(_) => first.len(),
        Err(DecodeError::Truncated { expected, actual })
            if actual as usize == first.len() && first.len() >= 64 =>
        {
            usize::try_from(expected)
                .map_err(|_| "the header's length does not fit in memory".to_string())?
        }
        Err(DecodeError::Truncated { .. }) => {
            return Err("the first chunk is shorter than the filter's header".into());
        }
        Err(e) => return Err(e.to_string()),
    };
    if !ends_a_chunk(received.len(), len) {
        return Err(format!(
            "{} bytes are not whole chunks of a {len}-byte dump (truncated or too long)",
            received.len()
        ));
    }
    Ok(len)
}

/// Whether a chunk of the dump of a `len`-byte saved filter ends at byte
/// `end` (see [`chunk_end`]).
fn ends_a_chunk(end: usize, len: usize) -> bool {
    let start = if end <= FIRST_CHUNK {
        0
    } else {
        // The start of the later chunk holding byte `end - 1`.
        end - 1 - (end - 1 - FIRST_CHUNK) % CHUNK
    };
    chunk_end(start, len) == Some(end)
}

pub static CF_TYPE: RedisType = RedisType::new(
    TYPE_NAME,
    ENCODING,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: Some(digest),
        free: Some(free),
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// RDB tags of the two states.
const TAG_READY: u64 = 0;
const TAG_LOADING: u64 = 1;

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value this type's callbacks created: a
    // `Box<CfValue>` turned into a pointer by `set_value` or `rdb_load`.
    let value = unsafe { &*value.cast::<CfValue>() };
    match value {
        CfValue::Ready(f) => {
            raw::save_unsigned(rdb, TAG_READY);
            raw::save_slice(rdb, &f.to_bytes());
        }
        CfValue::Loading(p) => {
            raw::save_unsigned(rdb, TAG_LOADING);
            raw::save_unsigned(rdb, p.expected as u64);
            raw::save_slice(rdb, &p.bytes);
        }
    }
}

/// Loads a value `rdb_save` wrote, from an RDB file, a replica's sync,
/// `DEBUG RELOAD` or a `RESTORE` payload (which any client can forge, with
/// a valid checksum): anything else is refused (null, and a log line
/// saying why), never a crash. Redis then refuses the `RESTORE` (`ERR Bad
/// data format`) or stops loading the file.
unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    // A panic (an allocation failure inside cuckoo-nest) must not unwind
    // into Redis.
    let loaded = catch_unwind(AssertUnwindSafe(|| load(rdb, encver)))
        .unwrap_or_else(|_| Err("the module panicked while loading it".into()));
    match loaded {
        Ok(v) => Box::into_raw(Box::new(v)).cast(),
        Err(reason) => {
            log_refused(rdb, &reason);
            std::ptr::null_mut()
        }
    }
}

/// What [`rdb_load`] loads, or why not.
///
/// Every read is checked for an I/O error: the module sets
/// `REDISMODULE_OPTIONS_HANDLE_IO_ERRORS` (lib.rs), so a read past the end
/// of the data, or of a field of another kind than asked, sets the IO's
/// error flag instead of aborting Redis, and redis-module's `raw::load_*`
/// check `RedisModule_IsIOError` after the read and return `Err` when it is
/// set.
fn load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> Result<CfValue, String> {
    if encver != ENCODING {
        return Err(format!(
            "encoding version {encver}, this module reads {ENCODING}"
        ));
    }
    let short = |_| {
        "short read: the data ends inside the value, or a field is not one this module saves"
            .to_string()
    };
    match raw::load_unsigned(rdb).map_err(short)? {
        TAG_READY => {
            let bytes = raw::load_string_buffer(rdb).map_err(short)?;
            Filter::from_bytes(bytes.as_ref()).map(CfValue::Ready)
        }
        TAG_LOADING => {
            let expected = raw::load_unsigned(rdb).map_err(short)?;
            let bytes = raw::load_string_buffer(rdb).map_err(short)?;
            let bytes = bytes.as_ref();
            // What CF.LOADCHUNK would have accepted: whole chunks of a dump
            // whose header says `expected` bytes, not all of them yet.
            let len = dump_len(bytes).map_err(|e| format!("a restore under way: {e}"))?;
            if len as u64 != expected {
                return Err(format!(
                    "a restore under way of {expected} bytes, but its header says {len}"
                ));
            }
            if bytes.len() >= len {
                return Err("a restore under way with every byte received".into());
            }
            Ok(CfValue::Loading(Pending {
                bytes: bytes.to_vec(),
                expected: len,
            }))
        }
        tag => Err(format!("unknown state {tag}")),
    }
}

/// Logs why a value was refused (`RedisModule_LogIOError`, which names the
/// module).
fn log_refused(rdb: *mut raw::RedisModuleIO, reason: &str) {
    let message = format!("{TYPE_NAME} value refused: {reason}").replace('\0', " ");
    let (Ok(level), Ok(fmt), Ok(message)) = (
        CString::new("warning"),
        CString::new("%s"),
        CString::new(message),
    ) else {
        return;
    };
    // SAFETY: a read of a module API pointer, set by RedisModule_Init
    // before any callback runs and never changed after.
    let Some(log) = (unsafe { raw::RedisModule_LogIOError }) else {
        return;
    };
    // SAFETY: `rdb` is Redis's IO for the running rdb_load callback; the
    // format "%s" takes one NUL-terminated string, `message`, alive across
    // the call (the message is never the format: it may hold a '%').
    unsafe { log(rdb, level.as_ptr(), fmt.as_ptr(), message.as_ptr()) };
}

/// Emits the key as `CF.LOADCHUNK` commands, the chunks `CF.SCANDUMP`
/// gives; a restore under way as the chunks received so far.
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<CfValue>() };
    // SAFETY: a read of a module API pointer, set by RedisModule_Init
    // before any callback runs and never changed after.
    let Some(emit) = (unsafe { raw::RedisModule_EmitAOF }) else {
        return;
    };
    let (Ok(cmd), Ok(fmt)) = (CString::new("CF.LOADCHUNK"), CString::new("slb")) else {
        return;
    };
    let out = |end: usize, chunk: &[u8]| {
        // SAFETY: `aof` and `key` are Redis's, valid for this callback; the
        // format "slb" is a RedisModuleString, a long long and a buffer
        // (pointer, length), as passed.
        unsafe {
            emit(
                aof,
                cmd.as_ptr(),
                fmt.as_ptr(),
                key,
                (end + 1) as std::ffi::c_longlong,
                chunk.as_ptr().cast::<std::ffi::c_char>(),
                chunk.len(),
            );
        }
    };
    match value {
        CfValue::Ready(f) => {
            let bytes = f.to_bytes();
            let mut start = 0;
            while let Some(end) = chunk_end(start, bytes.len()) {
                out(end, &bytes[start..end]);
                start = end;
            }
        }
        CfValue::Loading(p) => {
            // The chunks received so far, as they came (whole chunks).
            let mut start = 0;
            while let Some(end) = chunk_end(start, p.expected) {
                if end > p.bytes.len() {
                    break;
                }
                out(end, &p.bytes[start..end]);
                start = end;
            }
        }
    }
}

/// `DEBUG DIGEST` and `DEBUG DIGEST-VALUE`: the digest of the saved bytes
/// (a restore under way: of the chunks received), so two servers holding
/// the same bytes agree.
unsafe extern "C" fn digest(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<CfValue>() };
    let bytes = match value {
        CfValue::Ready(f) => f.to_bytes(),
        CfValue::Loading(p) => p.bytes.clone(),
    };
    // SAFETY: reads of module API pointers, set by RedisModule_Init before
    // any callback runs and never changed after.
    let api = unsafe {
        (
            raw::RedisModule_DigestAddStringBuffer,
            raw::RedisModule_DigestEndSequence,
        )
    };
    if let (Some(add), Some(end)) = api {
        // SAFETY: `md` is Redis's digest context for this callback; the
        // buffer is `bytes`, alive across the call.
        unsafe {
            add(md, bytes.as_ptr().cast(), bytes.len());
            end(md);
        }
    }
}

unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<CfValue>() };
    std::mem::size_of::<CfValue>()
        + match value {
            CfValue::Ready(f) => f.heap_bytes(),
            CfValue::Loading(p) => p.bytes.capacity(),
        }
}

unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: as in `rdb_save`; Redis frees a value once, after its last use.
    drop(unsafe { Box::from_raw(value.cast::<CfValue>()) });
}

unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<CfValue>() };
    // `CuckooFilter::clone` panics if the copy cannot be allocated: that is
    // a failed COPY (null), not an unwind into Redis.
    let copied = catch_unwind(AssertUnwindSafe(|| match value {
        CfValue::Ready(f) => {
            let mut c = Filter::new(f.cf.clone(), f.max_iterations, f.expansion);
            c.deleted = f.deleted;
            CfValue::Ready(c)
        }
        CfValue::Loading(p) => CfValue::Loading(Pending {
            bytes: p.bytes.clone(),
            expected: p.expected,
        }),
    }));
    match copied {
        Ok(v) => Box::into_raw(Box::new(v)).cast(),
        Err(_) => std::ptr::null_mut(),
    }
}
