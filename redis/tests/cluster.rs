//! A three-primary Redis Cluster on loopback ports (slots assigned with
//! CLUSTER ADDSLOTSRANGE, nodes joined with CLUSTER MEET): keys spread over
//! all three nodes, each command served by the node owning its key (the
//! module declares the key, argument 1) and redirected with MOVED by the
//! others, and a filter dumped on one node restored on another.

mod common;

use common::{dump_bytes, redis_available, scandump, Server};
use redis::{cmd, Connection};
use std::time::{Duration, Instant};

const RANGES: [(u16, u16); 3] = [(0, 5460), (5461, 10922), (10923, 16383)];

fn owner(c: &mut Connection, key: &str) -> usize {
    let slot: u16 = cmd("CLUSTER").arg("KEYSLOT").arg(key).query(c).unwrap();
    RANGES
        .iter()
        .position(|&(lo, hi)| (lo..=hi).contains(&slot))
        .unwrap()
}

#[test]
fn three_primaries() {
    if !redis_available() {
        return;
    }
    let args = ["--cluster-enabled", "yes", "--cluster-node-timeout", "5000"];
    let nodes: Vec<Server> = (0..3).map(|_| Server::start(&args)).collect();
    let mut conns: Vec<Connection> = nodes.iter().map(Server::conn).collect();
    for (c, &(lo, hi)) in conns.iter_mut().zip(&RANGES) {
        cmd("CLUSTER")
            .arg("ADDSLOTSRANGE")
            .arg(lo)
            .arg(hi)
            .query::<()>(c)
            .unwrap();
    }
    for n in &nodes[1..] {
        cmd("CLUSTER")
            .arg("MEET")
            .arg("127.0.0.1")
            .arg(n.port)
            .query::<()>(&mut conns[0])
            .unwrap();
    }
    let start = Instant::now();
    'wait: loop {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the cluster did not form"
        );
        for c in conns.iter_mut() {
            let info: String = cmd("CLUSTER").arg("INFO").query(c).unwrap();
            if !info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:3") {
                std::thread::sleep(Duration::from_millis(100));
                continue 'wait;
            }
        }
        break;
    }

    let keys: Vec<String> = (0..30).map(|k| format!("filter:{k}")).collect();
    let mut per_node = [0usize; 3];
    for key in &keys {
        let n = owner(&mut conns[0], key);
        per_node[n] += 1;
        let c = &mut conns[n];
        cmd("CF.RESERVE").arg(key).arg(1000).query::<()>(c).unwrap();
        for k in 0..200 {
            let added: i64 = cmd("CF.ADD")
                .arg(key)
                .arg(format!("{key}/{k}"))
                .query(c)
                .unwrap();
            assert_eq!(added, 1);
        }
        let r: Vec<i64> = cmd("CF.INSERT")
            .arg(key)
            .arg("ITEMS")
            .arg("a")
            .arg("b")
            .query(c)
            .unwrap();
        assert_eq!(r, [1, 1]);
        let found: Vec<i64> = cmd("CF.MEXISTS")
            .arg(key)
            .arg(format!("{key}/0"))
            .arg(format!("{key}/199"))
            .query(c)
            .unwrap();
        assert_eq!(found, [1, 1]);
        // The other nodes redirect every CF command on this key.
        let other = (n + 1) % 3;
        for command in ["CF.EXISTS", "CF.ADD", "CF.COUNT", "CF.DEL"] {
            let e = cmd(command)
                .arg(key)
                .arg("a")
                .query::<i64>(&mut conns[other])
                .unwrap_err();
            assert_eq!(
                e.code(),
                Some("MOVED"),
                "{command} on a node not owning {key}"
            );
        }
        let e = cmd("CF.INFO")
            .arg(key)
            .query::<redis::Value>(&mut conns[other])
            .unwrap_err();
        assert_eq!(e.code(), Some("MOVED"));
    }
    assert!(
        per_node.iter().all(|&n| n > 0),
        "keys on every node: {per_node:?}"
    );
    for (n, c) in conns.iter_mut().enumerate() {
        let held: i64 = cmd("DBSIZE").query(c).unwrap();
        assert_eq!(held as usize, per_node[n]);
    }

    // SCANDUMP on one node, LOADCHUNK on another.
    let src = &keys[0];
    let from = owner(&mut conns[0], src);
    let dst = (0..100)
        .map(|k| format!("copy:{k}"))
        .find(|k| owner(&mut conns[0], k) != from)
        .unwrap();
    let to = owner(&mut conns[0], &dst);
    for (cursor, data) in scandump(&mut conns[from], src) {
        cmd("CF.LOADCHUNK")
            .arg(&dst)
            .arg(cursor)
            .arg(data)
            .query::<()>(&mut conns[to])
            .unwrap();
    }
    assert_eq!(
        dump_bytes(&mut conns[to], &dst),
        dump_bytes(&mut conns[from], src)
    );
    let found: i64 = cmd("CF.EXISTS")
        .arg(&dst)
        .arg(format!("{src}/7"))
        .query(&mut conns[to])
        .unwrap();
    assert_eq!(found, 1);
}
