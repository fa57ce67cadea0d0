//! The commands that change a key: `CF.RESERVE`, `CF.ADD`, `CF.ADDNX`,
//! `CF.INSERT`, `CF.INSERTNX` and `CF.DEL`. Each finishes any growth step
//! it started and replicates itself verbatim.

use super::args::{capacity, eq, number};
use super::errors::insert_error;
use super::keys::{filter_mut, filter_or_create, value_mut};
use super::params::Params;
use super::{DEFAULT_CAPACITY, NOT_FOUND};
use crate::value::{CfValue, Filter, CF_TYPE};
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

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
