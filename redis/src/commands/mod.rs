//! The `CF.*` commands: RedisBloom's syntax, replies and error messages
//! (README.md lists where they differ), each parsing its arguments, opening
//! its key (WRONGTYPE for a key of another type, read or write), calling
//! cuckoo-nest and replicating itself verbatim when it may have changed the
//! key.
//!
//! The commands are grouped by what they do to a key:
//! [`write`](mod@write) (create, add, insert, delete), [`read`] (exists,
//! count, info) and [`dump`] (`CF.SCANDUMP` and `CF.LOADCHUNK`); beside
//! them, [`args`] parses arguments, [`keys`] opens a key's filter,
//! [`params`] builds a new one, [`memory`] checks a large one against the
//! memory it may take and [`errors`] words cuckoo-nest's errors as
//! replies.

mod args;
mod dump;
mod errors;
mod keys;
mod memory;
mod params;
mod read;
mod write;

pub use dump::{loadchunk, scandump};
pub use read::{count, exists, info, mexists};
pub use write::{add, addnx, del, insert, insertnx, reserve};

/// The capacity of a filter `CF.ADD` or `CF.INSERT` creates (RedisBloom's).
const DEFAULT_CAPACITY: usize = 1024;
/// The false-positive rate every filter is built for, at its capacity.
pub const FALSE_POSITIVE_RATE: f64 = 0.01;

const NOT_FOUND: &str = "ERR not found";
const LOADING: &str =
    "ERR the key is being restored with CF.LOADCHUNK: send the remaining chunks, or DEL it";
