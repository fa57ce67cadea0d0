//! A filter's dump and restore in chunks: `CF.SCANDUMP` hands out the
//! saved format in fixed-size chunks, `CF.LOADCHUNK` rebuilds a key from
//! them.

use super::args::number;
use super::keys::{filter_ref, value_mut};
use super::memory::{physical_memory, replayed};
use super::NOT_FOUND;
use crate::value::{chunk_end, dump_len, CfValue, Filter, Pending, CF_TYPE};
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

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
