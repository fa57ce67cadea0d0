//! The `CF.*` commands: RedisBloom's syntax, replies and error messages
//! (README.md lists where they differ), each parsing its arguments, opening
//! its key (WRONGTYPE for a key of another type, read or write), calling
//! cuckoo-nest and replicating itself verbatim when it may have changed the
//! key.

use crate::value::{
    chunk_end, dump_len, CfValue, Filter, Pending, CF_TYPE, DEFAULT_EXPANSION,
    DEFAULT_MAX_ITERATIONS,
};
use cuckoo_nest::{BuildError, Builder, CuckooFilter, InsertError};
use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{raw, Context, ContextFlags, RedisError, RedisResult, RedisString, RedisValue};

/// The capacity of a filter `CF.ADD` or `CF.INSERT` creates (RedisBloom's).
const DEFAULT_CAPACITY: usize = 1024;
/// The false-positive rate every filter is built for, at its capacity.
pub const FALSE_POSITIVE_RATE: f64 = 0.01;

const NOT_FOUND: &str = "ERR not found";
const LOADING: &str =
    "ERR the key is being restored with CF.LOADCHUNK: send the remaining chunks, or DEL it";

/// How a filter is created.
struct Params {
    capacity: usize,
    bucket_size: Option<usize>,
    max_iterations: u32,
    expansion: u32,
}

impl Params {
    fn with_capacity(capacity: usize) -> Self {
        Params {
            capacity,
            bucket_size: None,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            expansion: DEFAULT_EXPANSION,
        }
    }

    /// A new filter: the shape with the fewest bits per item at 1%
    /// false positives (of the bucket size given, if one is), growable
    /// unless EXPANSION is 0, its table through Redis's allocator
    /// (`huge_pages(false)`: a huge-page table is its own `mmap`).
    ///
    /// A large one is first checked against the memory it may take
    /// ([`memory_limit`]): with overcommit, an allocation far past the
    /// machine's memory succeeds and zeroing it brings the OOM killer. Not
    /// for a command from the primary or the AOF: a replica applies what
    /// its primary accepted, or the two would differ.
    fn build(&self, ctx: &Context) -> Result<Filter, RedisError> {
        if self.capacity > PROBE_CAPACITY && !replayed(ctx) {
            // The size scaled from a small filter of the same settings (a
            // slight overestimate: small tables keep more spare buckets).
            let probe = self.builder(PROBE_CAPACITY).build().map_err(build_error)?;
            let estimate =
                probe.memory_usage() as f64 / probe.capacity() as f64 * self.capacity as f64;
            let (limit, what) = memory_limit(ctx);
            if estimate > limit as f64 {
                return Err(RedisError::String(format!(
                    "ERR Bad capacity: the filter would take about {estimate:.0} bytes, more than {what} ({limit} bytes)"
                )));
            }
        }
        let cf = self.builder(self.capacity).build().map_err(build_error)?;
        Ok(Filter::new(cf, self.max_iterations, self.expansion))
    }

    fn builder(&self, capacity: usize) -> Builder {
        let mut builder = CuckooFilter::builder()
            .capacity(capacity)
            .false_positive_rate(FALSE_POSITIVE_RATE)
            .huge_pages(false)
            .growable(self.expansion != 0);
        if let Some(b) = self.bucket_size {
            builder = builder.bucket_size(b);
        }
        builder
    }
}

/// Filters above this capacity are sized by a probe of this capacity first.
const PROBE_CAPACITY: usize = 10_000;

/// Whether the command comes from the primary or the AOF: applied as it
/// was where it was first accepted, without this server's own size checks.
fn replayed(ctx: &Context) -> bool {
    ctx.get_flags()
        .intersects(ContextFlags::REPLICATED | ContextFlags::LOADING)
}

/// The bytes a new filter may take, and what sets that: what `maxmemory`
/// leaves if it is set, else the machine's physical memory.
fn memory_limit(ctx: &Context) -> (usize, &'static str) {
    let physical = physical_memory();
    let maxmemory = match ctx.call("CONFIG", &["GET", "maxmemory"][..]) {
        Ok(RedisValue::Array(v)) if v.len() == 2 => match &v[1] {
            RedisValue::BulkString(s) | RedisValue::SimpleString(s) => s.parse().ok(),
            RedisValue::StringBuffer(b) => std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()),
            _ => None,
        },
        _ => None,
    }
    .unwrap_or(0usize);
    if maxmemory == 0 {
        return (physical, "this machine's memory");
    }
    // SAFETY: a read of a module API pointer, set by RedisModule_Init and
    // never changed after.
    let ratio = match unsafe { raw::RedisModule_GetUsedMemoryRatio } {
        // SAFETY: a Redis module API function without arguments, called on
        // Redis's main thread (a command).
        Some(f) => f64::from(unsafe { f() }),
        None => 0.0,
    };
    let used = (ratio * maxmemory as f64) as usize;
    (
        maxmemory.saturating_sub(used).min(physical),
        "what maxmemory leaves",
    )
}

/// Bytes of physical memory (`usize::MAX` if the system does not say).
pub fn physical_memory() -> usize {
    // SAFETY: sysconf has no preconditions.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    match (usize::try_from(pages), usize::try_from(page)) {
        (Ok(n), Ok(p)) if n > 0 && p > 0 => n.saturating_mul(p),
        _ => usize::MAX,
    }
}

fn build_error(e: BuildError) -> RedisError {
    match e {
        BuildError::ZeroCapacity | BuildError::CapacityTooLarge { .. } => {
            RedisError::String(format!("ERR Bad capacity: {e}"))
        }
        BuildError::AllocationFailed { .. } => {
            RedisError::String(format!("ERR Bad capacity: {e} (out of memory)"))
        }
        e => RedisError::String(format!("ERR could not create the filter: {e}")),
    }
}

/// A failed insert's reply: RedisBloom's "Filter is full" where the filter
/// is full, and what happened, in a user's words, where it is not.
fn insert_error(e: InsertError) -> RedisError {
    RedisError::String(match e {
        InsertError::Full { len, slots } => format!(
            "ERR Filter is full: no free slot within reach of this item ({len} items in {slots} slots)"
        ),
        // `len`, not `max_capacity`: a full filter may hold more or fewer
        // items than the capacity it was built to grow to (and far more
        // when the capacity reserved was tiny), and the reply should not
        // contradict itself.
        InsertError::MaxCapacity { len, .. } => format!(
            "ERR Filter is full at its maximum size: it cannot grow further ({len} items in it)"
        ),
        InsertError::GrowthFailed { bytes } if bytes == usize::MAX => {
            "ERR Filter is full and could not grow: its next table is too large for this address space".into()
        }
        InsertError::GrowthFailed { bytes } => format!(
            "ERR Filter is full and could not grow: out of memory for its next table ({bytes} bytes)"
        ),
        InsertError::GrowthBlocked => {
            "ERR Filter is full and could not grow: the system refused the memory barrier growing takes (membarrier)".into()
        }
        InsertError::TooManyCopies { copies } => format!(
            "ERR Too many copies of this item: its buckets hold {copies} copies of its fingerprint and nothing else (other items may still fit)"
        ),
        InsertError::Crowded { len, slots } => format!(
            "ERR Too many colliding items: this item's buckets are full of items sharing them while the filter is far from full ({len} items in {slots} slots); growing would not separate them"
        ),
        e => format!("ERR could not insert the item: {e}"),
    })
}

fn eq(arg: &RedisString, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

/// A whole-number argument in `min..=max`, else `error`.
fn number(
    arg: Option<&RedisString>,
    min: i64,
    max: i64,
    error: &'static str,
) -> Result<i64, RedisError> {
    let arg = arg.ok_or(RedisError::WrongArity)?;
    match arg.parse_integer() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(RedisError::Str(error)),
    }
}

fn capacity(arg: Option<&RedisString>) -> Result<usize, RedisError> {
    let n = number(
        arg,
        1,
        i64::MAX,
        "ERR Bad capacity: a whole number of items, at least 1",
    )?;
    usize::try_from(n).map_err(|_| RedisError::Str("ERR Bad capacity: too large"))
}

/// The key's value for writing: `None` if the key is empty, WRONGTYPE if it
/// holds another type.
fn value_mut(key: &RedisKeyWritable) -> Result<Option<&mut CfValue>, RedisError> {
    match key.key_type() {
        raw::KeyType::Empty => Ok(None),
        raw::KeyType::Module => key
            .get_value::<CfValue>(&CF_TYPE)
            .map_err(|_| RedisError::WrongType),
        _ => Err(RedisError::WrongType),
    }
}

/// The key's value for reading, as [`value_mut`].
fn value_ref(key: &RedisKey) -> Result<Option<&CfValue>, RedisError> {
    match key.key_type() {
        raw::KeyType::Empty => Ok(None),
        raw::KeyType::Module => key
            .get_value::<CfValue>(&CF_TYPE)
            .map_err(|_| RedisError::WrongType),
        _ => Err(RedisError::WrongType),
    }
}

/// The key's filter for reading; `None` if the key is empty.
fn filter_ref(key: &RedisKey) -> Result<Option<&Filter>, RedisError> {
    match value_ref(key)? {
        None => Ok(None),
        Some(CfValue::Ready(f)) => Ok(Some(f)),
        Some(CfValue::Loading(_)) => Err(RedisError::Str(LOADING)),
    }
}

/// After a write: a growth step the write started is finished within the
/// command. cuckoo-nest spreads a step's copy over the writes after it,
/// but the saved format holds no step half done: an RDB snapshot (taken in
/// a forked child, which finishes the step there) would then hand a
/// replica a table the primary reaches only by another path, and the two
/// would place the next writes differently. Finished here, every command
/// starts and ends with no step under way, on the primary and on every
/// replica alike; the command that grows a filter pays for its copy.
fn finish_growth(filter: &Filter) {
    filter.cf.finish_growth();
}

/// The key's filter for writing (its dump cache dropped); `None` if the
/// key is empty.
fn filter_mut(key: &RedisKeyWritable) -> Result<Option<&mut Filter>, RedisError> {
    match value_mut(key)? {
        None => Ok(None),
        Some(CfValue::Ready(f)) => {
            f.changed();
            Ok(Some(f))
        }
        Some(CfValue::Loading(_)) => Err(RedisError::Str(LOADING)),
    }
}

/// The key's filter for writing, created with `params` if the key is empty.
fn filter_or_create<'a>(
    ctx: &Context,
    key: &'a RedisKeyWritable,
    params: &Params,
) -> Result<&'a mut Filter, RedisError> {
    if let Some(f) = filter_mut(key)? {
        return Ok(f);
    }
    key.set_value(&CF_TYPE, CfValue::Ready(params.build(ctx)?))?;
    filter_mut(key)?.ok_or(RedisError::Str("ERR the new filter could not be stored"))
}

/// `CF.RESERVE key capacity [BUCKETSIZE n] [MAXITERATIONS n] [EXPANSION n]`
pub fn reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return Err(RedisError::WrongArity);
    }
    let mut params = Params::with_capacity(capacity(args.get(2))?);
    let mut i = 3;
    while i < args.len() {
        let value = args.get(i + 1);
        if eq(&args[i], "BUCKETSIZE") {
            let b = number(
                value,
                1,
                255,
                "ERR Bad bucket size: 1 to 255 (this module: 2, 4 or 8)",
            )?;
            if ![2, 4, 8].contains(&b) {
                return Err(RedisError::Str(
                    "ERR Bad bucket size: this module supports 2, 4 or 8 fingerprints per bucket",
                ));
            }
            params.bucket_size = Some(b as usize);
        } else if eq(&args[i], "MAXITERATIONS") {
            params.max_iterations =
                number(value, 1, 65535, "ERR Bad max iterations: 1 to 65535")? as u32;
        } else if eq(&args[i], "EXPANSION") {
            params.expansion = number(value, 0, 32768, "ERR Bad expansion: 0 to 32768")? as u32;
        } else {
            return Err(RedisError::Str("ERR syntax error"));
        }
        i += 2;
    }
    let key = ctx.open_key_writable(&args[1]);
    if value_mut(&key)?.is_some() {
        return Err(RedisError::Str("ERR item exists"));
    }
    key.set_value(&CF_TYPE, CfValue::Ready(params.build(ctx)?))?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `CF.ADD key item` and `CF.ADDNX key item`.
fn add_one(ctx: &Context, args: &[RedisString], nx: bool) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key_writable(&args[1]);
    let filter = filter_or_create(ctx, &key, &Params::with_capacity(DEFAULT_CAPACITY))?;
    let item = args[2].as_slice();
    if nx && filter.cf.contains(item) {
        // A new key (created above) holds nothing: never here.
        return Ok(RedisValue::Integer(0));
    }
    let inserted = filter.cf.insert(item);
    finish_growth(filter);
    // Replicated even when the insert fails: a failed insert may have
    // moved items between their buckets, and the replica must move them
    // too to stay byte-identical.
    ctx.replicate_verbatim();
    inserted.map_err(insert_error)?;
    Ok(RedisValue::Integer(1))
}

/// `CF.ADD key item`
pub fn add(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    add_one(ctx, &args, false)
}

/// `CF.ADDNX key item`
pub fn addnx(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    add_one(ctx, &args, true)
}

/// `CF.INSERT` and `CF.INSERTNX key [CAPACITY n] [NOCREATE] ITEMS item...`
fn insert_many(ctx: &Context, args: &[RedisString], nx: bool) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut params = Params::with_capacity(DEFAULT_CAPACITY);
    let mut nocreate = false;
    let mut i = 2;
    loop {
        let Some(arg) = args.get(i) else {
            return Err(RedisError::Str("ERR syntax error: ITEMS item... expected"));
        };
        if eq(arg, "ITEMS") {
            i += 1;
            break;
        } else if eq(arg, "CAPACITY") {
            params.capacity = capacity(args.get(i + 1))?;
            i += 2;
        } else if eq(arg, "NOCREATE") {
            nocreate = true;
            i += 1;
        } else {
            return Err(RedisError::Str("ERR syntax error"));
        }
    }
    let items: Vec<&[u8]> = args[i..].iter().map(RedisString::as_slice).collect();
    if items.is_empty() {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key_writable(&args[1]);
    let filter = match filter_mut(&key)? {
        Some(f) => f,
        None if nocreate => return Err(RedisError::Str(NOT_FOUND)),
        None => filter_or_create(ctx, &key, &params)?,
    };
    let mut replies = Vec::with_capacity(items.len());
    if nx {
        for item in &items {
            let r = if filter.cf.contains(item) {
                0
            } else if filter.cf.insert(item).is_ok() {
                1
            } else {
                -1
            };
            replies.push(RedisValue::Integer(r));
        }
    } else {
        // Batches overlap the items' memory accesses; a batch stops at its
        // first failure (the filter full): that item is -1, the rest go on.
        let mut from = 0;
        while from < items.len() {
            match filter.cf.insert_batch(&items[from..]) {
                Ok(()) => {
                    replies.extend((from..items.len()).map(|_| RedisValue::Integer(1)));
                    from = items.len();
                }
                Err(e) => {
                    replies.extend((0..e.inserted).map(|_| RedisValue::Integer(1)));
                    replies.push(RedisValue::Integer(-1));
                    from += e.inserted + 1;
                }
            }
        }
    }
    finish_growth(filter);
    ctx.replicate_verbatim();
    Ok(RedisValue::Array(replies))
}

/// `CF.INSERT key [CAPACITY n] [NOCREATE] ITEMS item...`
pub fn insert(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    insert_many(ctx, &args, false)
}

/// `CF.INSERTNX key [CAPACITY n] [NOCREATE] ITEMS item...`
pub fn insertnx(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    insert_many(ctx, &args, true)
}

/// `CF.EXISTS key item`: 0 for a missing key.
pub fn exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let found = filter_ref(&key)?.is_some_and(|f| f.cf.contains(args[2].as_slice()));
    Ok(RedisValue::Integer(found.into()))
}

/// `CF.MEXISTS key item...`: one batch lookup.
pub fn mexists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let items: Vec<&[u8]> = args[2..].iter().map(RedisString::as_slice).collect();
    let mut found = vec![false; items.len()];
    if let Some(f) = filter_ref(&key)? {
        f.cf.contains_batch_into(&items, &mut found)
            .map_err(|e| RedisError::String(format!("ERR {e}")))?;
    }
    Ok(RedisValue::Array(
        found
            .into_iter()
            .map(|b| RedisValue::Integer(b.into()))
            .collect(),
    ))
}

/// `CF.DEL key item`: 1 if a copy was removed, 0 if none was found.
pub fn del(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key_writable(&args[1]);
    let filter = filter_mut(&key)?.ok_or(RedisError::Str(NOT_FOUND))?;
    let removed = filter.cf.remove(args[2].as_slice());
    finish_growth(filter);
    if removed {
        filter.deleted += 1;
        ctx.replicate_verbatim();
    }
    Ok(RedisValue::Integer(removed.into()))
}

/// `CF.COUNT key item`: copies of the item's fingerprint; 0 for a missing
/// key.
pub fn count(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let n = filter_ref(&key)?.map_or(0, |f| f.cf.count(args[2].as_slice()));
    Ok(RedisValue::Integer(n as i64))
}

/// `CF.INFO key`: RedisBloom's fields, this filter's values.
pub fn info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let f = filter_ref(&key)?.ok_or(RedisError::Str(NOT_FOUND))?;
    let fields: [(&'static str, i64); 8] = [
        ("Size", f.cf.memory_usage() as i64),
        ("Number of buckets", f.cf.shape().buckets as i64),
        // One table (a growable filter moves into its next one as it grows).
        ("Number of filters", 1),
        ("Number of items inserted", f.cf.len() as i64),
        ("Number of items deleted", f.deleted as i64),
        ("Bucket size", f.cf.shape().bucket_size as i64),
        // What growth does: this filter doubles, or does not grow.
        (
            "Expansion rate",
            if f.cf.max_capacity().is_some() { 2 } else { 0 },
        ),
        ("Max iterations", i64::from(f.max_iterations)),
    ];
    Ok(RedisValue::Array(
        fields
            .into_iter()
            .flat_map(|(name, v)| [RedisValue::SimpleStringStatic(name), RedisValue::Integer(v)])
            .collect(),
    ))
}

/// `CF.SCANDUMP key cursor`: `[next cursor, chunk]`, `[0, ""]` at the end.
pub fn scandump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let cursor = number(
        args.get(2),
        0,
        i64::MAX,
        "ERR Bad cursor: a whole number, at least 0",
    )?;
    let key = ctx.open_key(&args[1]);
    let f = filter_ref(&key)?.ok_or(RedisError::Str(NOT_FOUND))?;
    let (next, data) = f.scandump(cursor as u64).ok_or(RedisError::Str(
        "ERR Bad cursor: not one this dump handed out, or the filter changed since cursor 0 (start again from 0)",
    ))?;
    Ok(RedisValue::Array(vec![
        RedisValue::Integer(next as i64),
        RedisValue::StringBuffer(data),
    ]))
}

/// `CF.LOADCHUNK key cursor data`: the chunks of a `CF.SCANDUMP`, in
/// order. The first creates the key (which must not exist) in a restoring
/// state; each later one must start where the last ended and be whole
/// (the dump's chunk sizes are fixed: [`chunk_end`]); the last
/// decodes the whole (checksums, every bucket) into the filter. A chunk
/// refused leaves the key as it was.
pub fn loadchunk(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 4 {
        return Err(RedisError::WrongArity);
    }
    let cursor = number(
        args.get(2),
        1,
        i64::MAX,
        "ERR Bad cursor: a cursor from CF.SCANDUMP (at least 1)",
    )?;
    let data = args[3].as_slice();
    let end = (cursor - 1) as usize;
    let start = end.checked_sub(data.len()).ok_or(RedisError::Str(
        "ERR received bad data: the chunk is longer than its cursor allows",
    ))?;
    let key = ctx.open_key_writable(&args[1]);
    let bad = |reason: String| RedisError::String(format!("ERR received bad data: {reason}"));
    match value_mut(&key)? {
        Some(CfValue::Ready(_)) if start == 0 => Err(RedisError::Str(
            "ERR item exists: LOADCHUNK restores into a new key (DEL it first)",
        )),
        Some(CfValue::Ready(_)) => Err(RedisError::Str(
            "ERR received bad data: chunk out of order (no restore is under way for this key)",
        )),
        None if start != 0 => Err(RedisError::Str(
            "ERR received bad data: chunk out of order (the first chunk starts a restore)",
        )),
        Some(CfValue::Loading(_)) if start == 0 => {
            // A restore starting again: checked whole before it replaces
            // the one under way.
            let value = first_chunk(data, !replayed(ctx)).map_err(bad)?;
            key.set_value(&CF_TYPE, value)?;
            ctx.replicate_verbatim();
            Ok(RedisValue::SimpleStringStatic("OK"))
        }
        None => {
            let value = first_chunk(data, !replayed(ctx)).map_err(bad)?;
            key.set_value(&CF_TYPE, value)?;
            ctx.replicate_verbatim();
            Ok(RedisValue::SimpleStringStatic("OK"))
        }
        Some(CfValue::Loading(p)) => {
            if start != p.bytes.len() {
                return Err(bad(format!(
                    "chunk out of order: it starts at byte {start}, the restore has {} bytes",
                    p.bytes.len()
                )));
            }
            if chunk_end(start, p.expected) != Some(end) {
                return Err(bad(format!(
                    "bytes {start}..{end} are not a chunk of a {}-byte dump (truncated or too long)",
                    p.expected
                )));
            }
            if end < p.expected {
                p.bytes
                    .try_reserve(data.len())
                    .map_err(|_| RedisError::Str("ERR out of memory"))?;
                p.bytes.extend_from_slice(data);
            } else {
                let mut whole = Vec::new();
                whole
                    .try_reserve_exact(p.expected)
                    .map_err(|_| RedisError::Str("ERR out of memory"))?;
                whole.extend_from_slice(&p.bytes);
                whole.extend_from_slice(data);
                let filter = Filter::from_bytes(&whole).map_err(bad)?;
                key.set_value(&CF_TYPE, CfValue::Ready(filter))?;
            }
            ctx.replicate_verbatim();
            Ok(RedisValue::SimpleStringStatic("OK"))
        }
    }
}

/// The key a first chunk makes: the whole filter if it is all there, else a
/// restore under way (its header checked, as an RDB value of a restore
/// under way is: [`dump_len`]; and with `check_size`, its length against
/// the machine's memory).
fn first_chunk(data: &[u8], check_size: bool) -> Result<CfValue, String> {
    let expected = dump_len(data)?;
    if chunk_end(0, expected) != Some(data.len()) {
        return Err(format!(
            "{} bytes are not the first chunk of a {expected}-byte dump (truncated or too long)",
            data.len()
        ));
    }
    if check_size && expected > physical_memory() {
        return Err(format!(
            "the header says the filter takes {expected} bytes, more than this machine's memory"
        ));
    }
    if expected == data.len() {
        return Filter::from_bytes(data).map(CfValue::Ready);
    }
    Ok(CfValue::Loading(Pending {
        bytes: data.to_vec(),
        expected,
    }))
}
