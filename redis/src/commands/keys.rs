//! Opening a key for a command: its value or filter, for reading or
//! writing, WRONGTYPE for a key of another type, an error for a key still
//! being restored, and a new filter for an empty key where the command
//! creates one.

use super::params::Params;
use super::LOADING;
use crate::value::{CfValue, Filter, CF_TYPE};
use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{raw, Context, RedisError};

/// The key's value for writing: `None` if the key is empty, WRONGTYPE if it
/// holds another type.
pub(super) fn value_mut(key: &RedisKeyWritable) -> Result<Option<&mut CfValue>, RedisError> {
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
pub(super) fn filter_ref(key: &RedisKey) -> Result<Option<&Filter>, RedisError> {
    match value_ref(key)? {
        None => Ok(None),
        Some(CfValue::Ready(f)) => Ok(Some(f)),
        Some(CfValue::Loading(_)) => Err(RedisError::Str(LOADING)),
    }
}

/// The key's filter for writing (its dump cache dropped); `None` if the
/// key is empty.
pub(super) fn filter_mut(key: &RedisKeyWritable) -> Result<Option<&mut Filter>, RedisError> {
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
pub(super) fn filter_or_create<'a>(
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
