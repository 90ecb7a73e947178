//! Hidden tests of `tcas`: further encounters, judged on the advisory code.

use tcas::{Advisory, Encounter, advisory_code};

fn code(codes: [i32; 12]) -> i32 {
    advisory_code(&codes)
}

/// Engaged encounter with an intruder without TCAS, 900 ft apart vertically.
fn layered(own: i32, other: i32, layer: i32, up: i32, down: i32) -> i32 {
    code([900, 1, 1, own, 100, other, layer, up, down, 0, 2, 0])
}

#[test]
fn upward_in_every_layer_just_below_alim() {
    for (layer, alim) in [(0, 400), (1, 500), (2, 640), (3, 740)] {
        assert_eq!(
            layered(5000, 5600, layer, alim + 200, alim - 1),
            1,
            "layer {layer}"
        );
        assert_eq!(
            layered(5000, 5600, layer, alim + 200, alim),
            0,
            "layer {layer}"
        );
    }
}

#[test]
fn downward_in_every_layer_from_alim() {
    for (layer, alim) in [(0, 400), (1, 500), (2, 640), (3, 740)] {
        assert_eq!(
            layered(7000, 6000, layer, alim, alim + 50),
            2,
            "layer {layer}"
        );
        assert_eq!(
            layered(7000, 6000, layer, alim - 1, alim + 50),
            0,
            "layer {layer}"
        );
    }
}

#[test]
fn disengaged_encounters_are_unresolved() {
    assert_eq!(code([610, 0, 1, 1000, 0, 2000, 0, 900, 100, 0, 2, 0]), 0);
    assert_eq!(code([610, 1, 1, 1000, 700, 2000, 0, 900, 100, 0, 2, 0]), 0);
    assert_eq!(code([590, 1, 1, 1000, 0, 2000, 0, 900, 100, 0, 2, 0]), 0);
    assert_eq!(code([610, 1, 1, 1000, 0, 2000, 0, 900, 100, 0, 2, 0]), 1);
}

#[test]
fn equipped_intruder_with_known_intent_is_left_alone() {
    assert_eq!(code([1000, 1, 1, 1000, 0, 2000, 2, 900, 100, 0, 1, 0]), 1);
    assert_eq!(code([1000, 1, 1, 1000, 0, 2000, 2, 900, 100, 1, 1, 0]), 0);
    assert_eq!(code([1000, 1, 0, 1000, 0, 2000, 2, 900, 100, 0, 1, 0]), 0);
    assert_eq!(code([1000, 1, 0, 1000, 0, 2000, 2, 900, 100, 1, 2, 0]), 1);
}

#[test]
fn inhibited_climb_changes_the_preference() {
    // Below the intruder, up 380 vs down 420 in layer 0: descending is preferred and the
    // climb would cross, so nothing; with the inhibit credit (480 > 420) climbing is
    // preferred and down 420 >= alim 400 still forbids it.
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 0, 380, 420, 0, 2, 0]), 0);
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 0, 380, 420, 0, 2, 1]), 0);
    // Layer 1 (alim 500): the credited climb is now allowed (420 < 500).
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 1, 380, 420, 0, 2, 1]), 1);
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 1, 380, 420, 0, 2, 0]), 0);
}

#[test]
fn predicates_on_a_level_encounter() {
    let e = Encounter::from_codes(&[700, 1, 1, 4000, 0, 4000, 2, 700, 300, 0, 2, 1]).unwrap();
    assert_eq!(e.alim(), 640);
    assert_eq!(e.inhibit_biased_climb(), 800);
    assert!(e.non_crossing_biased_climb());
    assert!(!e.non_crossing_biased_descend());
    assert_eq!(e.alt_sep_test(), Advisory::Unresolved);
}

#[test]
fn malformed_inputs() {
    assert_eq!(advisory_code(&[]), -1);
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 7, 500, 300, 0, 2, 0]), -1);
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 1, 500, 300, 5, 2, 0]), -1);
    assert_eq!(code([700, 1, 1, 1000, 0, 2000, 1, 500, 300, 0, -1, 0]), -1);
}
