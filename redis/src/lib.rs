//! # cuckoo-nest-redis
//!
//! A Redis module (`redis-server --loadmodule libcuckoo_nest_redis.so`)
//! serving RedisBloom's cuckoo-filter commands, `CF.RESERVE`, `CF.ADD`,
//! `CF.ADDNX`, `CF.INSERT`, `CF.INSERTNX`, `CF.EXISTS`, `CF.MEXISTS`,
//! `CF.DEL`, `CF.COUNT`, `CF.INFO`, `CF.SCANDUMP` and `CF.LOADCHUNK`, on
//! cuckoo-nest's public API, with a real data type (RDB, AOF rewrite,
//! `MEMORY USAGE`, `COPY`). Items are byte strings (the `*_bytes` methods,
//! whose hash is part of the saved format). Every write is replicated
//! verbatim: the filter is deterministic (default seed, one thread), so a
//! replica fed the same commands holds the same bytes.
//!
//! README.md beside this crate says how to build and load it and what
//! differs from RedisBloom.

mod alloc;
mod commands;
mod value;

use redis_module::redis_module;
use value::CF_TYPE;

redis_module! {
    name: "cf-nest",
    version: 1,
    allocator: (alloc::TryRedisAlloc, alloc::TryRedisAlloc),
    data_types: [CF_TYPE],
    commands: [
        ["CF.RESERVE", commands::reserve, "write deny-oom", 1, 1, 1, ""],
        ["CF.ADD", commands::add, "write deny-oom fast", 1, 1, 1, ""],
        ["CF.ADDNX", commands::addnx, "write deny-oom fast", 1, 1, 1, ""],
        ["CF.INSERT", commands::insert, "write deny-oom", 1, 1, 1, ""],
        ["CF.INSERTNX", commands::insertnx, "write deny-oom", 1, 1, 1, ""],
        ["CF.EXISTS", commands::exists, "readonly fast", 1, 1, 1, ""],
        ["CF.MEXISTS", commands::mexists, "readonly fast", 1, 1, 1, ""],
        ["CF.DEL", commands::del, "write fast", 1, 1, 1, ""],
        ["CF.COUNT", commands::count, "readonly fast", 1, 1, 1, ""],
        ["CF.INFO", commands::info, "readonly fast", 1, 1, 1, ""],
        ["CF.SCANDUMP", commands::scandump, "readonly", 1, 1, 1, ""],
        ["CF.LOADCHUNK", commands::loadchunk, "write deny-oom", 1, 1, 1, ""],
    ],
}
