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

/// A cursor over the text after [`MARKER`], with errors naming the line. The line is counted
/// as the cursor moves (it only moves forward), so a large file is read in linear time.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    /// Newlines before `counted`.
    lines: usize,
    counted: usize,
}

impl Cursor<'_> {
    fn line(&mut self) -> usize {
        self.lines += self.text[self.counted..self.at].matches('\n').count();
        self.counted = self.at;
        1 + self.lines
    }

    fn error(&mut self, message: impl Into<String>) -> ParseError {
        ParseError::at(self.line(), message)
    }

    /// Skips white space and Maple comments (`#` to the end of the line).
    fn skip_space(&mut self) {
        loop {
            let rest = &self.text[self.at..];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if !trimmed.starts_with('#') {
                return;
            }
            self.at += trimmed.find('\n').unwrap_or(trimmed.len());
        }
    }

    /// The word `word` (a Maple name such as `Triad`), after white space.
    fn word(&mut self, word: &str) -> Result<(), ParseError> {
        self.skip_space();
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            let found: String = self.text[self.at..].chars().take(12).collect();
            Err(self.error(format!("expected {word}(...), found '{found}'")))
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.text[self.at..].chars().next()
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
            Err(self.error(format!(
                "expected '{c}' in a TriadSet of Matrix(rows, cols, [[..]]), found {found}"
            )))
        }
    }

    fn integer(&mut self) -> Result<i64, ParseError> {
        self.skip_space();
        let rest = &self.text[self.at..];
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
        let token = &rest[..sign + digits];
        let value = match token.parse() {
            Ok(value) => value,
            Err(_) if digits > 0 => return Err(self.error(format!("the integer {token} is too large"))),
            Err(_) => {
                let found: String = rest.chars().take(12).collect();
                return Err(self.error(format!("expected an integer, found '{found}'")));
            }
        };
        self.at += token.len();
        Ok(value)
    }

    fn size(&mut self) -> Result<usize, ParseError> {
        let value = self.integer()?;
        match usize::try_from(value) {
            Ok(v) if (1..=crate::shape::MAX_DIM as usize).contains(&v) => Ok(v),
            _ => Err(self.error(format!(
                "a matrix size must be from 1 to {}, not {value}",
                crate::shape::MAX_DIM
            ))),
        }
    }

    /// `Matrix(rows, cols, [[..], ..])`.
    fn whole_matrix(&mut self) -> Result<Matrix, ParseError> {
        self.word("Matrix")?;
        self.expect('(')?;
        self.matrix()
    }

    /// `Triad([Matrix(..), Matrix(..), Matrix(..)])`.
    fn triad(&mut self) -> Result<[Matrix; 3], ParseError> {
        self.word("Triad")?;
        self.expect('(')?;
        self.expect('[')?;
        let a = self.whole_matrix()?;
        self.expect(',')?;
        let b = self.whole_matrix()?;
        self.expect(',')?;
        let c = self.whole_matrix()?;
        self.expect(']')?;
        self.expect(')')?;
        Ok([a, b, c])
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

/// Where the triad set starts: the first [`MARKER`] outside a comment.
fn marker(text: &str) -> Option<usize> {
    text.match_indices(MARKER).map(|(at, _)| at).find(|&at| {
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        !text[line_start..at].contains('#')
    })
}

/// Reads a Maple triad set: `TriadSet([Triad([..]), ...])`, one term a triad.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let start = marker(text).ok_or_else(|| ParseError::whole("no TriadSet( in the file"))?;
    let mut cursor = Cursor {
        text,
        at: start + MARKER.len(),
        lines: 0,
        counted: 0,
    };
    cursor.expect('[')?;
    let mut triads = Vec::new();
    while cursor.peek() != Some(']') || !triads.is_empty() {
        triads.push(cursor.triad()?);
        let line = cursor.line();
        check_rank(triads.len(), Some(line))?;
        if cursor.peek() != Some(',') {
            break;
        }
        cursor.expect(',')?;
    }
    cursor.expect(']')?;
    cursor.expect(')')?;
    if marker(&text[cursor.at..]).is_some() {
        return Err(cursor.error("a second TriadSet in the file"));
    }
    let Some([first, second, _]) = triads.first() else {
        return Err(ParseError::whole("the TriadSet has no Triad"));
    };
    let (n, m, p) = (first.rows, first.cols, second.cols);
    let shape = shape_at(n, m, p, Some(first.line))?;
    let want = [(n, m), (m, p), (p, n)];
    let mut terms = Vec::with_capacity(triads.len());
    for [a, b, c] in triads {
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
    fn comments_and_text_around_the_set_are_skipped() {
        let naive = IntScheme::from_f2(&Scheme::naive(Shape::new(2, 2, 3).unwrap()));
        let text = maple(&naive)
            .replacen(
                "Triad([",
                "# Matrix(9, 9, [[1]]) and TriadSet( in a comment\nTriad([",
                1,
            )
            .replacen("A:=", "# TriadSet(\nA:=", 1)
            + "B := Matrix(2, 2, [[B_1_1, B_1_2], [B_2_1, B_2_2]]):\n";
        assert_eq!(read(&text).unwrap(), naive);
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
            (good.replacen("Triad([", "Foo([", 1), "expected Triad(...)"),
            (good.replacen("]), Matrix(", "], Matrix(", 1), "expected"),
            (format!("{good}{good}"), "a second TriadSet"),
        ];
        for (text, needle) in cases {
            let e = read(&text).expect_err(needle);
            assert!(e.to_string().contains(needle), "'{e}' should say '{needle}'");
        }
    }
}
