//! The commands that only read a key: `CF.EXISTS`, `CF.MEXISTS`,
//! `CF.COUNT` and `CF.INFO`.

use super::keys::filter_ref;
use super::NOT_FOUND;
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

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
        // One table, or one per chain once a growable filter has spent its
        // spare bits (it moves into its next table as it doubles within a
        // chain).
        ("Number of filters", i64::from(f.cf.statistics().tables)),
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
