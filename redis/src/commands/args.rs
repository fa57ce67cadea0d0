//! Argument parsing shared by the commands: keywords, bounded whole
//! numbers and capacities.

use redis_module::{RedisError, RedisString};

pub(super) fn eq(arg: &RedisString, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

/// A whole-number argument in `min..=max`, else `error`.
pub(super) fn number(
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

pub(super) fn capacity(arg: Option<&RedisString>) -> Result<usize, RedisError> {
    let n = number(
        arg,
        1,
        i64::MAX,
        "ERR Bad capacity: a whole number of items, at least 1",
    )?;
    usize::try_from(n).map_err(|_| RedisError::Str("ERR Bad capacity: too large"))
}
