//! Readers on real third-party schemes, and writer round trips.

use std::path::PathBuf;

use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::verify::{verify, verify_z};
use flipgraph_core::{IntScheme, Scheme, Shape};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// (file, format, shape, rank, valid over Z)
const BUNDLED: &[(&str, Format, [usize; 3], usize, bool)] = &[
    ("2x2x2-r7-strassen.m", Format::Mathematica, [2, 2, 2], 7, true),
    ("3x3x3-r23-laderman.m", Format::Mathematica, [3, 3, 3], 23, true),
    ("3x3x8-r55-perminov.json", Format::PerminovJson, [3, 3, 8], 55, false),
    (
        "7x7x7-r250-perminov-ternary.json",
        Format::PerminovJson,
        [7, 7, 7],
        250,
        true,
    ),
    ("7x7x7-r245-seed.b32", Format::Seed, [7, 7, 7], 245, false),
    // The project's own results (tests/data/ORIGIN.md).
    ("4x4x4-r47-flipgraph.json", Format::PerminovJson, [4, 4, 4], 47, false),
    ("4x4x5-r60-flipgraph.json", Format::PerminovJson, [4, 4, 5], 60, false),
    (
        "5x5x5-r93-c3-flipgraph.json",
        Format::PerminovJson,
        [5, 5, 5],
        93,
        false,
    ),
    (
        "5x5x5-r93-c3-flipgraph-lifted.json",
        Format::PerminovJson,
        [5, 5, 5],
        93,
        true,
    ),
    (
        "6x6x6-r153-c6-flipgraph.json",
        Format::PerminovJson,
        [6, 6, 6],
        153,
        false,
    ),
];

#[test]
fn bundled_schemes_read_with_shape_rank_and_validity() {
    for &(name, format, [n, m, p], rank, over_z) in BUNDLED {
        let file = formats::read_path(&data(name)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(file.format, format, "{name}");
        assert_eq!(file.scheme.shape, Shape::new(n, m, p).unwrap(), "{name}");
        assert_eq!(file.scheme.rank(), rank, "{name}");
        assert_eq!(verify(&file.scheme.mod2::<u64>().unwrap()), Ok(()), "{name}");
        assert_eq!(verify_z(&file.scheme).is_ok(), over_z, "{name}");
    }
}

/// The shared folder beside the checkout holds more schemes (some GPL, not copied here). A
/// fresh clone has no such folder, so the test is run on demand (`--ignored`, as CI does).
#[test]
#[ignore = "reads ../shared/schemes beside the checkout (third-party files not in the repository); CI runs it"]
fn the_shared_schemes_read_and_verify() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemes");
    // CI has the shared folder beside its clone: without it this test fails, saying so.
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "this test needs {} (the shared schemes beside the checkout): {e}",
            dir.display()
        )
    });
    let mut count = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let file = formats::read_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // File names start with NxMxP-rR.
        let (dims, rest) = name.split_once("-r").unwrap();
        let rank: usize = rest
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(file.scheme.shape, dims.parse::<Shape>().unwrap(), "{name}");
        assert_eq!(file.scheme.rank(), rank, "{name}");
        assert_eq!(verify(&file.scheme.mod2::<u64>().unwrap()), Ok(()), "{name}");
        if !file.scheme.is_binary() {
            assert_eq!(verify_z(&file.scheme), Ok(()), "{name}");
        }
        count += 1;
    }
    assert!(count >= 9, "expected the nine shared schemes, read {count}");
}

fn round_trip(scheme: &IntScheme, format: Format, ring: Ring) {
    let text = formats::write(scheme, format, ring).unwrap();
    let back = formats::read(text.as_bytes()).unwrap_or_else(|e| panic!("{format}: {e}\n{text}"));
    assert_eq!(back.format, format);
    assert_eq!(&back.scheme, scheme, "{format} round trip");
}

#[test]
fn every_writer_round_trips_through_its_reader() {
    let mut f2 = vec![IntScheme::from_f2(&Scheme::naive(Shape::new(2, 3, 4).unwrap()))];
    f2.push(IntScheme::from_f2(&Scheme::naive(Shape::new(8, 8, 8).unwrap())));
    f2.push(formats::read_path(&data("7x7x7-r245-seed.b32")).unwrap().scheme);
    f2.push(formats::read_path(&data("3x3x8-r55-perminov.json")).unwrap().scheme);
    for s in &f2 {
        for format in Format::ALL.into_iter().filter(|f| f.writable()) {
            round_trip(s, format, Ring::F2);
        }
    }
    let z = [
        formats::read_path(&data("3x3x3-r23-laderman.m")).unwrap().scheme,
        formats::read_path(&data("7x7x7-r250-perminov-ternary.json"))
            .unwrap()
            .scheme,
    ];
    for s in &z {
        for format in [Format::Letter, Format::PerminovJson, Format::PerminovTxt] {
            round_trip(s, format, Ring::Z);
        }
        assert!(formats::write(s, Format::Seed, Ring::Z).is_err());
    }
}

#[test]
fn letter_format_reads_signs_coefficients_crlf_and_nested_negation() {
    let text = "(a11 - a12)*(b11)*(-c11 + 2*c12)\r\n-((a21) b11 (c11))\r\n\r\n(a11)(-b11)(c11)\n";
    let s = formats::read(text.as_bytes()).unwrap().scheme;
    assert_eq!(s.shape, Shape::new(2, 2, 1).unwrap());
    assert_eq!(s.terms[0].factors[0], vec![1, -1, 0, 0]);
    assert_eq!(s.terms[0].factors[2], vec![-1, 2]);
    assert_eq!(s.terms[1].factors[0], vec![0, 0, -1, 0]);
    assert_eq!(s.terms[2].factors[1], vec![-1, 0]);
}

#[test]
fn detection_uses_content_not_names() {
    let cases = [
        ("{{{{1}},{{1}},{{1}}}}", Format::Mathematica),
        ("{\"n\":[1,1,1]}", Format::PerminovJson),
        ("1 1 1 1\n1\n1\n1\n", Format::PerminovTxt),
        ("(a11)*(b11)*(c11)", Format::Letter),
        ("x\nBEGIN-RANK1-1X1X1-ZLIB-BASE32\n", Format::Seed),
        ("A:=Matrix(1, 1, [[A_1_1]]):\nTensor:=TriadSet([]):", Format::Maple),
    ];
    for (text, want) in cases {
        assert_eq!(formats::detect(text), Ok(want), "{text}");
    }
    assert!(formats::detect("hello world").is_err());
}

#[test]
fn bad_content_gives_errors_with_lines() {
    let cases: &[(&[u8], Option<usize>, &str)] = &[
        (b"", None, "empty"),
        (b"\xff\xfe(a11)", Some(1), "UTF-8"),
        (b"(a11)*(b11)\n(a11)*(b11)*(c11)", Some(1), "one factor each"),
        (b"(a11)*(b11)*(c11)\n(a1)*(b11)*(c11)", Some(2), "two indices"),
        (b"(a11)*(b11)*(c11)\n(a1_17)*(b11)*(c11)", Some(2), "two indices"),
        (b"(a11)*(b11)*(c11)\n(a10)*(b11)*(c11)", Some(2), "two indices"),
        (b"(a11)*(b11)*(c11)\n(a11+b11)*(b11)*(c11)", Some(2), "one matrix"),
        (b"{{{{1}},{{1}},{{1}}}", Some(1), "truncated"),
        (b"2 2 2 7\n1 0\n", Some(2), "needs 28"),
        (b"17 2 2 1\n", Some(1), "not supported"),
        (b"2 2 2 1000000000000\n", Some(1), "larger than the supported"),
        (
            b"{\"n\":[1,1,1],\"m\":2,\"u\":[[1]],\"v\":[[1]],\"w\":[[1]]}",
            None,
            "rank 2",
        ),
        (
            b"{\"n\":[1,1,1],\"m\":1,\"u\":[[1,0]],\"v\":[[1]],\"w\":[[1]]}",
            None,
            "needs 1",
        ),
        (b"{\"n\":[1,1,1],\"m\":1,\"u\":[[1]],\n\"v\":[[1", Some(2), "truncated"),
        (b"BEGIN-RANK1-1X1X1-ZLIB-BASE32\nAAAA\n", None, "END"),
        (b"BEGIN-RANK1-1X17X1-ZLIB-BASE32\n", Some(1), "not supported"),
        (
            b"BEGIN-RANK1-1X1X1-ZLIB-BASE32\n!!!!\nEND-RANK1-1X1X1-ZLIB-BASE32\n",
            Some(2),
            "Base32",
        ),
        (b"BEGIN-RANK-1X1X1-ZLIB-BASE32\n", Some(1), "malformed"),
    ];
    for &(bytes, line, needle) in cases {
        let e = formats::read(bytes).expect_err(needle);
        assert_eq!(e.line, line, "{e}");
        assert!(e.to_string().contains(needle), "'{e}' should mention '{needle}'");
    }
}

#[test]
fn a_seed_block_with_the_wrong_rank_is_rejected() {
    let text = std::fs::read_to_string(data("7x7x7-r245-seed.b32")).unwrap();
    let wrong = text.replace("RANK245", "RANK244");
    let e = formats::read(wrong.as_bytes()).unwrap_err();
    assert!(e.to_string().contains("needs"), "{e}");
}

/// Inputs the fuzzers found (tests/data/fuzz): what the `read` fuzz target does, without a panic.
#[test]
fn fuzzer_findings_no_longer_panic() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fuzz");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        if let Ok(file) = formats::read(&bytes) {
            let _ = file.scheme.mod2::<u128>().map(|s| verify(&s));
            let _ = verify_z(&file.scheme);
            for format in Format::ALL.into_iter().filter(|f| f.writable()) {
                let _ = formats::write(&file.scheme, format, Ring::Z);
            }
        }
        count += 1;
    }
    assert!(count >= 1);
}

#[test]
fn extreme_coefficients_are_written_without_overflow() {
    let mut s = formats::read(b"(a11)*(b11)*(c11)").unwrap().scheme;
    s.terms[0].factors[0][0] = i64::MIN;
    let text = formats::write(&s, Format::Letter, Ring::Z).unwrap();
    assert!(text.contains("-9223372036854775808*a11"), "{text}");
}

#[test]
fn a_byte_order_mark_is_skipped_in_every_format() {
    let laderman = formats::read_path(&data("3x3x3-r23-laderman.m"))
        .unwrap()
        .f2::<u64>()
        .unwrap();
    let f2 = flipgraph_core::IntScheme::from_f2(&laderman);
    for format in Format::ALL.into_iter().filter(|f| f.writable()) {
        let text = formats::write(&f2, format, Ring::F2).unwrap();
        let back = formats::read(format!("\u{feff}{text}").as_bytes()).unwrap();
        assert_eq!(back.format, format);
        assert_eq!(back.f2::<u64>().unwrap(), laderman, "{format}");
    }
}

/// A coefficient is read exactly or refused, never clamped (a hostile audit's cases: clamped
/// sums made invalid schemes pass over F2 and over Z).
#[test]
fn huge_coefficients_are_refused_not_clamped() {
    let cases: [&[u8]; 3] = [
        b"(9223372036854775807*a11+9223372036854775807*a11)*(b11)*(c11)",
        b"(-9223372036854775807*a11 - a11)*(b11)*(c11)",
        b"{\"n\":[1,1,1],\"m\":3,\"z2\":false,\"u\":[[4611686018427387905],[-4611686018427387904],[1]],\"v\":[[5],[2],[1]],\"w\":[[1],[1],[2]]}",
    ];
    for bytes in cases {
        let e = formats::read(bytes).unwrap_err().to_string();
        assert!(e.contains("too large") || e.contains("beyond the supported"), "{e}");
    }
    // Built in memory past the readers' bound, the sum overflows: reported wrong, not valid.
    let mut s = formats::read(b"(a11)*(b11)*(c11)\n(a11)*(b11)*(c11)\n(a11)*(b11)*(c11)")
        .unwrap()
        .scheme;
    let [x, y, z] = [4611686018427387905, -4611686018427387904, 1];
    s.terms[0].factors = [vec![x], vec![5], vec![1]];
    s.terms[1].factors = [vec![y], vec![2], vec![1]];
    s.terms[2].factors = [vec![z], vec![1], vec![2]];
    assert!(verify_z(&s).is_err(), "the true sum is 13835058055282163719, not 1");
}

/// The sign lift alone (a ternary search's): the symmetric schemes of the project's own walks
/// lift on their support to schemes valid over Z that reduce to them mod 2, and 4x4x4 rank 47,
/// which has no lift to Z, is said to have no signs rather than lifted wrongly.
#[test]
fn symmetric_schemes_lift_by_signs_and_rank_47_does_not() {
    use flipgraph_core::lift::{lift_signs, LiftError};
    for name in ["5x5x5-r93-c3-flipgraph.json", "6x6x6-r153-c6-flipgraph.json"] {
        let f2 = formats::read_path(&data(name)).unwrap().f2::<u64>().unwrap();
        let z = lift_signs(&f2, 200).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(verify_z(&z), Ok(()), "{name}");
        assert_eq!(z.mod2::<u64>(), Ok(f2), "{name}");
        let ternary = z.terms.iter().flat_map(|t| t.factors.iter().flatten());
        assert!(ternary.copied().all(|c| (-1..=1).contains(&c)), "{name}");
    }
    let f2 = formats::read_path(&data("4x4x4-r47-flipgraph.json"))
        .unwrap()
        .f2::<u64>()
        .unwrap();
    assert_eq!(lift_signs(&f2, 50), Err(LiftError::NoSigns { tries: 50 }));
    let mut terms = f2.into_terms();
    terms.pop();
    let broken = Scheme::new(Shape::square(4).unwrap(), terms).unwrap();
    assert_eq!(lift_signs(&broken, 50), Err(LiftError::Invalid));
}
