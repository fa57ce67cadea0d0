//! A primary and a replica fed the same commands (full sync of what came
//! before the replica, then the command stream) end byte-identical, key by
//! key (`CF.SCANDUMP`), after a mixed workload: creates, adds, batches,
//! deletes, growth, a filter filled past full (failed inserts move items
//! too), restores.

mod common;

use common::{dump_bytes, redis_available, scandump, Server};
use redis::{cmd, Connection};
use std::time::{Duration, Instant};

fn workload(c: &mut Connection, round: u32) {
    let key = |name: &str| format!("{name}:{round}");
    cmd("CF.RESERVE")
        .arg(key("grow"))
        .arg(64)
        .query::<()>(c)
        .unwrap();
    cmd("CF.RESERVE")
        .arg(key("fixed"))
        .arg(200)
        .arg("BUCKETSIZE")
        .arg(2)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(c)
        .unwrap();
    let mut refused = 0;
    for k in 0..3000u32 {
        let item = format!("i{}", k.wrapping_mul(2_654_435_761) % 5000);
        match k % 7 {
            0 => {
                let _: i64 = cmd("CF.ADDNX")
                    .arg(key("grow"))
                    .arg(&item)
                    .query(c)
                    .unwrap();
            }
            1 => {
                let _: i64 = cmd("CF.DEL")
                    .arg(key("grow"))
                    .arg(&item)
                    .query(c)
                    .unwrap_or(0);
            }
            2 => {
                // Past 200 items the fixed filter refuses: errors that may
                // still move items between their buckets.
                if cmd("CF.ADD")
                    .arg(key("fixed"))
                    .arg(&item)
                    .query::<i64>(c)
                    .is_err()
                {
                    refused += 1;
                }
            }
            3 => {
                let _: Vec<i64> = cmd("CF.INSERT")
                    .arg(key("auto"))
                    .arg("ITEMS")
                    .arg(&item)
                    .arg(format!("{item}b"))
                    .query(c)
                    .unwrap();
            }
            4 => {
                let _: Vec<i64> = cmd("CF.INSERTNX")
                    .arg(key("fixed"))
                    .arg("ITEMS")
                    .arg(&item)
                    .query(c)
                    .unwrap();
            }
            _ => {
                let _: i64 = cmd("CF.ADD").arg(key("grow")).arg(&item).query(c).unwrap();
            }
        }
    }
    assert!(refused > 0, "the fixed filter filled up");
    // A restore: the grown filter dumped and loaded under another name.
    for (cursor, data) in scandump(c, &key("grow")) {
        cmd("CF.LOADCHUNK")
            .arg(key("restored"))
            .arg(cursor)
            .arg(data)
            .query::<()>(c)
            .unwrap();
    }
}

fn keys(c: &mut Connection) -> Vec<String> {
    let mut keys: Vec<String> = cmd("KEYS").arg("*").query(c).unwrap();
    keys.sort();
    keys
}

fn wait_for_replica(primary: &mut Connection) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let acked: i64 = cmd("WAIT").arg(1).arg(1000).query(primary).unwrap();
        if acked >= 1 {
            return;
        }
    }
    panic!("the replica did not acknowledge in 60 s");
}

#[test]
fn replica_is_byte_identical() {
    if !redis_available() {
        return;
    }
    let primary = Server::start(&[]);
    let mut p = primary.conn();
    workload(&mut p, 0); // before the replica: a full sync (RDB)
    let replica = Server::start(&["--replicaof", "127.0.0.1", &primary.port.to_string()]);
    let mut r = replica.conn();
    let start = Instant::now();
    loop {
        let info: String = cmd("INFO").arg("replication").query(&mut r).unwrap();
        if info.contains("master_link_status:up") {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no link: {info}");
        std::thread::sleep(Duration::from_millis(50));
    }
    workload(&mut p, 1); // streamed commands
    wait_for_replica(&mut p);

    let names = keys(&mut p);
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(keys(&mut r), names);
    for key in &names {
        let (a, b) = (dump_bytes(&mut p, key), dump_bytes(&mut r, key));
        assert!(
            a == b,
            "{key}: the replica's bytes differ from the primary's"
        );
        let ia: redis::Value = cmd("CF.INFO").arg(key).query(&mut p).unwrap();
        let ib: redis::Value = cmd("CF.INFO").arg(key).query(&mut r).unwrap();
        assert_eq!(ia, ib, "{key}");
    }
    // DEBUG DIGEST (the module's digest callback) agrees too.
    let (da, db): (String, String) = (
        cmd("DEBUG").arg("DIGEST").query(&mut p).unwrap(),
        cmd("DEBUG").arg("DIGEST").query(&mut r).unwrap(),
    );
    assert_eq!(da, db);
    assert_ne!(da, "0".repeat(40), "a digest of something");
    // The replica refuses writes, answers reads.
    let e = cmd("CF.ADD")
        .arg("grow:0")
        .arg("x")
        .query::<i64>(&mut r)
        .unwrap_err();
    assert_eq!(e.code(), Some("READONLY"));
    let found: i64 = cmd("CF.EXISTS")
        .arg("grow:1")
        .arg("i0")
        .query(&mut r)
        .unwrap();
    let on_primary: i64 = cmd("CF.EXISTS")
        .arg("grow:1")
        .arg("i0")
        .query(&mut p)
        .unwrap();
    assert_eq!(found, on_primary);
}
