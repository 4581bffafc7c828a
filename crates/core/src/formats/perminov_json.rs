//! Perminov JSON: `{"n":[n,m,p],"m":rank,"z2":bool,"u":[...],"v":[...],"w":[...]}`.
//!
//! `u`, `v` and `w` hold one vector per term of `n*m`, `m*p` and `p*n` values (W is C
//! transposed). Other keys are ignored.

use serde::{Deserialize, Serialize};

use super::{check_rank, factor_lengths, shape_at, ParseError, Ring};
use crate::scheme::{IntScheme, IntTerm};

#[derive(Deserialize, Serialize)]
struct Doc {
    n: [usize; 3],
    m: usize,
    #[serde(default)]
    z2: Option<bool>,
    u: Vec<Vec<i64>>,
    v: Vec<Vec<i64>>,
    w: Vec<Vec<i64>>,
}

/// Reads Perminov JSON; returns the scheme and the declared ring (`z2`, F2 when absent).
pub fn read(text: &str) -> Result<(IntScheme, Ring), ParseError> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Eof => "the JSON ends early (truncated?)",
            _ => "invalid Perminov JSON",
        };
        ParseError::at(e.line(), format!("{what}: {e}"))
    })?;
    let [n, m, p] = doc.n;
    let shape = shape_at(n, m, p, None)?;
    check_rank(doc.m, None)?;
    let lengths = factor_lengths(shape);
    for (key, vectors, len) in [
        ("u", &doc.u, lengths[0]),
        ("v", &doc.v, lengths[1]),
        ("w", &doc.w, lengths[2]),
    ] {
        if vectors.len() != doc.m {
            return Err(ParseError::whole(format!(
                "\"m\" says rank {} but \"{key}\" has {} vectors",
                doc.m,
                vectors.len()
            )));
        }
        if let Some((i, bad)) = vectors.iter().enumerate().find(|(_, x)| x.len() != len) {
            return Err(ParseError::whole(format!(
                "\"{key}\"[{i}] has {} values; shape {shape} needs {len}",
                bad.len()
            )));
        }
    }
    let terms = doc
        .u
        .into_iter()
        .zip(doc.v)
        .zip(doc.w)
        .map(|((a, b), c)| IntTerm { factors: [a, b, c] })
        .collect();
    let ring = if doc.z2.unwrap_or(true) { Ring::F2 } else { Ring::Z };
    Ok((IntScheme { shape, terms }, ring))
}

/// Writes Perminov JSON (one vector per line, as Perminov's tools do).
pub fn write(scheme: &IntScheme, ring: Ring) -> String {
    let column = |k: usize| -> String {
        let rows: Vec<String> = scheme
            .terms
            .iter()
            .map(|t| serde_json::to_string(&t.factors[k]).unwrap_or_default())
            .collect();
        format!("[\n        {}\n    ]", rows.join(",\n        "))
    };
    let [n, m, p] = scheme.shape.dims();
    format!(
        "{{\n    \"n\": [{n}, {m}, {p}],\n    \"m\": {},\n    \"z2\": {},\n    \"u\": {},\n    \"v\": {},\n    \"w\": {}\n}}\n",
        scheme.rank(),
        ring == Ring::F2,
        column(0),
        column(1),
        column(2)
    )
}
