//! Maple triads, as in the `.mpl` files of Perminov's FastMatrixMultiplication (read only):
//! `Tensor:=TriadSet([Triad([Matrix(n, m, [[..]]), Matrix(m, p, [[..]]), Matrix(p, n, [[..]])]),
//! ...]):`, each triad one term. The third matrix is C transposed (`p x n`), row-major as ours;
//! the `A:=Matrix(...)` lines of symbols before the set are skipped.

use super::{check_rank, shape_at, ParseError};
use crate::scheme::{IntScheme, IntTerm};

/// What marks a Maple triad file.
pub const MARKER: &str = "TriadSet(";

/// One `Matrix(rows, cols, [[..], ..])`: its size and entries, row-major.
struct Matrix {
    rows: usize,
    cols: usize,
    entries: Vec<i64>,
    line: usize,
}

/// A cursor over the text after [`MARKER`], with errors naming the line.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn line(&self) -> usize {
        1 + self.text[..self.at].matches('\n').count()
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::at(self.line(), message)
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        self.skip_space();
        if self.text[self.at..].starts_with(c) {
            self.at += c.len_utf8();
            Ok(())
        } else {
            let found = self.text[self.at..]
                .chars()
                .next()
                .map_or("the end".into(), |f| format!("'{f}'"));
            Err(self.error(format!("expected '{c}' in a Matrix(rows, cols, [[..]]), found {found}")))
        }
    }

    fn integer(&mut self) -> Result<i64, ParseError> {
        self.skip_space();
        let rest = &self.text[self.at..];
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
        let token = &rest[..sign + digits];
        let value = token
            .parse()
            .map_err(|_| self.error(format!("expected an integer, found '{}'", &rest[..rest.len().min(12)])))?;
        self.at += token.len();
        Ok(value)
    }

    fn size(&mut self) -> Result<usize, ParseError> {
        let value = self.integer()?;
        usize::try_from(value)
            .ok()
            .filter(|&v| (1..=crate::shape::MAX_DIM as usize).contains(&v))
            .ok_or_else(|| {
                self.error(format!(
                    "a matrix size must be from 1 to {}, not {value}",
                    crate::shape::MAX_DIM
                ))
            })
    }

    /// The rest of a matrix after `Matrix(`.
    fn matrix(&mut self) -> Result<Matrix, ParseError> {
        let line = self.line();
        let rows = self.size()?;
        self.expect(',')?;
        let cols = self.size()?;
        self.expect(',')?;
        self.expect('[')?;
        let mut entries = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            if r > 0 {
                self.expect(',')?;
            }
            self.expect('[')?;
            for c in 0..cols {
                if c > 0 {
                    self.expect(',')?;
                }
                entries.push(self.integer()?);
            }
            self.expect(']')?;
        }
        self.expect(']')?;
        self.expect(')')?;
        Ok(Matrix {
            rows,
            cols,
            entries,
            line,
        })
    }
}

/// Reads a Maple triad set.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let start = text
        .find(MARKER)
        .ok_or_else(|| ParseError::whole("no TriadSet( in the file"))?;
    let mut cursor = Cursor { text, at: start };
    let mut matrices = Vec::new();
    while let Some(k) = text[cursor.at..].find("Matrix(") {
        cursor.at += k + "Matrix(".len();
        matrices.push(cursor.matrix()?);
        check_rank(matrices.len() / 3, Some(cursor.line()))?;
    }
    if matrices.len() % 3 != 0 {
        return Err(cursor.error(format!("{} matrices: a triad has three", matrices.len())));
    }
    let Some(first) = matrices.first() else {
        return Err(ParseError::whole("the TriadSet has no Triad"));
    };
    let (n, m) = (first.rows, first.cols);
    let p = matrices[1].cols;
    let shape = shape_at(n, m, p, Some(first.line))?;
    let want = [(n, m), (m, p), (p, n)];
    let mut terms = Vec::with_capacity(matrices.len() / 3);
    let mut triads = matrices.into_iter();
    while let (Some(a), Some(b), Some(c)) = (triads.next(), triads.next(), triads.next()) {
        for (x, (rows, cols)) in [&a, &b, &c].into_iter().zip(want) {
            if (x.rows, x.cols) != (rows, cols) {
                return Err(ParseError::at(
                    x.line,
                    format!("a {}x{} matrix where {shape} needs {rows}x{cols}", x.rows, x.cols),
                ));
            }
        }
        terms.push(IntTerm {
            factors: [a.entries, b.entries, c.entries],
        });
    }
    Ok(IntScheme { shape, terms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::verify_z;
    use crate::{Position, Scheme, Shape};

    /// The scheme as Maple triads, as Perminov's files write them.
    fn maple(s: &IntScheme) -> String {
        let matrix = |x: &[i64], (rows, cols): (usize, usize)| {
            let lines: Vec<String> = x.chunks(cols).map(|r| format!("{r:?}").replace(' ', "")).collect();
            format!("Matrix({rows}, {cols}, [{}])", lines.join(","))
        };
        let triads: Vec<String> = s
            .terms
            .iter()
            .map(|t| {
                let m: Vec<String> = Position::ALL.map(|p| matrix(t.get(p), s.shape.factor_dims(p))).to_vec();
                format!("Triad([{}])", m.join(", "))
            })
            .collect();
        format!(
            "A:=Matrix(2, 2, [[A_1_1,A_1_2],[A_2_1,A_2_2]]):\nTensor:=TriadSet([{}]):\n",
            triads.join(",\n")
        )
    }

    #[test]
    fn triads_are_read_in_wide_and_small_formats() {
        for (n, m, p) in [(2, 2, 2), (2, 3, 4), (3, 2, 14)] {
            let naive = IntScheme::from_f2(&Scheme::naive(Shape::new(n, m, p).unwrap()));
            let back = read(&maple(&naive)).unwrap();
            assert_eq!(back, naive);
            assert_eq!(verify_z(&back), Ok(()));
        }
    }

    #[test]
    fn bad_triads_name_their_line() {
        let good = maple(&IntScheme::from_f2(&Scheme::naive(Shape::new(2, 2, 3).unwrap())));
        // The second triad's A as a 1x1 matrix.
        let at = good.match_indices("Triad([Matrix(").nth(1).unwrap().0 + "Triad([".len();
        let end = at + good[at..].find(')').unwrap() + 1;
        let small = format!("{}Matrix(1, 1, [[1]]){}", &good[..at], &good[end..]);
        let cases = [
            (small, "a 1x1 matrix where 2x2x3 needs 2x2"),
            (good.replacen("[[0,1]", "[[0,x]", 1), "expected an integer"),
            (good.replacen("Matrix(2, 3,", "Matrix(2, 17,", 1), "from 1 to 16"),
            (good[..good.len() - 30].to_owned(), "expected"),
            ("Tensor:=TriadSet([]):".to_owned(), "no Triad"),
        ];
        for (text, needle) in cases {
            let e = read(&text).expect_err(needle);
            assert!(e.to_string().contains(needle), "'{e}' should say '{needle}'");
        }
    }
}
