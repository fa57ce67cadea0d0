//! Values the module did not save: forged `RESTORE` payloads (a valid
//! CRC-64, which any client can compute) and a truncated RDB file. Every
//! forged value is refused with an error reply (`ERR Bad data format`) and
//! the server goes on serving; a truncated RDB stops the server at start-up
//! with a log line and exit status 1, not a crash.
//!
//! A `DUMP` payload of a module value, as Redis 7.0 writes it (rdb.c,
//! module.c): the RDB type byte (7, a module value with opcodes), the
//! module type id (the type name's nine characters, 6 bits each, then the
//! encoding version in 10 bits) as an RDB length, the fields the module
//! saved, each after its opcode, the end-of-value opcode, then the RDB
//! version (2 bytes, little-endian) and the CRC-64 of everything before it
//! (Jones polynomial, reflected, as Redis's crc64.c; little-endian).
//! `forged_payloads_are_what_dump_gives` checks this encoding against the
//! server's own `DUMP`, so the refusals below are the module's.

mod common;

use common::{add_items, dump_bytes, error_of, redis_available, scandump, Server};
use redis::{cmd, Connection};

const TYPE_NAME: &[u8; 9] = b"CFnest-rs";
/// The module's RDB encoding version.
const ENCODING: u64 = 0;
/// RDB_TYPE_MODULE_2 (rdb.h).
const RDB_TYPE_MODULE_2: u8 = 7;
/// RDB_MODULE_OPCODE_EOF, _UINT and _STRING (rdb.h).
const OPCODE_EOF: u64 = 0;
const OPCODE_UINT: u64 = 2;
const OPCODE_STRING: u64 = 5;
/// The module's two states (value.rs): a filter, a restore under way.
const READY: u64 = 0;
const LOADING: u64 = 1;
/// The first chunk of a `CF.SCANDUMP` (value.rs).
const FIRST_CHUNK: usize = 4096;

/// Redis's CRC-64 (crc64.c): Jones polynomial 0xad93d23594c935a9,
/// reflected, initial value 0, no final xor.
fn crc64(bytes: &[u8]) -> u64 {
    const REFLECTED: u64 = 0x95ac_9329_ac4b_c9b5;
    let mut crc = 0u64;
    for &b in bytes {
        crc ^= u64::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ REFLECTED
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// An RDB length (rdbSaveLen): 6, 14, 32 or 64 bits.
fn rdb_len(out: &mut Vec<u8>, n: u64) {
    if n < 1 << 6 {
        out.push(n as u8);
    } else if n < 1 << 14 {
        out.extend([0x40 | (n >> 8) as u8, n as u8]);
    } else if n <= u64::from(u32::MAX) {
        out.push(0x80);
        out.extend((n as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend(n.to_be_bytes());
    }
}

/// The module type id (moduleTypeEncodeId): each character's index in
/// Redis's 64-character set, 6 bits each, then the encoding version.
fn module_id() -> u64 {
    const CHARSET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let id = TYPE_NAME.iter().fold(0u64, |id, c| {
        let index = CHARSET
            .iter()
            .position(|x| x == c)
            .expect("a name character");
        (id << 6) | index as u64
    });
    (id << 10) | ENCODING
}

/// A module value's fields, as RedisModule_Save* writes them.
#[derive(Default, Clone)]
struct Fields(Vec<u8>);

impl Fields {
    fn uint(mut self, v: u64) -> Self {
        rdb_len(&mut self.0, OPCODE_UINT);
        rdb_len(&mut self.0, v);
        self
    }

    fn string(self, s: &[u8]) -> Self {
        self.short_string(s.len() as u64, s)
    }

    /// A string whose length says `len` bytes, followed by `s` (shorter:
    /// the payload ends inside it).
    fn short_string(mut self, len: u64, s: &[u8]) -> Self {
        rdb_len(&mut self.0, OPCODE_STRING);
        rdb_len(&mut self.0, len);
        self.0.extend_from_slice(s);
        self
    }

    fn end(mut self) -> Self {
        rdb_len(&mut self.0, OPCODE_EOF);
        self
    }
}

/// A `DUMP` payload of a `CFnest-rs` value with `fields`, for a server of
/// `rdb_version`.
fn payload(fields: &Fields, rdb_version: [u8; 2]) -> Vec<u8> {
    let mut p = vec![RDB_TYPE_MODULE_2];
    rdb_len(&mut p, module_id());
    p.extend_from_slice(&fields.0);
    p.extend_from_slice(&rdb_version);
    let crc = crc64(&p);
    p.extend(crc.to_le_bytes());
    p
}

/// The server's RDB version, from the footer of a real `DUMP`.
fn rdb_version(c: &mut Connection) -> [u8; 2] {
    cmd("SET").arg("v").arg("v").query::<()>(c).unwrap();
    let d: Vec<u8> = cmd("DUMP").arg("v").query(c).unwrap();
    [d[d.len() - 10], d[d.len() - 9]]
}

fn restore(c: &mut Connection, key: &str, payload: &[u8]) -> redis::RedisResult<String> {
    cmd("RESTORE").arg(key).arg(0).arg(payload).query(c)
}

/// A fixed filter of `capacity` holding `items`, and its saved bytes.
fn filter(c: &mut Connection, key: &str, capacity: u32, items: u32) -> Vec<u8> {
    cmd("CF.RESERVE")
        .arg(key)
        .arg(capacity)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(c)
        .unwrap();
    add_items(c, key, 0..items);
    dump_bytes(c, key)
}

#[test]
fn crc64_is_redis_crc64() {
    // crc64.c's own test vector.
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
}

#[test]
fn forged_payloads_are_what_dump_gives() {
    if !redis_available() {
        return;
    }
    // Without compression DUMP writes each string as it is, as forged.
    let server = Server::start(&["--rdbcompression", "no"]);
    let mut c = server.conn();
    let version = rdb_version(&mut c);
    let bytes = filter(&mut c, "f", 1000, 100);
    let real: Vec<u8> = cmd("DUMP").arg("f").query(&mut c).unwrap();
    let forged = payload(&Fields::default().uint(READY).string(&bytes).end(), version);
    assert!(
        real == forged,
        "DUMP of a filter differs from the forged one"
    );

    // A restore under way, two chunks in.
    let big = filter(&mut c, "big", 30_000_000, 100);
    let chunks = scandump(&mut c, "big");
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    let mut received = Vec::new();
    for (cursor, data) in &chunks[..2] {
        cmd("CF.LOADCHUNK")
            .arg("half")
            .arg(*cursor)
            .arg(data)
            .query::<()>(&mut c)
            .unwrap();
        received.extend_from_slice(data);
    }
    let real: Vec<u8> = cmd("DUMP").arg("half").query(&mut c).unwrap();
    let fields = Fields::default()
        .uint(LOADING)
        .uint(big.len() as u64)
        .string(&received)
        .end();
    assert!(
        real == payload(&fields, version),
        "DUMP of a restore under way differs from the forged one"
    );
}

#[test]
fn restore_refuses_forged_values() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    let version = rdb_version(&mut c);
    // A filter in one chunk, and one in two (4096 bytes, then the rest).
    let small = filter(&mut c, "small", 1000, 100);
    let two = filter(&mut c, "two", 10_000, 1000);
    assert!(small.len() <= FIRST_CHUNK && two.len() > FIRST_CHUNK);
    let first = &two[..FIRST_CHUNK];
    let mut damaged = small.clone();
    let at = damaged.len() - 100;
    damaged[at] ^= 0x10;
    let ready = || Fields::default().uint(READY);
    let loading = |expected: u64| Fields::default().uint(LOADING).uint(expected);
    let two_len = two.len() as u64;
    let short = "short read";
    let restoring = "a restore under way";
    // Each forged value, and the module's reason in the log.
    let cases: Vec<(&str, Fields, &str)> = vec![
        ("nothing after the type id", Fields::default(), short),
        ("the end of the value only", Fields::default().end(), short),
        ("no string", ready().end(), short),
        ("a state, then the payload ends", ready(), short),
        (
            "a string where the state goes",
            Fields::default().string(&small).end(),
            short,
        ),
        (
            "192 bytes announced, 10 sent",
            ready().short_string(192, &[b'x'; 10]),
            short,
        ),
        (
            "a filter cut short inside its string",
            ready().short_string(small.len() as u64, &small[..small.len() / 2]),
            short,
        ),
        (
            "a truncated filter",
            ready().string(&small[..small.len() / 2]).end(),
            "truncated saved filter",
        ),
        (
            "a damaged filter",
            ready().string(&damaged).end(),
            "table checksum mismatch",
        ),
        (
            "not a filter",
            ready().string(b"abc").end(),
            "not a saved cuckoo-nest filter",
        ),
        (
            "an unknown state",
            Fields::default().uint(7).string(&small).end(),
            "unknown state 7",
        ),
        (
            "restoring, no expected length",
            Fields::default().uint(LOADING).end(),
            short,
        ),
        ("restoring, no string", loading(two_len).end(), short),
        (
            "restoring, 0 bytes of 2^64-1",
            loading(u64::MAX).string(b"").end(),
            "shorter than the filter's header",
        ),
        (
            "restoring, 'abc' of 5 bytes",
            loading(5).string(b"abc").end(),
            "not a saved cuckoo-nest filter",
        ),
        (
            "restoring, garbage",
            loading(two_len).string(&[7; FIRST_CHUNK]).end(),
            "not a saved cuckoo-nest filter",
        ),
        (
            "restoring, a first chunk and a wrong length",
            loading(two_len + 8).string(first).end(),
            "but its header says",
        ),
        (
            "restoring, a first chunk and 2^64-1",
            loading(u64::MAX).string(first).end(),
            "but its header says",
        ),
        (
            "restoring, part of a first chunk",
            loading(two_len).string(&first[..1000]).end(),
            "not whole chunks",
        ),
        (
            "restoring, a chunk and a half",
            loading(two_len).string(&two[..FIRST_CHUNK + 10]).end(),
            "not whole chunks",
        ),
        (
            "restoring, every byte received",
            loading(small.len() as u64).string(&small).end(),
            "every byte received",
        ),
    ];
    let refusals = |log: String| -> Vec<String> {
        log.lines()
            .filter(|l| l.contains("CFnest-rs value refused"))
            .map(String::from)
            .collect()
    };
    for (what, fields, why) in &cases {
        let before = refusals(server.log()).len();
        let e = error_of(restore(&mut c, "forged", &payload(fields, version)));
        assert!(e.starts_with("ERR Bad data format"), "{what}: {e}");
        assert_eq!(
            cmd("PING").query::<String>(&mut c).unwrap(),
            "PONG",
            "{what}"
        );
        assert_eq!(
            cmd("EXISTS").arg("forged").query::<i64>(&mut c).unwrap(),
            0,
            "{what}"
        );
        // One log line, with this value's reason.
        let lines = refusals(server.log());
        assert_eq!(lines.len(), before + 1, "{what}: {lines:?}");
        let line = &lines[before];
        assert!(line.contains(why), "{what}: {line}");
        if what.starts_with("restoring,") && *why != short {
            assert!(line.contains(restoring), "{what}: {line}");
        }
    }

    // The same framing with real contents is restored: a filter, and a
    // restore under way that CF.LOADCHUNK then finishes.
    let fields = ready().string(&small).end();
    assert_eq!(
        restore(&mut c, "restored", &payload(&fields, version)).unwrap(),
        "OK"
    );
    assert_eq!(dump_bytes(&mut c, "restored"), small);
    let fields = loading(two_len).string(first).end();
    assert_eq!(
        restore(&mut c, "half", &payload(&fields, version)).unwrap(),
        "OK"
    );
    let chunks = scandump(&mut c, "two");
    for (cursor, data) in &chunks[1..] {
        cmd("CF.LOADCHUNK")
            .arg("half")
            .arg(*cursor)
            .arg(data)
            .query::<()>(&mut c)
            .unwrap();
    }
    assert_eq!(dump_bytes(&mut c, "half"), two);
}

#[test]
fn a_truncated_rdb_stops_the_server_with_a_log_line() {
    if !redis_available() {
        return;
    }
    let mut server = Server::start(&[]);
    let mut c = server.conn();
    // Random fingerprints: the table does not compress, so the file's
    // middle is inside the filter's string.
    let bytes = filter(&mut c, "f", 20_000, 20_000);
    cmd("SAVE").query::<()>(&mut c).unwrap();
    drop(c);
    server.stop();
    let rdb = server.dir.join("dump.rdb");
    let whole = std::fs::read(&rdb).unwrap();
    assert!(whole.len() > bytes.len() / 2, "{} bytes", whole.len());
    std::fs::write(&rdb, &whole[..whole.len() / 2]).unwrap();

    let status = server.restart_expecting_exit();
    let log = server.log();
    // Redis 7.0 with REDISMODULE_OPTIONS_HANDLE_IO_ERRORS: the module
    // refuses the value, Redis logs a short read, checks the file
    // (redis-check-rdb) and exits with status 1. Without the option, a
    // short read inside the module is a "Guru Meditation" and a signal.
    assert_eq!(status.code(), Some(1), "{status}: {log}");
    assert!(!log.contains("Guru Meditation"), "{log}");
    assert!(log.contains("Short read"), "{log}");
    assert!(
        log.contains("CFnest-rs") && log.contains("short read"),
        "the module's line: {log}"
    );

    // The whole file loads.
    std::fs::write(&rdb, &whole).unwrap();
    server.restart();
    let mut c = server.conn();
    assert_eq!(dump_bytes(&mut c, "f"), bytes);
}
