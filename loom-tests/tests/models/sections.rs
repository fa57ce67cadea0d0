//! The read-side sections' protocol on its own (model of
//! `src/grow/reclaim/slot.rs`, where the models are written, on the
//! crate's private slot types): a reader's section against the reclaimer
//! that frees the state it unlinked. docs/verification.md, "Read-side
//! sections".

#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::section_models;

#[test]
fn a_section_never_sees_its_state_freed() {
    section_models::a_section_never_sees_its_state_freed();
}

#[test]
fn a_nested_section_does_not_end_the_outer_one() {
    section_models::a_nested_section_does_not_end_the_outer_one();
}

#[test]
fn a_second_section_sees_the_state_unlinked() {
    section_models::a_second_section_sees_the_state_unlinked();
}
