//! Mathematica lists: `{ {A, B, C^T}, ... }`, each factor a list of rows of integers.

use super::{check_rank, shape_at, ParseError};
use crate::scheme::{IntScheme, IntTerm};

/// A parsed list or integer, with the line it starts on.
enum Node {
    Int(i64, usize),
    List(Vec<Node>, usize),
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Int(_, l) | Node::List(_, l) => *l,
        }
    }

    fn list(&self, what: &str) -> Result<&[Node], ParseError> {
        match self {
            Node::List(items, _) => Ok(items),
            Node::Int(..) => Err(ParseError::at(
                self.line(),
                format!("expected a list for {what}, found a number"),
            )),
        }
    }
}

/// Nesting deeper than a scheme needs (scheme, term, factor, row) is an error, which also
/// bounds the recursion.
const MAX_DEPTH: usize = 4;

struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
}

impl Lexer<'_> {
    fn skip_space(&mut self) {
        while let Some(&c) = self.bytes.get(self.at) {
            match c {
                b'\n' => self.line += 1,
                c if c.is_ascii_whitespace() => {}
                _ => return,
            }
            self.at += 1;
        }
    }

    fn node(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.skip_space();
        let line = self.line;
        match self.bytes.get(self.at) {
            Some(b'{') => {
                if depth == MAX_DEPTH {
                    return Err(ParseError::at(
                        line,
                        "lists nested deeper than {scheme, term, factor, row}",
                    ));
                }
                self.at += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Node::List(items, line));
                }
                loop {
                    items.push(self.node(depth + 1)?);
                    self.skip_space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Node::List(items, line));
                        }
                        Some(&c) => {
                            return Err(ParseError::at(
                                self.line,
                                format!("expected ',' or '}}', found '{}'", c as char),
                            ))
                        }
                        None => return Err(ParseError::at(self.line, "the file ends inside a list (truncated?)")),
                    }
                }
            }
            Some(b'-') | Some(b'0'..=b'9') => {
                let start = self.at;
                self.at += 1;
                while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                    self.at += 1;
                }
                let s = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or("");
                s.parse()
                    .map(|v| Node::Int(v, line))
                    .map_err(|_| ParseError::at(line, format!("bad number '{s}'")))
            }
            Some(&c) => Err(ParseError::at(
                line,
                format!("expected '{{' or a number, found '{}'", c as char),
            )),
            None => Err(ParseError::at(
                line,
                "the file ends where a value was expected (truncated?)",
            )),
        }
    }
}

/// A matrix of integers: its rows, all of one length.
fn matrix(node: &Node, what: &str) -> Result<(usize, usize, Vec<i64>), ParseError> {
    let rows = node.list(what)?;
    let mut values = Vec::new();
    let mut cols = None;
    for row in rows {
        let row = row.list(what)?;
        if *cols.get_or_insert(row.len()) != row.len() {
            return Err(ParseError::at(
                node.line(),
                format!("{what} has rows of different lengths"),
            ));
        }
        for x in row {
            match x {
                Node::Int(v, _) => values.push(*v),
                Node::List(_, l) => return Err(ParseError::at(*l, format!("{what}: expected a number, found a list"))),
            }
        }
    }
    Ok((rows.len(), cols.unwrap_or(0), values))
}

/// Reads a scheme written as a Mathematica list.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let mut lexer = Lexer {
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
    };
    let root = lexer.node(0)?;
    lexer.skip_space();
    if lexer.at < lexer.bytes.len() {
        return Err(ParseError::at(lexer.line, "unexpected text after the closing '}'"));
    }
    let items = root.list("the scheme")?;
    check_rank(items.len(), Some(root.line()))?;
    let mut shape = None;
    let mut terms = Vec::with_capacity(items.len());
    for item in items {
        let factors = item.list("a term")?;
        let [a, b, c] = factors else {
            return Err(ParseError::at(
                item.line(),
                format!("a term needs 3 factors, found {}", factors.len()),
            ));
        };
        let (a, b, c) = (matrix(a, "factor A")?, matrix(b, "factor B")?, matrix(c, "factor C")?);
        // A is n x m, B m x p, C^T p x n.
        if a.1 != b.0 || b.1 != c.0 || c.1 != a.0 {
            return Err(ParseError::at(
                item.line(),
                format!(
                    "factor sizes {}x{}, {}x{}, {}x{} do not fit one shape <n,m,p>",
                    a.0, a.1, b.0, b.1, c.0, c.1
                ),
            ));
        }
        let this = shape_at(a.0, a.1, b.1, Some(item.line()))?;
        if *shape.get_or_insert(this) != this {
            return Err(ParseError::at(
                item.line(),
                format!("this term has shape {this}, the first had {}", shape.unwrap()),
            ));
        }
        terms.push(IntTerm {
            factors: [a.2, b.2, c.2],
        });
    }
    let shape = shape.ok_or_else(|| ParseError::whole("the scheme has no terms"))?;
    Ok(IntScheme { shape, terms })
}
