//! A test binary of its own, not a module of tests/it: built only with the
//! `serde` feature (`required-features` in Cargo.toml), which `cargo test`
//! leaves off.
//!
//! The `serde` feature: a filter through serde_json (bytes as an array of
//! numbers, the least convenient encoding) and back, answering the same;
//! bad input is the format's error with DecodeError's message.
//! Run with `cargo test -p cuckoo-nest --features serde` (.ci/run does).

use cuckoo_nest::CuckooFilter;

#[test]
fn a_filter_round_trips_through_serde_json() {
    let filter = CuckooFilter::builder()
        .capacity(2000)
        .fingerprint_bits(13)
        .semi_sorted(true)
        .seed(11)
        .build()
        .unwrap();
    for k in 0..1500u32 {
        filter.insert(&k).unwrap();
    }
    let json = serde_json::to_string(&filter).unwrap();
    let back: CuckooFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), filter.to_bytes());
    for k in 0..1500u32 {
        assert!(back.contains(&k));
    }
    // In a struct, beside other fields.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Saved {
        name: String,
        filter: CuckooFilter,
    }
    let json = serde_json::to_vec(&Saved {
        name: "users".into(),
        filter,
    })
    .unwrap();
    let saved: Saved = serde_json::from_slice(&json).unwrap();
    assert_eq!(saved.name, "users");
    assert!(saved.filter.contains(&7u32));
}

#[test]
fn bad_bytes_are_a_serde_error_saying_what_is_wrong() {
    let e = serde_json::from_str::<CuckooFilter>("[1,2,3]").unwrap_err();
    assert!(
        e.to_string().contains("not a saved cuckoo-nest filter"),
        "{e}"
    );
    let filter = CuckooFilter::with_capacity(10);
    let mut bytes = filter.to_bytes();
    bytes.pop();
    let json = serde_json::to_string(&bytes).unwrap();
    let e = serde_json::from_str::<CuckooFilter>(&json).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    assert!(serde_json::from_str::<CuckooFilter>("\"text\"").is_err());
}
