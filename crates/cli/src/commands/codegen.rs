//! `flipgraph codegen FILE --lang rust`: a Rust function that multiplies with the scheme.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flipgraph_core::additions::{programs, LinearForm, Program};
use flipgraph_core::formats::Ring;
use flipgraph_core::{IntScheme, IntTerm};

use crate::output::atomic_file::write_atomic;
use crate::schemes::read_checked;
use crate::write::same_file;

/// Write a Rust function that multiplies an n x m by an m x p matrix with the scheme's
/// multiplications: generic over a ring for schemes valid over Z, XOR/AND on u64 bit-slices
/// (64 independent F2 products at once) for schemes valid over F2 only.
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format); it must be valid.
    input: PathBuf,
    /// The language (only rust).
    #[arg(long, default_value = "rust", value_parser = ["rust"])]
    lang: String,
    /// Generate the F2 (bit-sliced) function even for a scheme valid over Z.
    #[arg(long)]
    f2: bool,
    /// The function's name (a Rust identifier).
    #[arg(long, default_value = "mul", value_parser = parse_identifier)]
    name: String,
    /// Write every linear form term by term, without naming the pairs several forms share
    /// (the addition count of the scheme as written).
    #[arg(long)]
    no_shared_pairs: bool,
    /// Where to write (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// A name the generated code can use as is: letters, digits and `_`, not starting with a digit,
/// and no keyword.
fn parse_identifier(s: &str) -> Result<String, String> {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
        "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "_",
    ];
    let mut chars = s.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') || KEYWORDS.contains(&s) {
        return Err(format!(
            "'{s}' is not a Rust identifier (letters, digits and _, not a keyword)"
        ));
    }
    Ok(s.to_owned())
}

/// `form` as an expression over the variables `var` names: a coefficient `k` is `|k|` copies,
/// a positive term first (over F2, XOR and no signs); `-(...)` when every term is negative.
fn expression(form: &LinearForm, var: &impl Fn(u32) -> String, f2: bool) -> String {
    if form.is_empty() {
        return (if f2 { "0" } else { "T::default()" }).into();
    }
    let negated = negated(form, f2);
    let mut terms: Vec<(u32, i64)> = form.iter().map(|&(v, k)| (v, if negated { -k } else { k })).collect();
    // A positive term first, so that no term needs a unary minus.
    terms.sort_by_key(|&(_, k)| k < 0);
    let mut expr = String::new();
    for (v, k) in terms {
        for _ in 0..k.unsigned_abs() {
            let op = match (expr.is_empty(), f2, k < 0) {
                (true, _, _) => "",
                (false, true, _) => " ^ ",
                (false, false, false) => " + ",
                (false, false, true) => " - ",
            };
            let _ = write!(expr, "{op}{}", var(v));
        }
    }
    if negated {
        format!("-({expr})")
    } else {
        expr
    }
}

/// Whether `form` is written as `-(...)`, a unary negation: every term negative (over Z).
fn negated(form: &LinearForm, f2: bool) -> bool {
    !f2 && !form.is_empty() && form.iter().all(|&(_, k)| k < 0)
}

/// `form` with every sign flipped.
fn flipped(form: &LinearForm) -> LinearForm {
    form.iter().map(|&(v, k)| (v, -k)).collect()
}

/// `s` with each term's A and B factors led by a positive coefficient, the sign moved to C
/// (`(-a) (x) b (x) c = a (x) b (x) (-c)`): fewer forms need a unary minus.
fn signs_moved_to_c(s: &IntScheme) -> IntScheme {
    let mut s = s.clone();
    for term in &mut s.terms {
        for at in [0, 1] {
            if term.factors[at].iter().find(|&&k| k != 0).is_some_and(|&k| k < 0) {
                sign_to_c(term, at);
            }
        }
    }
    s
}

/// `term` with its factor `at` (A or B) and C negated: the same tensor.
fn sign_to_c(term: &mut IntTerm, at: usize) {
    for i in [at, 2] {
        term.factors[i].iter_mut().for_each(|k| *k = -*k);
    }
}

/// `s` with the sign of each product whose A or B form comes out of its program all negative
/// (a pair taken the other way round) moved to C, and the programs built again: most such
/// negations go.
fn signs_by_programs(s: &IntScheme, f2: bool, shared: bool) -> IntScheme {
    let [pa, pb, _] = programs(s, f2, shared);
    let mut s = s.clone();
    for (term, (x, y)) in s.terms.iter_mut().zip(pa.outputs.iter().zip(&pb.outputs)) {
        for (at, form) in [(0, x), (1, y)] {
            if negated(form, f2) {
                sign_to_c(term, at);
            }
        }
    }
    s
}

/// `expr` as an operand of a product: in parentheses unless it is a single variable (the
/// generated code compiles without warnings).
fn operand(expr: String) -> String {
    if expr.contains(' ') || expr.starts_with('-') {
        format!("({expr})")
    } else {
        expr
    }
}

/// The lines that compute `program`'s pairs, named `{prefix}{i}`, over the inputs `input`
/// names; and the namer of all its variables.
fn pair_lines(
    program: &Program,
    prefix: &'static str,
    input: impl Fn(u32) -> String,
    f2: bool,
) -> (String, impl Fn(u32) -> String) {
    let inputs = program.inputs as u32;
    let name = move |v: u32| {
        if v < inputs {
            input(v)
        } else {
            format!("{prefix}{}", v - inputs)
        }
    };
    let mut lines = String::new();
    for (i, pair) in program.pairs.iter().enumerate() {
        let form = vec![(pair.x, 1), (pair.y, pair.sign)];
        let _ = writeln!(lines, "    let {prefix}{i} = {};", expression(&form, &name, f2));
    }
    (lines, name)
}

/// The generated function, its multiplications, and its additions (unary negations counted as
/// additions: the few left once signs are moved to C and a product's two are cancelled).
fn generate(s: &IntScheme, f2: bool, name: &str, shared: bool) -> Generated {
    let [n, m, p] = s.shape.dims();
    let s = &signs_by_programs(&signs_moved_to_c(s), f2, shared);
    let [pa, pb, pc] = programs(s, f2, shared);
    let mut negations = 0;
    let (mut body, a) = pair_lines(&pa, "sa", move |i| format!("a[{}][{}]", i / m as u32, i % m as u32), f2);
    let (lines, b) = pair_lines(&pb, "sb", move |i| format!("b[{}][{}]", i / p as u32, i % p as u32), f2);
    body += &lines;
    let op = if f2 { "&" } else { "*" };
    for (r, (x, y)) in pa.outputs.iter().zip(&pb.outputs).enumerate() {
        // (-x) * (-y) = x * y.
        let (x, y) = match negated(x, f2) && negated(y, f2) {
            true => (flipped(x), flipped(y)),
            false => (x.clone(), y.clone()),
        };
        negations += usize::from(negated(&x, f2)) + usize::from(negated(&y, f2));
        let (x, y) = (operand(expression(&x, &a, f2)), operand(expression(&y, &b, f2)));
        let _ = writeln!(body, "    let m{r} = {x} {op} {y};");
    }
    let (lines, c) = pair_lines(&pc, "sc", |r| format!("m{r}"), f2);
    body += &lines;
    let zero = if f2 { "0" } else { "T::default()" };
    let _ = writeln!(body, "    let mut c = [[{zero}; {p}]; {n}];");
    for (ik, form) in pc.outputs.iter().enumerate() {
        negations += usize::from(negated(form, f2));
        let _ = writeln!(body, "    c[{}][{}] = {};", ik / p, ik % p, expression(form, &c, f2));
    }
    let additions = pa.additions() + pb.additions() + pc.additions() + negations;
    let _ = writeln!(body, "    c");
    let doc = format!(
        "/// Multiplies a {n}x{m} by a {m}x{p} matrix with {} multiplications and {additions} additions\n\
         /// (a scheme for <{n},{m},{p}>, generated by flipgraph).\n",
        s.rank()
    );
    let signature = if f2 {
        format!(
            "{doc}/// Over F2, bit-sliced: bit l of every entry belongs to the l-th of 64 independent products.\n\
             pub fn {name}(a: &[[u64; {m}]; {n}], b: &[[u64; {p}]; {m}]) -> [[u64; {p}]; {n}] {{\n"
        )
    } else {
        format!(
            "{doc}pub fn {name}<T>(a: &[[T; {m}]; {n}], b: &[[T; {p}]; {m}]) -> [[T; {p}]; {n}]\n\
             where\n    T: Copy + Default + core::ops::Add<Output = T> + core::ops::Sub<Output = T> + core::ops::Mul<Output = T> + core::ops::Neg<Output = T>,\n{{\n"
        )
    };
    Generated {
        code: format!("{signature}{body}}}\n"),
        multiplications: s.rank(),
        additions,
        negations,
    }
}

/// The generated function and what it costs.
struct Generated {
    code: String,
    multiplications: usize,
    /// Additions and subtractions, with the unary negations counted among them.
    additions: usize,
    negations: usize,
}

/// Coefficients are written as repeated additions; larger ones are refused.
const MAX_COEFFICIENT: u64 = 64;

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(out) = args.output.as_ref().filter(|out| same_file(out, &args.input)) {
        bail!("{} is the input: the code would overwrite the scheme", out.display());
    }
    let checked = read_checked(&args.input)?;
    let largest = checked
        .file
        .scheme
        .terms
        .iter()
        .flat_map(|t| t.factors.iter().flatten())
        .map(|x| x.unsigned_abs())
        .max();
    if largest.unwrap_or(0) > MAX_COEFFICIENT {
        bail!(
            "{}: a coefficient over {MAX_COEFFICIENT} in absolute value; no code generated",
            args.input.display()
        );
    }
    let f2 = match checked.ring() {
        Some(Ring::Z) => args.f2,
        Some(Ring::F2) => true,
        None => bail!("{}: not a valid scheme; no code generated", args.input.display()),
    };
    let scheme = &checked.file.scheme;
    let Generated {
        code,
        multiplications,
        additions,
        negations,
    } = generate(scheme, f2, &args.name, !args.no_shared_pairs);
    let term_by_term = generate(scheme, f2, &args.name, false).additions;
    match &args.output {
        Some(path) => write_atomic(path, code.as_bytes())?,
        None => print!("{code}"),
    }
    eprintln!(
        "{multiplications} multiplications, {additions} additions ({}{}; {term_by_term} written term by term)",
        if f2 { "F2, XOR/AND" } else { "generic ring" },
        match negations {
            0 => String::new(),
            n => format!(", {n} of them unary negations"),
        }
    );
    Ok(ExitCode::SUCCESS)
}
