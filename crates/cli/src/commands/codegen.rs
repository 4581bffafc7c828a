//! `flipgraph codegen FILE --lang rust`: a Rust function that multiplies with the scheme.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flipgraph_core::additions::{
    is_negated, is_program_file, read_program, LinearForm, Program, SchemeProgram, MAX_COEFFICIENT,
};
use flipgraph_core::formats::read_bounded;

use super::additions::{best_program, counted_scheme};
use crate::output::atomic_file::write_atomic;
use crate::schemes::read_checked;
use crate::write::same_file;

/// Write a Rust function that multiplies an n x m by an m x p matrix with the scheme's
/// multiplications: generic over a ring for schemes valid over Z, XOR/AND on u64 bit-slices
/// (64 independent F2 products at once) for schemes valid over F2 only. The additions are
/// those `flipgraph additions` finds; the input may also be a program it wrote (`-o`).
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format; it must be valid), or a program file written by
    /// `flipgraph additions -o`.
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
    let negated = is_negated(form, f2);
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

/// `form` with every sign flipped.
fn flipped(form: &LinearForm) -> LinearForm {
    form.iter().map(|&(v, k)| (v, -k)).collect()
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

/// The generated function for `program`, and what it costs: its additions as the program
/// counts them, unary minuses included.
fn generate(program: &SchemeProgram, name: &str) -> Generated {
    let [n, m, p] = program.shape.dims();
    let f2 = program.f2;
    let [pa, pb, pc] = &program.maps;
    let (mut body, a) = pair_lines(pa, "sa", move |i| format!("a[{}][{}]", i / m as u32, i % m as u32), f2);
    let (lines, b) = pair_lines(pb, "sb", move |i| format!("b[{}][{}]", i / p as u32, i % p as u32), f2);
    body += &lines;
    let op = if f2 { "&" } else { "*" };
    for (r, (x, y)) in pa.outputs.iter().zip(&pb.outputs).enumerate() {
        // (-x) * (-y) = x * y: no unary minus (SchemeProgram::negations counts the same).
        let (x, y) = match is_negated(x, f2) && is_negated(y, f2) {
            true => (flipped(x), flipped(y)),
            false => (x.clone(), y.clone()),
        };
        let (x, y) = (operand(expression(&x, &a, f2)), operand(expression(&y, &b, f2)));
        let _ = writeln!(body, "    let m{r} = {x} {op} {y};");
    }
    let (lines, c) = pair_lines(pc, "sc", |r| format!("m{r}"), f2);
    body += &lines;
    let zero = if f2 { "0" } else { "T::default()" };
    let _ = writeln!(body, "    let mut c = [[{zero}; {p}]; {n}];");
    for (ik, form) in pc.outputs.iter().enumerate() {
        let _ = writeln!(body, "    c[{}][{}] = {};", ik / p, ik % p, expression(form, &c, f2));
    }
    let additions = program.additions();
    let _ = writeln!(body, "    c");
    let doc = format!(
        "/// Multiplies a {n}x{m} by a {m}x{p} matrix with {} multiplications and {additions} additions\n\
         /// (a scheme for <{n},{m},{p}>, generated by flipgraph).\n",
        program.rank()
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
        multiplications: program.rank(),
        additions,
        negations: program.negations(),
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

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(out) = args.output.as_ref().filter(|out| same_file(out, &args.input)) {
        bail!("{} is the input: the code would overwrite the scheme", out.display());
    }
    let (program, term_by_term) = program_of(&args)?;
    let Generated {
        code,
        multiplications,
        additions,
        negations,
    } = generate(&program, &args.name);
    match &args.output {
        Some(path) => write_atomic(path, code.as_bytes())?,
        None => print!("{code}"),
    }
    let by_terms = term_by_term
        .map(|n| format!("; {n} written term by term"))
        .unwrap_or_default();
    eprintln!(
        "{multiplications} multiplications, {additions} additions ({}{}{by_terms})",
        if program.f2 { "F2, XOR/AND" } else { "generic ring" },
        match negations {
            0 => String::new(),
            n => format!(", {n} of them unary negations"),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The program to write out: the input itself when it is a program file (`flipgraph
/// additions -o`), verified; else the scheme's, as `flipgraph additions` finds it (or term by
/// term), with the term-by-term count beside it.
fn program_of(args: &Args) -> Result<(SchemeProgram, Option<usize>)> {
    let path = &args.input;
    let text = read_bounded(path, MAX_PROGRAM_BYTES, "program or scheme")?;
    if is_program_file(&String::from_utf8_lossy(&text)) {
        let program = read_program(&String::from_utf8_lossy(&text)).with_context(|| path.display().to_string())?;
        program
            .verify(16, 0x7e57)
            .with_context(|| format!("{}: the program does not multiply correctly", path.display()))?;
        if args.f2 && !program.f2 {
            bail!("{}: a program over Z; --f2 applies to schemes only", path.display());
        }
        return Ok((program, None));
    }
    let checked = read_checked(path)?;
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
            path.display()
        );
    }
    let (scheme, f2) = counted_scheme(&checked, path, args.f2)?;
    let mut naive = SchemeProgram::naive(&scheme, f2);
    naive.absorb_signs();
    let program = match args.no_shared_pairs {
        true => naive.clone(),
        false => best_program(&scheme, f2, path)?,
    };
    Ok((program, Some(naive.additions())))
}

/// The largest program file read (a 16x16x16 program is a few MiB).
const MAX_PROGRAM_BYTES: u64 = 256 << 20;
