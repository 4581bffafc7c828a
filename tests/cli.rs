//! End-to-end tests of the `flipgraph` binary: verify, convert, info and bad input.

use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;

use common::{assert_results_verify, bin, data, flipgraph, interrupt, json_lines, json_of, search_on_one_thread, text};

/// Writes `bytes` to a temp file named `name` and runs `flipgraph verify` on it.
fn verify_bytes(name: &str, bytes: &[u8]) -> (Output, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = flipgraph(&["verify", path.to_str().unwrap()]);
    let path_str = path.display().to_string();
    (out, path_str)
}

/// Bad input: a non-zero exit (never a panic, exit 101), a message naming the file, and
/// `needle` in it.
fn assert_rejected(name: &str, bytes: &[u8], needle: &str) {
    let (out, path) = verify_bytes(name, bytes);
    let msg = text(&out);
    assert_eq!(out.status.code(), Some(1), "{name}: {msg}");
    assert!(msg.contains(&path), "{name}: message should name the file: {msg}");
    assert!(msg.contains(needle), "{name}: message should mention '{needle}': {msg}");
    assert!(!msg.contains("panicked"), "{name}: {msg}");
}

#[test]
fn verify_accepts_bundled_schemes_with_shape_rank_and_ring() {
    let cases = [
        ("2x2x2-r7-strassen.m", "mathematica, 2x2x2, rank 7: valid over Z"),
        ("3x3x3-r23-laderman.m", "mathematica, 3x3x3, rank 23: valid over Z"),
        ("3x3x8-r55-perminov.json", "json, 3x3x8, rank 55: valid over F2"),
        (
            "7x7x7-r250-perminov-ternary.json",
            "json, 7x7x7, rank 250: valid over Z",
        ),
        ("7x7x7-r245-seed.b32", "seed, 7x7x7, rank 245: valid over F2"),
    ];
    for (name, want) in cases {
        let out = flipgraph(&["verify", data(name).to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", text(&out));
        assert!(text(&out).contains(want), "{name}: {}", text(&out));
    }
}

#[test]
fn verify_ring_z_rejects_f2_only_schemes() {
    let out = flipgraph(&["verify", "--ring", "z", data("7x7x7-r245-seed.b32").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("INVALID over Z (valid over F2)"), "{}", text(&out));
    let out = flipgraph(&["verify", "--ring", "z", data("3x3x3-r23-laderman.m").to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn one_bad_file_among_good_ones_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.exp");
    std::fs::write(&bad, "(a11)*(b11)*(c11)\n(a21)*(b11)*(c11)\n").unwrap();
    let out = flipgraph(&[
        "verify",
        data("2x2x2-r7-strassen.m").to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("valid over Z"));
    // Every file's verdict is on standard output, in order (a pipe keeps the failures); the
    // count of failures on standard error.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].contains("valid over Z") && lines[1].contains("bad.exp") && lines[1].contains("INVALID"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 files are not valid schemes"));
}

fn laderman_txt() -> String {
    let out = flipgraph(&[
        "convert",
        data("3x3x3-r23-laderman.m").to_str().unwrap(),
        "--to",
        "txt",
        "--mod2",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_flipped_bit_is_diagnosed() {
    let txt = laderman_txt();
    let mut lines: Vec<String> = txt.lines().map(String::from).collect();
    let first = lines[1].chars().next().unwrap();
    lines[1].replace_range(0..1, if first == '0' { "1" } else { "0" });
    assert_rejected("flipped.txt", lines.join("\n").as_bytes(), "INVALID over F2: ");
}

#[test]
fn a_missing_term_is_diagnosed() {
    let letter = flipgraph(&[
        "convert",
        data("2x2x2-r7-strassen.m").to_str().unwrap(),
        "--to",
        "letter",
    ]);
    let body = String::from_utf8(letter.stdout).unwrap();
    let without_last: Vec<&str> = body.lines().take(6).collect();
    assert_rejected(
        "missing.exp",
        without_last.join("\n").as_bytes(),
        "tensor entries missing",
    );
}

#[test]
fn a_truncated_file_is_rejected() {
    let json = std::fs::read(data("3x3x8-r55-perminov.json")).unwrap();
    assert_rejected("cut.json", &json[..json.len() / 2], "truncated");
    let m = std::fs::read(data("3x3x3-r23-laderman.m")).unwrap();
    assert_rejected("cut.m", &m[..m.len() - 10], "truncated");
    let seed = std::fs::read_to_string(data("7x7x7-r245-seed.b32")).unwrap();
    let cut: String = seed.lines().take(10).collect::<Vec<_>>().join("\n");
    assert_rejected("cut.b32", cut.as_bytes(), "END");
}

#[test]
fn wrong_or_missing_headers_are_rejected() {
    let seed = std::fs::read_to_string(data("7x7x7-r245-seed.b32")).unwrap();
    assert_rejected(
        "header.b32",
        seed.replace("BEGIN-RANK245-7X7X7", "BEGIN-RANK245-7Y7X7").as_bytes(),
        "malformed seed header",
    );
    let txt = laderman_txt();
    let headless: Vec<&str> = txt.lines().skip(1).collect();
    assert_rejected("headless.txt", headless.join("\n").as_bytes(), ":1:");
    assert_rejected(
        "shortheader.txt",
        txt.replacen("3 3 3 23", "3 3 23", 1).as_bytes(),
        "four numbers",
    );
    // A header number past 2^64 is a txt header with a number too large, not a letter-format
    // coefficient.
    assert_rejected(
        "hugeheader.txt",
        txt.replacen("3 3 3 23", "3 3 3 18446744073709551616", 1).as_bytes(),
        "hugeheader.txt:1: 18446744073709551616 in the header is larger than any supported",
    );
}

#[test]
fn garbage_empty_and_non_utf8_are_rejected() {
    assert_rejected("garbage.bin", b"#!%&/garbage\x01\x02", "unrecognised");
    assert_rejected("empty.exp", b"", "empty");
    assert_rejected("latin1.exp", b"(a11)*(b11)*(c11)\n(a\xe911)", ":2: not UTF-8");
}

#[test]
fn a_shape_over_16_is_rejected() {
    assert_rejected("big.txt", b"17 2 2 1\n0\n0\n0\n", "between 1 and 16");
    assert_rejected("big.txt", b"12 12 12 1\n0\n0\n0\n", "at most 128 entries");
    assert_rejected("big.exp", b"(a1_17)*(b11)*(c11)\n", "two indices from 1 to 16");
}

/// Formats beyond 8x8x8 (factors of up to 128 bits): products and sums are written and
/// verified, `known` has their best ranks, a search walks them on the CPU (and resumes), and
/// symmetric walks refuse them with the reason; bench measures them; one past 8 whose
/// matrices fit 64 bits is searched to a target.
#[test]
fn wide_formats_are_built_verified_and_searched() {
    let dir = tempfile::tempdir().unwrap();
    let nine = dir.path().join("9x9x9.exp");
    let laderman = data("3x3x3-r23-laderman.m");
    let out = flipgraph(&[
        "product",
        laderman.to_str().unwrap(),
        laderman.to_str().unwrap(),
        "--to",
        "letter",
        "-o",
        nine.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = flipgraph(&["verify", nine.to_str().unwrap()]);
    assert!(text(&out).contains("9x9x9, rank 529: valid over Z"), "{}", text(&out));
    assert!(std::fs::read_to_string(&nine).unwrap().contains("a99"));
    let info = text(&flipgraph(&["info", nine.to_str().unwrap()]));
    assert!(
        info.contains("weight a:  ") && info.contains("flip pairs (F2): "),
        "{info}"
    );
    assert!(
        info.contains("symmetries: not read") && info.contains("81 bits"),
        "{info}"
    );
    // Past 9 the letter format separates the indices (c14_7); what is written reads back.
    let fourteen = dir.path().join("7x7x14.exp");
    let seven = data("7x7x7-r245-seed.b32");
    let (seven, written) = (seven.to_str().unwrap(), fourteen.to_str().unwrap());
    let out = flipgraph(&["sum", seven, seven, "--dim", "p", "--to", "letter", "-o", written]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(std::fs::read_to_string(&fourteen).unwrap().contains("c14_"));
    let out = flipgraph(&["verify", written]);
    assert!(text(&out).contains("7x7x14, rank 490: valid over F2"), "{}", text(&out));
    let out = flipgraph(&["known", "12x4x5"]);
    assert!(
        out.status.success() && text(&out).contains("4x5x12") && text(&out).contains(" 174"),
        "{}",
        text(&out)
    );
    let out = flipgraph(&["known", "--wide"]);
    let formats = text(&out)
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|f| f.parse::<flipgraph_core::Shape>().is_ok())
        })
        .count();
    assert_eq!(formats, 309, "{}", text(&out));
    assert!(text(&out).contains("8x8x16     658  construction"), "{}", text(&out));

    // 9x9x9 is searched on the CPU with 128-bit factors, from the product, and resumed.
    let searched = dir.path().join("9x9x9");
    let (from, out_dir) = (nine.to_str().unwrap(), searched.to_str().unwrap());
    let out = flipgraph(&[
        "search",
        "--from",
        from,
        "--backend",
        "cpu",
        "--time",
        "2",
        "--quiet",
        "--out",
        out_dir,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(searched.join("9x9x9-r529.json").exists());
    assert_results_verify(&searched);
    let checkpoint: serde_json::Value =
        serde_json::from_slice(&std::fs::read(searched.join("checkpoint.json")).unwrap()).unwrap();
    let widest = checkpoint["pool"][0]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t.as_array().unwrap());
    assert!(
        widest.filter_map(|f| f.as_f64()).any(|f| f > u64::MAX as f64),
        "no factor past 64 bits in the checkpoint"
    );
    let out = flipgraph(&["search", "--resume", out_dir, "--time", "1", "--json"]);
    let end = json_lines(&out)
        .into_iter()
        .find(|e| e["event"] == "end")
        .expect("an end event");
    assert!(
        out.status.success() && end["best_rank"].as_u64() <= Some(529),
        "{}",
        text(&out)
    );
    // What does not walk 128-bit factors says so.
    let out = flipgraph(&["search", "--size", "9", "--symmetry", "c3", "--backend", "cpu"]);
    assert!(
        !out.status.success() && text(&out).contains("fit 64 bits"),
        "{}",
        text(&out)
    );
    // bench walks them too, and walks 8x8x8 at 128 bits when asked, every walker audited.
    let out = flipgraph(&["bench", "--sizes", "9", "--backend", "cpu", "--seconds", "1", "--json"]);
    let rows = json_of(&out);
    assert_eq!(
        (rows[0]["factor_bits"].as_u64(), rows[0]["walkers_invalid"].as_u64()),
        (Some(128), Some(0))
    );
    let out = flipgraph(&[
        "bench",
        "--sizes",
        "3",
        "--factor-bits",
        "128",
        "--backend",
        "cpu",
        "--seconds",
        "1",
        "--json",
    ]);
    assert_eq!(json_of(&out)[0]["factor_bits"].as_u64(), Some(128));

    let results = dir.path().join("2x3x10");
    let out = flipgraph(&[
        "search",
        "--size",
        "2x3x10",
        "--backend",
        "cpu",
        "--threads",
        "2",
        "--target-rank",
        "58",
        "--time",
        "60",
        "--quiet",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_results_verify(&results);
    assert!(results.join("2x3x10-r58.json").exists(), "no rank 58 in 60 s");
}

#[test]
fn json_vectors_of_the_wrong_length_are_rejected() {
    let json = std::fs::read_to_string(data("3x3x8-r55-perminov.json")).unwrap();
    let bad = json.replacen("\"u\": [\n        [", "\"u\": [\n        [0, ", 1);
    assert_ne!(bad, json, "fixture layout changed");
    assert_rejected("len.json", bad.as_bytes(), "\"u\"[0] has 10 values");
}

#[test]
fn a_rank_that_disagrees_with_the_terms_is_rejected() {
    let json = std::fs::read_to_string(data("3x3x8-r55-perminov.json")).unwrap();
    assert_rejected(
        "rank.json",
        json.replacen("\"m\": 55", "\"m\": 54", 1).as_bytes(),
        "rank 54",
    );
    let txt = laderman_txt();
    assert_rejected(
        "rank.txt",
        txt.replacen("3 3 3 23", "3 3 3 22", 1).as_bytes(),
        ":2: the U line",
    );
    let seed = std::fs::read_to_string(data("7x7x7-r245-seed.b32")).unwrap();
    assert_rejected("rank.b32", seed.replace("RANK245", "RANK246").as_bytes(), "needs");
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let out = flipgraph(&["verify", "/nonexistent/scheme.exp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("/nonexistent/scheme.exp"));
}

#[test]
fn convert_round_trips_through_every_writer() {
    let dir = tempfile::tempdir().unwrap();
    for to in ["letter", "json", "txt", "seed"] {
        let out_path = dir.path().join(format!("s.{to}"));
        let src = data("7x7x7-r245-seed.b32");
        let out = flipgraph(&[
            "convert",
            src.to_str().unwrap(),
            "--to",
            to,
            "-o",
            out_path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{to}: {}", text(&out));
        let check = flipgraph(&["verify", out_path.to_str().unwrap()]);
        assert!(
            text(&check).contains("rank 245: valid over F2"),
            "{to}: {}",
            text(&check)
        );
    }
    let out = flipgraph(&[
        "convert",
        data("2x2x2-r7-strassen.m").to_str().unwrap(),
        "--to",
        "mathematica",
    ]);
    assert_eq!(out.status.code(), Some(2), "mathematica is read-only: {}", text(&out));
}

#[test]
fn convert_refuses_invalid_schemes() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.exp");
    std::fs::write(&bad, "(a11)*(b11)*(c11)\n(a21)*(b11)*(c11)\n").unwrap();
    let out = flipgraph(&["convert", bad.to_str().unwrap(), "--to", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not a valid scheme"), "{}", text(&out));
}

#[test]
fn info_reports_shape_rank_weights_and_additions() {
    let out = flipgraph(&["info", data("2x2x2-r7-strassen.m").to_str().unwrap()]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for want in [
        "shape:     2x2x2",
        "rank:      7",
        "valid over: Z",
        "weight a:  12",
        "naive additions (F2): 18",
        // Strassen's forms share no pair.
        "additions (Z): 18 (flipgraph additions)",
        "flip pairs (F2): 0 (a sink",
    ] {
        assert!(t.contains(want), "missing '{want}' in:\n{t}");
    }
}

#[test]
fn info_names_the_groups_a_scheme_is_invariant_under() {
    // The naive 2x3x4 in Perminov's text format: invariant under the reversal alone (the
    // rotation needs a square shape), in 12 free orbits of two terms.
    let (n, m, p) = (2, 3, 4);
    let unit = |len: usize, bit: usize| {
        (0..len)
            .map(|b| if b == bit { "1" } else { "0" })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let entries: Vec<(usize, usize, usize)> = (0..n)
        .flat_map(|i| (0..m).flat_map(move |j| (0..p).map(move |k| (i, j, k))))
        .collect();
    let line = |f: &dyn Fn(&(usize, usize, usize)) -> String| entries.iter().map(f).collect::<Vec<_>>().join(" ");
    let text_file = format!(
        "{n} {m} {p} {}\n{}\n{}\n{}\n",
        n * m * p,
        line(&|&(i, j, _)| unit(n * m, i * m + j)),
        line(&|&(_, j, k)| unit(m * p, j * p + k)),
        line(&|&(i, _, k)| unit(p * n, k * n + i)),
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("2x3x4-naive.txt");
    std::fs::write(&file, text_file).unwrap();
    let out = flipgraph(&["info", file.to_str().unwrap()]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("invariant under: z2 (12 free orbits, 0 other terms)"), "{t}");
    // Strassen's scheme as written has the whole order-6 group: one free orbit of six terms
    // and the cube (a11 + a22)(b11 + b22)(c11 + c22).
    let strassen = text(&flipgraph(&["info", data("2x2x2-r7-strassen.m").to_str().unwrap()]));
    assert!(
        strassen.contains(
            "invariant under: c3 (2 free orbits, 1 other terms), z2 (3 free orbits, 1 other terms), c6 (1 free orbits, 1 other terms)"
        ),
        "{strassen}"
    );
}

#[test]
fn our_6x6x6_rank_153_verifies_and_has_the_order_6_group() {
    let file = data("6x6x6-r153-c6-flipgraph.json");
    let verified = flipgraph(&["verify", file.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", text(&verified));
    let info = text(&flipgraph(&["info", file.to_str().unwrap()]));
    assert!(info.contains("rank:      153"), "{info}");
    assert!(info.contains("c6 (25 free orbits, 3 other terms)"), "{info}");
}

/// Runs a command that writes a scheme to a temp file, then verifies the file; returns the
/// verify line.
fn make_and_verify(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.json");
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", out_path.to_str().unwrap()]);
    let out = flipgraph(&full);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    let check = flipgraph(&["verify", out_path.to_str().unwrap()]);
    assert!(check.status.success(), "{args:?}: {}", text(&check));
    text(&check)
}

#[test]
fn product_of_strassen_and_the_rank_47_scheme_is_8x8x8_rank_329() {
    let r47 = data("4x4x4-r47-flipgraph.json");
    let strassen = data("2x2x2-r7-strassen.m");
    let line = make_and_verify(&["product", strassen.to_str().unwrap(), r47.to_str().unwrap()]);
    assert!(line.contains("8x8x8, rank 329: valid over F2"), "{line}");
}

/// The serendipitous product: the naive 2x2x3's terms sharing an A factor (three each) are
/// multiplied in pairs by Strassen's 2x2x2 instead of two naive 2x2x1's (7 terms, not 8), so
/// `construct` builds 4x4x3 below the plain product's 48, verified; `known --constructions`
/// lists it.
#[test]
fn construct_builds_a_serendipitous_product_from_a_base_with_buds() {
    use flipgraph_core::formats::{write, Format, Ring};
    use flipgraph_core::{IntScheme, Scheme, Shape};
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    for (n, m, p) in [(2, 2, 3), (2, 2, 1)] {
        let shape = Shape::new(n, m, p).unwrap();
        let naive = IntScheme::from_f2(&Scheme::naive(shape));
        let text = write(&naive, Format::PerminovJson, Ring::F2).unwrap();
        std::fs::write(results.join(format!("{shape}-r{}.json", naive.rank())), text).unwrap();
    }
    std::fs::copy(data("2x2x2-r7-strassen.m"), results.join("2x2x2-r7.m")).unwrap();
    let built = dir.path().join("4x4x3.json");
    let out = flipgraph(&[
        "construct",
        "4x4x3",
        "--results",
        results.to_str().unwrap(),
        "-o",
        built.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("serendipitous product of 2x2x3 and 2x2x1"),
        "{}",
        text(&out)
    );
    let check = flipgraph(&["verify", built.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check));
    let rank: usize = text(&check)
        .split("rank ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(rank < 48, "{}", text(&check));
    let listed = flipgraph(&[
        "known",
        "4x4x3",
        "--constructions",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert!(
        text(&listed).contains(&format!("{rank}  serendipitous product of 2x2x3 (12)")),
        "{}",
        text(&listed)
    );
}

#[test]
fn the_sum_of_two_laderman_schemes_is_3x3x6_rank_46_and_splits_back() {
    // The data of tests/data, so that the test needs nothing beside the checkout.
    let laderman = data("3x3x3-r23-laderman.m");
    let laderman = laderman.to_str().unwrap();
    let line = make_and_verify(&["sum", laderman, laderman, "--dim", "p"]);
    assert!(line.contains("3x3x6, rank 46: valid over Z"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    let summed = dir.path().join("3x3x6.json");
    let (first, second) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let out = flipgraph(&["sum", laderman, laderman, "--dim", "p", "-o", summed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let out = flipgraph(&[
        "split",
        summed.to_str().unwrap(),
        "--dim",
        "p",
        "--at",
        "3",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    for part in [&first, &second] {
        let check = text(&flipgraph(&["verify", part.to_str().unwrap()]));
        assert!(check.contains("3x3x3, rank 23: valid over Z"), "{check}");
    }
    // Shapes that do not fit, and a split that leaves a part empty, are refused with the reason.
    let strassen = data("2x2x2-r7-strassen.m");
    let out = flipgraph(&["sum", laderman, strassen.to_str().unwrap(), "--dim", "n"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("3x3x3 and 2x2x2 differ outside dimension n"),
        "{}",
        text(&out)
    );
    let out = flipgraph(&["split", laderman, "--dim", "m", "--at", "3", "x.json", "y.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("--at 3 leaves a part empty"), "{}", text(&out));
    let out = flipgraph(&["split", laderman, "--dim", "m", "--at", "1", "x.json", "x.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("the second part would overwrite the first"),
        "{}",
        text(&out)
    );
    // Nor may a part overwrite the input, by its own name or another.
    let input = summed.to_str().unwrap();
    let other_name = dir.path().join(".").join("3x3x6.json");
    for out_name in [input, other_name.to_str().unwrap()] {
        let out = flipgraph(&["split", input, "--dim", "p", "--at", "3", out_name, "c.json"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(text(&out).contains("is the input"), "{}", text(&out));
    }
    let check = text(&flipgraph(&["verify", input]));
    assert!(check.contains("3x3x6, rank 46"), "{check}");
}

#[test]
fn known_of_one_format_says_its_order_in_the_table_and_the_whole_source() {
    let t = text(&flipgraph(&["known", "6x4x4"]));
    assert!(t.contains("6x4x4: the table lists it as 4x4x6"), "{t}");
    let row = t.lines().find(|l| l.starts_with("4x4x6")).unwrap_or_default();
    assert!(row.len() > 100, "{t}");
    assert!(!row.ends_with("..."), "{t}");
}

#[test]
fn known_lists_the_constructions_of_a_format_from_the_table_or_from_results() {
    let out = flipgraph(&["known", "4x4x8", "--constructions"]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("constructions of 4x4x8 (best known 94) from the best known ranks"),
        "{t}"
    );
    let first = t.lines().nth(1).unwrap_or_default();
    assert_eq!(first.trim(), "94  sum along p: 4x4x4 (47) + 4x4x4 (47)", "{t}");
    // From results: Strassen alone makes 4x4x4 by its square, 49.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(data("2x2x2-r7-strassen.m"), dir.path().join("2x2x2-r7.m")).unwrap();
    let out = flipgraph(&[
        "known",
        "4",
        "--constructions",
        "--results",
        dir.path().to_str().unwrap(),
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("from the schemes in --results: 1"), "{t}");
    assert!(t.contains("49  product 2x2x2 (7) x 2x2x2 (7)"), "{t}");
}

#[test]
fn construct_builds_a_format_from_the_best_results_at_hand() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::copy(data("2x2x2-r7-strassen.m"), results.join("2x2x2-r7.m")).unwrap();
    std::fs::copy(data("3x3x3-r23-laderman.m"), results.join("3x3x3-r23.m")).unwrap();
    let results = results.to_str().unwrap();
    // Strassen x Laderman; and 2x2x2 grown by a slice, in whichever orientation is asked.
    for (shape, want) in [
        ("6", "6x6x6, rank 161: valid over Z"),
        ("3x2x2", "3x2x2, rank 11: valid over Z"),
    ] {
        let line = make_and_verify(&["construct", shape, "--results", results]);
        assert!(line.contains(want), "{shape}: {line}");
    }
    let out = flipgraph(&["construct", "7", "--results", results]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("no construction of 7x7x7"), "{}", text(&out));
}

/// `project --best` drops a hyperplane of the dimension, not only an index: Perminov's 3x3x8
/// of rank 55 projects to a valid 3x3x7 with fewer terms than by any of its 8 indices.
#[test]
fn project_best_removes_more_terms_than_any_index() {
    let s338 = data("3x3x8-r55-perminov.json");
    let s3 = s338.to_str().unwrap();
    let rank = |line: String| -> usize {
        let after = line.split("rank ").nth(1).unwrap_or_else(|| panic!("no rank: {line}"));
        after.split(':').next().unwrap().parse().unwrap()
    };
    let by_index = (1..=8)
        .map(|i| {
            rank(make_and_verify(&[
                "project",
                s3,
                "--dim",
                "p",
                "--index",
                &i.to_string(),
            ]))
        })
        .min()
        .unwrap();
    let best = make_and_verify(&["project", s3, "--dim", "p", "--best"]);
    assert!(best.contains("3x3x7"), "{best}");
    assert!(rank(best) < by_index, "by index {by_index}");
    let out = flipgraph(&["project", s3, "--dim", "p", "--best", "--index", "1"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--best and --index together: {}",
        text(&out)
    );
}

#[test]
fn products_symmetries_extend_and_project_give_valid_schemes() {
    let strassen = data("2x2x2-r7-strassen.m");
    let laderman = data("3x3x3-r23-laderman.m");
    let s338 = data("3x3x8-r55-perminov.json");
    let (st, la, s3) = (
        strassen.to_str().unwrap(),
        laderman.to_str().unwrap(),
        s338.to_str().unwrap(),
    );
    let cases: [(&[&str], &str); 7] = [
        (&["product", st, st], "4x4x4, rank 49: valid over Z"),
        (&["rotate", s3], "3x8x3, rank 55: valid over F2"),
        (&["transpose", s3], "8x3x3, rank 55: valid over F2"),
        (&["extend", la, "--dim", "n"], "4x3x3, rank 32: valid over Z"),
        (&["extend", s3, "--dim", "m"], "3x4x8, rank 79: valid over F2"),
        (&["project", la, "--dim", "m", "--index", "2"], "3x2x3, rank"),
        (&["project", s3, "--dim", "p"], "3x3x7, rank"),
    ];
    for (args, want) in cases {
        let line = make_and_verify(args);
        assert!(line.contains(want), "{args:?}: {line}");
    }
    let out = flipgraph(&["product", la, s3]);
    assert_eq!(out.status.code(), Some(1), "9x9x24 does not fit");
    assert!(text(&out).contains("too large"), "{}", text(&out));
}

/// Generates code for `scheme`, compiles it with a harness that compares it with naive
/// multiplication on random matrices, and runs it.
/// Returns the additions of the code and those of the scheme written term by term (which are
/// no fewer), as codegen reports them; and checks that the code does as many additions as it
/// says, counting its operators. `shape` is the scheme's (read from it when not given: a
/// program file is no scheme).
fn check_generated_code(scheme: &Path, f2: bool, more: &[&str]) -> (usize, usize) {
    check_generated_code_of(scheme, None, f2, more)
}

/// [`check_generated_code`] for a scheme or program of `shape`.
fn check_generated_code_of(scheme: &Path, shape: Option<[usize; 3]>, f2: bool, more: &[&str]) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("scheme.rs");
    let mut args = vec!["codegen", scheme.to_str().unwrap(), "-o", code.to_str().unwrap()];
    if f2 {
        args.push("--f2");
    }
    args.extend_from_slice(more);
    let out = flipgraph(&args);
    assert!(out.status.success(), "{}", text(&out));
    // "23 multiplications, 70 additions (generic ring; 98 written term by term)"
    let report = String::from_utf8_lossy(&out.stderr).to_string();
    let number_before = |word: &str| -> usize {
        let at = report.find(word).unwrap_or_else(|| panic!("no '{word}' in {report}"));
        report[..at]
            .split([' ', '(', ';'])
            .rfind(|w| !w.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    let term_by_term = match report.contains("written term by term") {
        true => number_before(" written term by term"),
        false => usize::MAX,
    };
    let counts = (number_before(" additions"), term_by_term);
    assert!(counts.0 <= counts.1, "{report}");
    let source = std::fs::read_to_string(&code).unwrap();
    assert_eq!(operators(&source), counts.0, "the code's own count: {report}");
    let [n, m, p] = shape.unwrap_or_else(|| flipgraph_core::formats::read_path(scheme).unwrap().scheme.shape.dims());
    let check = if f2 {
        "let c = scheme::mul(&a, &b);
        for i in 0..N { for k in 0..P {
            let mut want = 0u64;
            for j in 0..M { want ^= a[i][j] & b[j][k]; }
            assert_eq!(c[i][k], want, \"entry {i},{k}\");
        } }"
    } else {
        "let (a, b) = (a.map(|r| r.map(|x| (x % 7) as i64 - 3)), b.map(|r| r.map(|x| (x % 7) as i64 - 3)));
        let c = scheme::mul(&a, &b);
        for i in 0..N { for k in 0..P {
            let want: i64 = (0..M).map(|j| a[i][j] * b[j][k]).sum();
            assert_eq!(c[i][k], want, \"entry {i},{k}\");
        } }"
    };
    let harness = format!(
        "#[deny(warnings)] mod scheme {{ include!(\"scheme.rs\"); }}
        const N: usize = {n}; const M: usize = {m}; const P: usize = {p};
        fn main() {{
            let mut s = 0x9e3779b97f4a7c15u64;
            let mut next = || {{ s ^= s << 13; s ^= s >> 7; s ^= s << 17; s }};
            for _ in 0..200 {{
                let a: [[u64; M]; N] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
                let b: [[u64; P]; M] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
                {check}
            }}
            println!(\"generated code agrees\");
        }}"
    );
    std::fs::write(dir.path().join("main.rs"), harness).unwrap();
    let exe = dir.path().join("main");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let built = Command::new(rustc)
        .args(["--edition", "2021", "-O", "-o"])
        .arg(&exe)
        .arg(dir.path().join("main.rs"))
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}: the generated code does not compile: {}",
        scheme.display(),
        text(&built)
    );
    let ran = Command::new(&exe).output().unwrap();
    assert!(ran.status.success(), "{}: {}", scheme.display(), text(&ran));
    counts
}

/// The additions, subtractions, XORs and unary minuses of generated code's body.
fn operators(code: &str) -> usize {
    let body = code
        .lines()
        .filter(|l| l.starts_with("    let ") || l.starts_with("    c["));
    body.map(|l| {
        let l = l.split_once(" = ").map_or(l, |(_, e)| e);
        [" + ", " - ", " ^ ", "-("]
            .iter()
            .map(|op| l.matches(op).count())
            .sum::<usize>()
    })
    .sum()
}

/// `flipgraph additions` ends with its count; its program (-o) is what codegen turns into code
/// with that very count, which multiplies correctly; and info says the same count.
#[test]
fn additions_writes_a_program_that_codegen_and_info_agree_with() {
    let dir = tempfile::tempdir().unwrap();
    for (name, f2, want) in [
        ("2x2x2-r7-perminov-additions15.json", false, Some(15)),
        ("4x4x4-r49-perminov-additions159.json", false, Some(159)),
        ("3x3x3-r23-laderman.m", true, None),
        ("4x4x4-r47-flipgraph.json", true, None),
    ] {
        let scheme = data(name);
        let program = dir.path().join(format!("{name}.program.json"));
        let mut args = vec!["additions", scheme.to_str().unwrap(), "-o", program.to_str().unwrap()];
        if f2 {
            args.push("--f2");
        }
        let out = flipgraph(&args);
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        let last = String::from_utf8_lossy(&out.stdout).lines().last().unwrap().to_owned();
        let count: usize = last.strip_prefix("additions: ").expect(&t).parse().unwrap();
        if let Some(want) = want {
            assert_eq!(count, want, "{name}");
        }
        let dims = flipgraph_core::formats::read_path(&scheme).unwrap().scheme.shape.dims();
        let (from_program, _) = check_generated_code_of(&program, Some(dims), f2, &[]);
        assert_eq!(from_program, count, "{name}");
        let (from_scheme, _) = check_generated_code(&scheme, f2, &[]);
        assert_eq!(from_scheme, count, "{name}");
        if !f2 || name.contains("r47") {
            let info = text(&flipgraph(&["info", scheme.to_str().unwrap()]));
            assert!(info.contains(&format!("): {count} (flipgraph additions)")), "{info}");
        }
    }
}

/// The walk from Strassen's scheme writes a valid integer scheme of rank 7 that needs no more
/// additions; a program file that does not multiply is refused naming the file.
#[test]
fn the_walk_writes_a_valid_scheme_and_bad_programs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("walked.json");
    let strassen = data("2x2x2-r7-strassen.m");
    let out = flipgraph(&[
        "additions",
        strassen.to_str().unwrap(),
        "--walk",
        "2s",
        "--save",
        saved.to_str().unwrap(),
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let count: usize = t.lines().rfind(|l| l.starts_with("additions: ")).unwrap()[11..]
        .parse()
        .unwrap();
    assert!(count <= 18, "{t}");
    let verified = text(&flipgraph(&["verify", "--ring", "z", saved.to_str().unwrap()]));
    assert!(verified.contains("rank 7: valid over Z"), "{verified}");
    let walked = text(&flipgraph(&["additions", saved.to_str().unwrap()]));
    assert!(walked.ends_with(&format!("additions: {count}\n")), "{walked}");
    // A program whose product is wrong: one output of C changed.
    let program = dir.path().join("program.json");
    let out = flipgraph(&["additions", strassen.to_str().unwrap(), "-o", program.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let json = std::fs::read_to_string(&program).unwrap();
    let wrong = json.replacen(
        "\"c\":{\"inputs\":7,\"pairs\":[],\"outputs\":[[[",
        "\"c\":{\"inputs\":7,\"pairs\":[],\"outputs\":[[[1,1],[",
        1,
    );
    assert_ne!(wrong, json, "the edit applies");
    std::fs::write(&program, wrong.replace("\"additions\":18", "\"additions\":19")).unwrap();
    let out = flipgraph(&["codegen", program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("program.json: the program does not multiply correctly"),
        "{}",
        text(&out)
    );
    let out = flipgraph(&["additions", "--walk", "1s", strassen.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "--walk needs --save: {}", text(&out));
}

#[test]
fn generated_code_multiplies_correctly() {
    check_generated_code(&data("2x2x2-r7-strassen.m"), false, &[]);
    check_generated_code(&data("2x2x2-r7-strassen.m"), true, &[]);
    check_generated_code(&data("3x3x8-r55-perminov.json"), true, &[]);
    check_generated_code(&data("5x5x5-r93-c3-flipgraph-lifted.json"), false, &[]);
}

/// Pairs that several linear forms share are computed once: fewer additions than term by
/// term, and the code still multiplies correctly (issue 51 item 10). Laderman's 3x3x3 and
/// Strassen squared (4x4x4 rank 49) over Z, our 6x6x6 rank 153 over F2 (all in this
/// repository: no ../shared needed).
#[test]
fn codegen_computes_shared_pairs_once() {
    let dir = tempfile::tempdir().unwrap();
    let r49 = dir.path().join("4x4x4-r49.m");
    let strassen = data("2x2x2-r7-strassen.m");
    let s = strassen.to_str().unwrap();
    let out = flipgraph(&["product", s, s, "-o", r49.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    for (scheme, f2) in [
        (data("3x3x3-r23-laderman.m"), false),
        (r49, false),
        (data("6x6x6-r153-c6-flipgraph.json"), true),
    ] {
        let (shared_once, term_by_term) = check_generated_code(&scheme, f2, &[]);
        assert!(
            shared_once < term_by_term,
            "{}: {shared_once} of {term_by_term}",
            scheme.display()
        );
        let (written, again) = check_generated_code(&scheme, f2, &["--no-shared-pairs"]);
        assert_eq!(
            written,
            again,
            "{}: --no-shared-pairs writes term by term",
            scheme.display()
        );
        assert_eq!(again, term_by_term);
    }
}

#[test]
fn codegen_takes_only_an_identifier_as_the_function_name() {
    let scheme = data("2x2x2-r7-strassen.m");
    for bad in ["mul() {} fn evil", "9lives", "fn", "a-b", ""] {
        let out = flipgraph(&["codegen", scheme.to_str().unwrap(), "--name", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", text(&out));
        assert!(text(&out).contains("not a Rust identifier"), "{}", text(&out));
    }
    let out = flipgraph(&["codegen", scheme.to_str().unwrap(), "--name", "strassen_mul2"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("pub fn strassen_mul2<T>"));
}

#[test]
fn lift_finds_integer_schemes_and_says_when_none_exists() {
    let dir = tempfile::tempdir().unwrap();
    let mod2 = dir.path().join("strassen-mod2.txt");
    let out = flipgraph(
        &[
            "convert",
            data("2x2x2-r7-strassen.m").to_str().unwrap(),
            "--mod2",
            "--to",
            "txt",
            "-o",
        ]
        .into_iter()
        .chain([mod2.to_str().unwrap()])
        .collect::<Vec<_>>(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let line = make_and_verify(&["lift", mod2.to_str().unwrap()]);
    assert!(line.contains("2x2x2, rank 7: valid over Z"), "{line}");

    let line = make_and_verify(&["lift", data("5x5x5-r93-c3-flipgraph.json").to_str().unwrap()]);
    assert!(line.contains("5x5x5, rank 93: valid over Z"), "{line}");
    let out = flipgraph(&["lift", data("4x4x4-r47-flipgraph.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("no lift exists"), "{}", text(&out));
}

#[test]
fn paths_from_naive_to_strassen_and_laderman_replay_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (size, target, want) in [
        ("2", "2x2x2-r7-strassen.m", "rank 8 to rank 7"),
        ("3", "3x3x3-r23-laderman.m", "rank 27 to rank 23"),
    ] {
        let out = dir.path().join(size);
        let naive_run = bin()
            .args([
                "search",
                "--size",
                size,
                "--backend",
                "cpu",
                "--quiet",
                "--target-rank",
                "64",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert!(naive_run.status.success(), "{}", text(&naive_run));
        let naive = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains("-r"))
            .unwrap();
        let path_file = dir.path().join(format!("path{size}.txt"));
        let target = data(target);
        let built = flipgraph(&[
            "path",
            naive.to_str().unwrap(),
            target.to_str().unwrap(),
            "-o",
            path_file.to_str().unwrap(),
        ]);
        assert!(built.status.success(), "{}", text(&built));
        let replayed = flipgraph(&[
            "replay",
            naive.to_str().unwrap(),
            path_file.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ]);
        assert!(replayed.status.success(), "{}", text(&replayed));
        assert!(
            text(&replayed).contains(want) && text(&replayed).contains("arrived exactly"),
            "{}",
            text(&replayed)
        );
        // Without -o the end of the path goes to standard output, as the help says.
        let end = dir.path().join(format!("end{size}.json"));
        std::fs::write(&end, &replayed.stdout).unwrap();
        let check = flipgraph(&["verify", end.to_str().unwrap()]);
        assert!(check.status.success(), "{}", text(&check));
        // A path with a move removed no longer replays.
        let body = std::fs::read_to_string(&path_file).unwrap();
        let cut: Vec<&str> = body
            .lines()
            .enumerate()
            .filter(|&(i, _)| i != 3)
            .map(|(_, l)| l)
            .collect();
        std::fs::write(&path_file, cut.join("\n")).unwrap();
        let broken = flipgraph(&[
            "replay",
            naive.to_str().unwrap(),
            path_file.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ]);
        assert_eq!(broken.status.code(), Some(1), "{}", text(&broken));
    }
    // A move with bits outside the shape's matrices: the error names the path file.
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "flipgraph-path 2x2x2\npair 0x1000000000 0x1 0x1\n").unwrap();
    let strassen = data("2x2x2-r7-strassen.m");
    let out = flipgraph(&["replay", strassen.to_str().unwrap(), outside.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("outside.txt: its moves put bits outside the matrices of 2x2x2"),
        "{}",
        text(&out)
    );
}

/// A path file is read line by line, whatever its size (issue 51 audit items 9 and 12: `path`
/// wrote 136 MB that `replay` refused at 64 MiB, and replay held every move): 1.4 M moves in
/// 90 MB replay, and a line without an end is refused by its length.
#[test]
fn a_path_larger_than_any_cap_replays_line_by_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.txt");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&long).unwrap());
    writeln!(out, "flipgraph-path 2x2x2").unwrap();
    // Factors padded with zeros, so that 1.4 M moves take more than 64 MiB.
    let term = "0x0000000001 0x0000000002 0x0000000004";
    for _ in 0..700_000 {
        // A pair and its cancellation: the scheme is the same after each two lines.
        writeln!(out, "pair {term}\nmerge {term} {term}").unwrap();
    }
    drop(out);
    assert!(std::fs::metadata(&long).unwrap().len() > 64 << 20);
    let strassen = data("2x2x2-r7-strassen.m");
    let replayed = flipgraph(&[
        "replay",
        strassen.to_str().unwrap(),
        long.to_str().unwrap(),
        "--target",
        strassen.to_str().unwrap(),
    ]);
    assert!(replayed.status.success(), "{}", text(&replayed));
    assert!(
        text(&replayed).contains("replayed 1400000 moves (0 flips, 0 plus, 700000 merges, 700000 pairs)"),
        "{}",
        text(&replayed)
    );
    let endless = dir.path().join("endless.txt");
    std::fs::write(&endless, format!("flipgraph-path 2x2x2\npair {}", "0".repeat(10_000))).unwrap();
    let refused = flipgraph(&["replay", strassen.to_str().unwrap(), endless.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("line 2 is longer than 4096 bytes"),
        "{}",
        text(&refused)
    );
}

#[test]
fn bench_from_files_measures_each_start_beside_one_cpu_thread() {
    let (laderman, strassen) = (data("3x3x3-r23-laderman.m"), data("2x2x2-r7-strassen.m"));
    let out = flipgraph(&[
        "bench",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--seconds",
        "0.5",
        "--json",
        "--cpu-thread",
        "--from",
        laderman.to_str().unwrap(),
        strassen.to_str().unwrap(),
    ]);
    let rows = json_of(&out);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0]["size"].as_str(), rows[0]["start_rank"].as_u64()),
        (Some("3x3x3"), Some(23))
    );
    assert_eq!(
        (rows[1]["size"].as_str(), rows[1]["start_rank"].as_u64()),
        (Some("2x2x2"), Some(7))
    );
    for row in rows {
        assert!(
            row["rank"].as_u64().unwrap() <= row["start_rank"].as_u64().unwrap(),
            "{row}"
        );
        assert!(row["cpu_thread_vertices_per_s"].as_f64().unwrap() > 0.0, "{row}");
        assert_eq!(row["walkers_invalid"], 0, "{row}");
    }
    // A bad start names the file.
    let out = flipgraph(&["bench", "--backend", "cpu", "--from", "/nonexistent/x.m"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("/nonexistent/x.m"), "{}", text(&out));
}

#[test]
fn bench_over_seeds_reports_the_medians_and_each_seeds_run() {
    let args = [
        "bench",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--sizes",
        "2,3",
        "--seconds",
        "0.3",
    ];
    let out = flipgraph(&[&args[..], &["--seeds", "1-3", "--json"]].concat());
    let rows = json_of(&out);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "one row per size");
    for row in rows {
        assert_eq!(row["seeds"], serde_json::json!([1, 2, 3]), "{row}");
        let runs = row["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "{row}");
        let mut ranks: Vec<u64> = runs.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
        ranks.sort_unstable();
        assert_eq!(row["rank"].as_u64(), Some(ranks[1]), "the median rank: {row}");
        assert_eq!(
            row["walkers_audited"].as_u64(),
            Some(3 * runs[0]["walkers_audited"].as_u64().unwrap())
        );
        assert_eq!(row["walkers_invalid"], 0, "{row}");
        let seeds: Vec<u64> = runs.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
        assert_eq!(seeds, [1, 2, 3], "each run names its seed: {row}");
    }
    // One seed: a row as before, naming its seed, without runs.
    let one = flipgraph(&[&args[..], &["--seed", "4", "--json"]].concat());
    let rows = json_of(&one);
    assert_eq!(rows[0]["seed"], 4, "{rows}");
    assert!(rows[0].get("runs").is_none(), "{rows}");
    // The table names the seeds; --seed beside --seeds is refused, and so is a repeated seed.
    let table = flipgraph(&[&args[..], &["--seeds", "1,2"]].concat());
    assert!(table.status.success(), "{}", text(&table));
    assert!(text(&table).contains("medians over seeds 1, 2"), "{}", text(&table));
    let both = flipgraph(&[&args[..], &["--seeds", "1-2", "--seed", "3"]].concat());
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
    assert!(text(&both).contains("cannot be used with '--seed"), "{}", text(&both));
    let twice = flipgraph(&[&args[..], &["--seeds", "2,2"]].concat());
    assert_eq!(twice.status.code(), Some(2), "{}", text(&twice));
    assert!(text(&twice).contains("seed 2 is given twice"), "{}", text(&twice));
}

#[test]
fn time_to_rank_counts_the_runs_that_reach_it_and_says_how_low_the_others_got() {
    let base = [
        "bench",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--json",
        "--time-to-rank",
    ];
    let ttr =
        |target: &str, timeout: &str| flipgraph(&[&base[..], &[target, "--runs", "2", "--timeout", timeout]].concat());
    let reached = ttr("2x2x2:7", "20s");
    let json = json_of(&reached);
    assert_eq!(
        (json["reached"].as_u64(), json["failures"].as_u64()),
        (Some(2), Some(0)),
        "{json}"
    );
    assert!(json["median_s"].as_f64().is_some_and(|m| m > 0.0), "{json}");
    // 7 is the lowest rank of 2x2x2: every run misses 6, having written 7.
    let missed = ttr("2x2x2:6", "1s");
    assert_eq!(missed.status.code(), Some(1), "{}", text(&missed));
    let json: serde_json::Value = serde_json::from_slice(&missed.stdout).unwrap();
    assert_eq!(json["missed_lowest_ranks"], serde_json::json!([7, 7]), "{json}");
    assert!(json["median_s"].is_null() && json["mean_reached_s"].is_null(), "{json}");
    assert!(text(&missed).contains("lowest rank written: 7"), "{}", text(&missed));
    // --seeds picks the runs' seeds instead of 1..=--runs; the two together are refused.
    let picked = flipgraph(&[&base[..], &["2x2x2:7", "--seeds", "5,9", "--timeout", "20s"]].concat());
    let json = json_of(&picked);
    assert_eq!(
        (json["runs"].as_u64(), json["reached"].as_u64()),
        (Some(2), Some(2)),
        "{json}"
    );
    assert!(
        text(&picked).contains("run 5:") && text(&picked).contains("run 9:"),
        "{}",
        text(&picked)
    );
    let both = flipgraph(&[&base[..], &["2x2x2:7", "--seeds", "1-2", "--runs", "2"]].concat());
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
}

/// `--jobs` runs the seeds side by side (on the CPU each with its share of the cores), and the
/// report keeps the seeds' order, whichever lane ended first.
#[test]
fn time_to_rank_runs_side_by_side_and_reports_each_seed() {
    let base = ["bench", "--backend", "cpu", "--json", "--time-to-rank"];
    let out = flipgraph(
        &[
            &base[..],
            &["2x2x2:7", "--seeds", "3,1,2", "--jobs", "2", "--timeout", "20s"],
        ]
        .concat(),
    );
    let json = json_of(&out);
    assert_eq!(
        (json["runs"].as_u64(), json["reached"].as_u64()),
        (Some(3), Some(3)),
        "{json}"
    );
    assert_eq!(json["jobs"].as_u64(), Some(2), "{json}");
    // What the runs walked on: no GPU on the CPU, the host's cores.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert_eq!(json["machine"]["gpus"], serde_json::Value::Null, "{json}");
    assert_eq!(json["machine"]["cpu_cores"].as_u64(), Some(cores), "{json}");
    let by_seed = json["by_seed"].as_array().unwrap();
    let seeds: Vec<_> = by_seed.iter().map(|r| r["seed"].as_u64()).collect();
    assert_eq!(seeds, [Some(3), Some(1), Some(2)], "{json}");
    assert!(
        by_seed.iter().all(|r| r["s"].as_f64().is_some_and(|s| s > 0.0)),
        "{json}"
    );
    let share = std::thread::available_parallelism().map_or(1, |n| n.get()) / 2;
    let share = match share.max(1) {
        1 => "one CPU thread each".to_owned(),
        n => format!("{n} CPU threads each"),
    };
    assert!(
        text(&out).contains(&format!("2 runs at a time, {share}")),
        "{}",
        text(&out)
    );
    // A run that misses says how low it got, by seed.
    let missed = flipgraph(&[&base[..], &["2x2x2:6", "--runs", "2", "--jobs", "2", "--timeout", "1s"]].concat());
    assert_eq!(missed.status.code(), Some(1), "{}", text(&missed));
    let json: serde_json::Value = serde_json::from_slice(&missed.stdout).unwrap();
    assert_eq!(
        json["by_seed"][1],
        serde_json::json!({"seed": 2, "s": null, "lowest_rank": 7, "error": null})
    );
    // A search that fails says why, by seed, and the other runs are still reported.
    let failed = flipgraph(
        &[
            &base[..],
            &[
                "2x2x2:7",
                "--runs",
                "2",
                "--jobs",
                "2",
                "--symmetry",
                "c3",
                "--ladder",
                "on",
            ],
        ]
        .concat(),
    );
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
    let json: serde_json::Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert_eq!(json["runs"].as_u64(), Some(2), "{json}");
    for run in json["by_seed"].as_array().unwrap() {
        assert!(
            run["error"].as_str().is_some_and(|e| e.contains("--ladder on")),
            "{json}"
        );
    }
    // No lanes of zero, and no --jobs without runs to spread.
    for refused in [
        &[&base[..], &["2x2x2:7", "--jobs", "0"]].concat(),
        &["bench", "--sizes", "2", "--backend", "cpu", "--jobs", "2"][..],
        &["bench", "--cpu-thread", "--backend", "cpu", "--time-to-rank", "2x2x2:7"][..],
    ] {
        let out = flipgraph(refused);
        assert_eq!(out.status.code(), Some(2), "{refused:?}: {}", text(&out));
    }
}

#[test]
fn flags_out_of_range_are_clear_errors_not_panics() {
    let search = ["search", "--size", "2", "--backend", "cpu", "--time", "1s"];
    let bench = ["bench", "--sizes", "2", "--backend", "cpu"];
    for (base, flag, value) in [
        (&search[..], "--time", "99999999999999999999s"),
        (&search[..], "--checkpoint-secs", "1e400"),
        (&search[..], "--threads", "0"),
        (&search[..], "--walkers", "0"),
        (&search[..], "--round-steps", "0"),
        (&search[..], "--formats", "mathematica"),
        (&bench[..], "--seconds", "nan"),
        (&bench[..], "--seconds", "1e400"),
        (&bench[..], "--walkers", "0"),
        (&search[..], "--rung-stall", "0"),
        (&bench[..], "--runs", "0"),
        (&bench[..], "--runs", "4000000000"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("run");
        let mut args = base.to_vec();
        args.extend([flag, value, "--out", out_dir.to_str().unwrap()]);
        if base[0] == "bench" {
            args.truncate(args.len() - 2);
        }
        let out = flipgraph(&args);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {}", text(&out));
        assert!(text(&out).contains(flag), "{flag} {value}: {}", text(&out));
    }
}

#[test]
fn a_checkpoint_with_an_impossible_elapsed_time_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let first = flipgraph(&[
        "search",
        "--size",
        "2",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--time",
        "0.2s",
        "--target-rank",
        "1",
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert!(first.status.success(), "{}", text(&first));
    let path = run.join("checkpoint.json");
    let good: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for bad in [-1.0, 1e300] {
        let mut cp = good.clone();
        cp["elapsed_s"] = serde_json::json!(bad);
        std::fs::write(&path, cp.to_string()).unwrap();
        let out = flipgraph(&["search", "--resume", run.to_str().unwrap(), "--time", "0.2s", "--quiet"]);
        assert_eq!(out.status.code(), Some(1), "{bad}: {}", text(&out));
        assert!(
            text(&out).contains("checkpoint.json") && text(&out).contains("elapsed_s"),
            "{bad}: {}",
            text(&out)
        );
    }
}

#[test]
fn special_and_oversized_inputs_are_refused_without_reading_them_whole() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.m");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let big = dir.path().join("big.m");
    std::fs::write(&big, vec![b' '; 17 << 20]).unwrap();
    let strassen = data("2x2x2-r7-strassen.m");
    let strassen = strassen.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["verify", "/dev/zero"], "/dev/zero: not a regular file"),
        (&["verify", fifo.to_str().unwrap()], "fifo.m: not a regular file"),
        (&["info", big.to_str().unwrap()], "big.m: larger than 16 MiB"),
        (&["replay", strassen, "/dev/zero"], "/dev/zero: not a regular file"),
        (&["search", "--resume", dir.path().to_str().unwrap()], "checkpoint.json"),
    ];
    for (args, want) in cases {
        // A FIFO read would block forever: the timeout turns that into a failure.
        let out = Command::new("timeout")
            .arg("20")
            .arg(env!("CARGO_BIN_EXE_flipgraph"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(want), "{args:?}: {}", text(&out));
    }
    // A checkpoint that is a FIFO is refused too.
    let made = Command::new("mkfifo")
        .arg(dir.path().join("checkpoint.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = Command::new("timeout")
        .arg("20")
        .arg(env!("CARGO_BIN_EXE_flipgraph"))
        .args(["search", "--resume", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("checkpoint.json: not a regular file"),
        "{}",
        text(&out)
    );
}

#[test]
fn bench_refuses_cubes_beside_a_start_from_files() {
    let laderman = data("3x3x3-r23-laderman.m");
    let out = flipgraph(&[
        "bench",
        "--backend",
        "cpu",
        "--symmetry",
        "c3",
        "--cubes",
        "101",
        "--from",
        laderman.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out).contains("--cubes and --from are two different starts"),
        "{}",
        text(&out)
    );
}

/// `search -h` fits on two screens, its flags grouped under headings, with no line a paragraph;
/// `--help` keeps every flag's whole text.
#[test]
fn search_help_is_short_and_grouped_and_the_long_help_complete() {
    let short = bin().args(["search", "-h"]).output().unwrap();
    assert!(short.status.success());
    let text = String::from_utf8(short.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 100, "{} lines:\n{text}", lines.len());
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 160, "a line of {longest} characters:\n{text}");
    for heading in [
        "Start and target:",
        "Output:",
        "Engine:",
        "Walk:",
        "Schedule:",
        "Symmetry:",
    ] {
        assert!(lines.contains(&heading), "no heading {heading}:\n{text}");
    }
    let long = bin().args(["search", "--help"]).output().unwrap();
    let long = String::from_utf8(long.stdout).unwrap();
    assert!(long.contains("Default: adaptive, per walker"), "{long}");
    assert!(long.lines().count() > lines.len());
}

/// The README's "Other commands" block runs as written: each line through `sh`, from a folder
/// that sees the repository's tests/data, with this build's `flipgraph` first on the PATH.
#[test]
fn the_readmes_other_commands_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("## Other commands")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("README.md has an Other commands block");
    let lines: Vec<&str> = block.lines().filter(|l| l.starts_with("flipgraph ")).collect();
    assert!(lines.len() >= 15, "{} lines", lines.len());
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("tests"), dir.path().join("tests")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_flipgraph")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    for line in lines {
        let done = Command::new("sh")
            .args(["-c", line])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(done.status.success(), "{line}\n{}", text(&done));
    }
}

/// Every command's inputs say what they are: no positional argument of any subcommand is left
/// without a description in its help.
#[test]
fn every_commands_arguments_are_described() {
    let top = bin().arg("--help").output().unwrap();
    let top = String::from_utf8(top.stdout).unwrap();
    let commands: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(commands.len() >= 20, "{commands:?}");
    for command in commands {
        let help = bin().args([command, "-h"]).output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        let Some(arguments) = help.split("Arguments:\n").nth(1) else {
            continue;
        };
        for line in arguments.lines().take_while(|l| l.starts_with("  ")) {
            let described = line
                .trim()
                .split_once(char::is_whitespace)
                .is_some_and(|(_, rest)| !rest.trim().is_empty());
            assert!(
                described,
                "`flipgraph {command}`: an argument without a description: {line}"
            );
        }
    }
}

/// Ctrl-C ends a long lift at once, saying nothing was written (it ran on for a minute and more
/// before: audit item 13).
#[test]
fn ctrl_c_ends_a_long_lift_at_once() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lifted.json");
    let mut child = bin()
        .arg("lift")
        .arg(data.join("7x7x7-r245-seed.b32"))
        .arg("-o")
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (status, said) = interrupt(&mut child, std::time::Duration::from_secs(5));
    assert_eq!(status.code(), Some(130));
    assert!(said.contains("interrupted: no lift written"), "{said}");
    // It said where it was meanwhile (it was silent for 88 s before).
    assert!(said.contains("lift: signs on the support"), "{said}");
    assert!(!out.exists());
}

#[test]
fn a_missing_results_folder_and_a_total_too_short_for_a_turn_are_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let out = flipgraph(&["known", "--results", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("nowhere: no such folder"), "{}", text(&out));
    // Before, such a campaign started nothing and ended with exit 0 and a table of "not started".
    let campaign = dir.path().join("c");
    let args = ["campaign", "--sizes", "2", "--backend", "cpu", "--total", "1s", "--out"];
    let out = flipgraph(&[&args[..], &[campaign.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("--total 1.0s leaves no time for a turn"),
        "{}",
        text(&out)
    );
    // A campaign inside a search's folder (which holds checkpoint.json) is refused.
    let search = dir.path().join("s");
    let out = flipgraph(&[
        "search",
        "--size",
        "2",
        "--backend",
        "cpu",
        "--time",
        "1",
        "--quiet",
        "--out",
        search.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let inside = search.join("more");
    let args = ["campaign", "--sizes", "2", "--backend", "cpu", "--time", "1s", "--out"];
    let out = flipgraph(&[&args[..], &[inside.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("is inside the folder of a search"),
        "{}",
        text(&out)
    );
    assert!(!inside.exists());
}

/// Ctrl-C (or SIGTERM) to a time-to-rank bench ends the runs under way, reports them as
/// interrupted and leaves no temp folder (before, its searches ran on, orphaned, into it).
#[test]
fn time_to_rank_interrupted_ends_its_runs_and_leaves_no_temp_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = bin()
        .args([
            "bench",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "--time-to-rank",
            "2x2x2:6",
        ])
        .args(["--runs", "3", "--timeout", "60s"])
        .env("TMPDIR", dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Until the first run's folder is there: its search is under way.
    let started = std::time::Instant::now();
    while std::fs::read_dir(dir.path()).unwrap().next().is_none() {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "no run began");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (status, said) = interrupt(&mut child, std::time::Duration::from_secs(10));
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(said.contains("run 1: the search failed: interrupted"), "{said}");
    assert!(!said.contains("run 2:"), "a run began after the interrupt: {said}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Runs each case's arguments and asserts its exit code and a part of what it said.
fn assert_each_refused(cases: &[(&[&str], &str, i32)]) {
    for &(args, want, code) in cases {
        let out = flipgraph(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(want), "{args:?}: {}", text(&out));
    }
}

#[test]
fn what_the_audit_found_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    // Strassen without its last term: a description, then exit 1.
    let strassen = std::fs::read_to_string(data("2x2x2-r7-strassen.m")).unwrap();
    let lines: Vec<&str> = strassen.lines().collect();
    let last_term = lines.len() - 2;
    let mut broken = lines[..last_term].join("\n");
    broken = broken.trim_end_matches(',').to_owned() + "\n}\n";
    let six = dir.path().join("six.m");
    std::fs::write(&six, broken).unwrap();
    let out = flipgraph(&["info", six.to_str().unwrap()]);
    assert!(text(&out).contains("rank:      6"), "{}", text(&out));
    assert!(text(&out).contains("valid over: nothing"), "{}", text(&out));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("six.m: not a valid scheme"), "{}", text(&out));

    let strassen = data("2x2x2-r7-strassen.m");
    // The exit codes: 2 for clap's usage errors, 1 for the program's.
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let cases: [(&[&str], &str, i32); 6] = [
        (&["codegen", readme, "--lang", "c"], "[possible values: rust]", 2),
        (
            &["convert", readme, "--to", "xml"],
            "unknown format 'xml' (expected letter, json, txt or seed)",
            2,
        ),
        (
            &["campaign", "--sizes", "2x2x2", "--backend", "cpu", "--out", readme],
            "README.md is not a folder; --out names the folder the campaign writes into",
            1,
        ),
        (
            &["lift", strassen.to_str().unwrap(), "--bits", "9999"],
            "9999 is not in 2..=40",
            2,
        ),
        (
            &["bench", "--time-to-rank", "2x2x2:7", "--sizes", "3", "--runs", "1"],
            "--sizes is for throughput runs",
            1,
        ),
        (
            &[
                "search",
                "--size",
                "2",
                "--backend",
                "cpu",
                "--threads",
                "100000",
                "--time",
                "1s",
            ],
            "--threads 100000: ",
            1,
        ),
    ];
    assert_each_refused(&cases);
}

#[test]
fn no_command_writes_over_its_input_or_a_search_s_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let strassen = std::fs::read_to_string(data("2x2x2-r7-strassen.m")).unwrap();
    std::fs::write(d("s.m"), &strassen).unwrap();
    let search_into = |out: &str| {
        let args = [
            "search",
            "--backend",
            "cpu",
            "--threads",
            "1",
            "--size",
            "2",
            "--time",
            "1s",
        ];
        flipgraph(&[&args[..], &["--quiet", "--out", &d(out)]].concat())
    };
    // A search's folder: its checkpoint and results must survive a plot aimed at them.
    let out = search_into("run");
    assert!(out.status.success(), "{}", text(&out));
    let checkpoint = std::fs::read(dir.path().join("run/checkpoint.json")).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let two_names = [d("a.json"), format!("{}/../a.json", sub.display())];
    let (run, checkpoint_path, scheme, islands) = (d("run"), d("run/checkpoint.json"), d("s.m"), d("i"));
    let cases: [(&[&str], &str, i32); 4] = [
        (&["plot", &run, "-o", &checkpoint_path], "give a name ending in .svg", 2),
        (&["codegen", &scheme, "-o", &scheme], "is the input", 1),
        (
            &[
                "split",
                &scheme,
                "--dim",
                "p",
                "--at",
                "1",
                &two_names[0],
                &two_names[1],
            ],
            "the second part would overwrite the first",
            1,
        ),
        (
            &[
                "search",
                "--backend",
                "cpu",
                "--size",
                "2",
                "--time",
                "1s",
                "--islands",
                "5000",
                "--out",
                &islands,
            ],
            "at most 1024 islands",
            2,
        ),
    ];
    assert_each_refused(&cases);
    assert_eq!(
        std::fs::read(dir.path().join("run/checkpoint.json")).unwrap(),
        checkpoint
    );
    // Both parts or neither: a second part sent to a folder leaves no first part behind.
    let out = flipgraph(&["split", &scheme, "--dim", "p", "--at", "1", &two_names[0], &d("sub")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("is a folder; each part of split goes to a file"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read_to_string(d("s.m")).unwrap(), strassen);
    assert!(!dir.path().join("a.json").exists(), "nothing written");

    // A new search refuses a folder of scheme files without a checkpoint, and leaves them be.
    std::fs::create_dir(dir.path().join("mine")).unwrap();
    std::fs::write(d("mine/2x2x2-r7.m"), &strassen).unwrap();
    let out = search_into("mine");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("holds scheme files but no checkpoint (such as 2x2x2-r7.m)"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read_to_string(d("mine/2x2x2-r7.m")).unwrap(), strassen);
}

/// A command whose standard output fails ends with an error line and exit 1, not a panic.
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .arg("known")
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error: cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // A search whose standard error is full loses its log, not its work: it walks to its time
    // and writes its results and final checkpoint (it panicked before writing any).
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = search_on_one_thread()
        .args(["--size", "4", "--time", "2s", "--out"])
        .arg(dir.path())
        .stderr(full)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(101), "a panic");
    let checkpoint: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("checkpoint.json")).unwrap()).unwrap();
    assert!(checkpoint["elapsed_s"].as_f64().unwrap() >= 1.5, "{checkpoint}");
    let results = std::fs::read_dir(dir.path()).unwrap().filter_map(|e| {
        let name = e.ok()?.file_name().into_string().ok()?;
        name.strip_prefix("4x4x4-r")?
            .strip_suffix(".json")?
            .parse::<usize>()
            .ok()
    });
    assert!(
        results.min().is_some_and(|r| r < 64),
        "results below the naive 64 written"
    );
}

/// A reader of `--json` that goes away (`| head`) stops the lines, not the search: it runs to
/// its time and writes its final checkpoint.
#[test]
fn a_search_outlives_the_reader_of_its_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut search = search_on_one_thread()
        .args(["--size", "4", "--time", "3s", "--json", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(search.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(search.stdout.take());
    let ended = search.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(0), "{err}");
    assert!(err.contains("no more JSON lines there, the search goes on"), "{err}");
    let checkpoint: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("checkpoint.json")).unwrap()).unwrap();
    assert!(checkpoint["elapsed_s"].as_f64().unwrap() >= 2.5, "{checkpoint}");
}
