//! Ids given on the command line: either hash, either case, abbreviated
//! down to the ambiguity boundary; answers in input order; exit status 1
//! when one is missing or ambiguous, 2 on usage errors.

use super::map_file;
use crate::support::converted::default_conversion;
use crate::support::library::ObjectKind;
use crate::support::oracle::one_of_each_type;
use crate::support::process::stdout_text;
use crate::support::rehash::{rehash_command, rehash_map};
use crate::support::synthetic_map::{boundary_map, pad, synthetic_map};

#[test]
fn every_object_type_both_directions_and_upper_case() {
    let c = default_conversion();
    for (s1, s256, t) in one_of_each_type() {
        let expected = format!("{s1} {s256} {t}\n");
        for query in [
            s1.clone(),
            s256.clone(),
            s1.to_uppercase(),
            s256.to_uppercase(),
        ] {
            let out = rehash_map(&c.dest, &[&query]);
            assert_eq!(out.status.code(), Some(0), "{query}");
            assert_eq!(stdout_text(&out), expected, "{query}");
        }
    }
}

#[test]
fn answers_in_input_order_and_missing_exits_1() {
    let c = default_conversion();
    let picked = one_of_each_type();
    let unknown = "0123456789abcdef0123456789abcdef01234567";
    let args = [
        picked[0].1.as_str(),
        unknown,
        picked[1].0.as_str(),
        &picked[2].0[..12],
    ];
    let out = rehash_map(&c.dest, &args);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout_text(&out),
        format!(
            "{} {} {}\n{unknown} missing\n{} {} {}\n{} {} {}\n",
            picked[0].0,
            picked[0].1,
            picked[0].2,
            picked[1].0,
            picked[1].1,
            picked[1].2,
            picked[2].0,
            picked[2].1,
            picked[2].2,
        )
    );
}

#[test]
fn prefixes_at_the_ambiguity_boundary() {
    let map = boundary_map();
    let map_arg = map.to_str().unwrap();
    let ask = |q: &str| {
        let out = rehash_command()
            .args(["map", "--map", map_arg, q])
            .output()
            .unwrap();
        (stdout_text(&out), out.status.code())
    };
    let a = pad("abcde", 40, '0');
    let b = pad("abcdf", 40, '0');
    let s = |p: &str| pad(p, 64, '0');
    // Four digits shared by two SHA-1 names; the fifth (a half byte) splits them.
    assert_eq!(ask("abcd"), ("abcd ambiguous\n".into(), Some(1)));
    assert_eq!(
        ask("abcde"),
        (format!("{a} {} commit\n", s("1111")), Some(0))
    );
    assert_eq!(ask("ABCDF"), (format!("{b} {} tree\n", s("2222")), Some(0)));
    assert_eq!(ask("abce"), ("abce missing\n".into(), Some(1)));
    assert_eq!(ask("abcdf1"), ("abcdf1 missing\n".into(), Some(1)));
    // A SHA-256 prefix: abcd9 is only on the SHA-256 side.
    let f = pad("", 40, 'f');
    assert_eq!(
        ask("abcd9"),
        (format!("{f} {} blob\n", s("abcd9")), Some(0))
    );
    // The all-f prefix has no upper bound.
    assert_eq!(ask("ffff"), (format!("{f} {} blob\n", s("abcd9")), Some(0)));
    // 41+ digits can only be SHA-256.
    assert_eq!(
        ask(&s("1111")[..41]),
        (format!("{a} {} commit\n", s("1111")), Some(0))
    );
    // Same prefix on both sides, different objects: ambiguous.
    assert_eq!(ask("3333"), ("3333 ambiguous\n".into(), Some(1)));
    assert_eq!(ask("1234567"), ("1234567 ambiguous\n".into(), Some(1)));
}

/// A full SHA-1 name that is also the start of another object's SHA-256
/// name names two objects.
#[test]
fn full_sha1_matching_a_sha256_prefix_is_ambiguous() {
    let a = pad("9999", 40, '0');
    let map = synthetic_map(
        "cross",
        &[
            (&a, &pad("aaaa", 64, '0'), ObjectKind::Blob),
            (&pad("8888", 40, '0'), &pad(&a, 64, '1'), ObjectKind::Tree),
        ],
    );
    for args in [&[a.as_str()][..], &["--batch"]] {
        let out = map_file(&map, args, format!("{a}\n").as_bytes());
        assert_eq!(stdout_text(&out), format!("{a} ambiguous\n"), "{args:?}");
        assert_eq!(out.status.code(), Some(1));
    }
}

#[test]
fn json_format() {
    let map = boundary_map();
    let a = pad("abcde", 40, '0');
    let out = map_file(map, &["--format", "json", "abcde", "abcd", "beef"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout_text(&out),
        format!(
            "{{\"input\":\"abcde\",\"status\":\"found\",\"sha1\":\"{a}\",\"sha256\":\"{}\",\"type\":\"commit\"}}\n\
             {{\"input\":\"abcd\",\"status\":\"ambiguous\"}}\n\
             {{\"input\":\"beef\",\"status\":\"missing\"}}\n",
            pad("1111", 64, '0')
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    let map = boundary_map();
    for args in [
        vec!["abc"],
        vec!["xyz12"],
        vec!["--format", "tsv", "abcd"],
        vec!["--batch", "abcd"],
        vec![],
    ] {
        let out = map_file(map, &args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let out = rehash_command()
        .args(["map", "--map", "/nonexistent/map.sqlite", "abcd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
