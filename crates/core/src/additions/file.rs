//! The program file: a [`SchemeProgram`] as JSON, which `flipgraph codegen` turns into code.

use serde::{Deserialize, Serialize};
use std::string::{String, ToString};
use std::vec::Vec;

use super::{Pair, Program, SchemeProgram};
use crate::shape::Shape;

/// The value of the `format` key that marks a program file.
pub const PROGRAM_FORMAT: &str = "flipgraph-program";

/// Why a program file was not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProgramFileError(String);

#[derive(Serialize, Deserialize)]
struct Doc {
    format: String,
    shape: [usize; 3],
    ring: String,
    rank: usize,
    additions: usize,
    a: MapDoc,
    b: MapDoc,
    c: MapDoc,
}

/// One map: its inputs, its pairs `[x, y, sign]` (variable `inputs + i` is pair `i`), and its
/// output forms as `[variable, coefficient]` lists.
#[derive(Serialize, Deserialize)]
struct MapDoc {
    inputs: usize,
    pairs: Vec<(u32, u32, i64)>,
    outputs: Vec<Vec<(u32, i64)>>,
}

impl From<&Program> for MapDoc {
    fn from(p: &Program) -> MapDoc {
        MapDoc {
            inputs: p.inputs,
            pairs: p.pairs.iter().map(|p| (p.x, p.y, p.sign)).collect(),
            outputs: p.outputs.clone(),
        }
    }
}

impl From<MapDoc> for Program {
    fn from(d: MapDoc) -> Program {
        Program {
            inputs: d.inputs,
            pairs: d.pairs.into_iter().map(|(x, y, sign)| Pair { x, y, sign }).collect(),
            outputs: d.outputs,
        }
    }
}

/// The program file's text (JSON, with its shape, ring, rank and additions for the reader).
pub fn write_program(program: &SchemeProgram) -> String {
    let [a, b, c] = program.maps.each_ref().map(MapDoc::from);
    let doc = Doc {
        format: PROGRAM_FORMAT.into(),
        shape: program.shape.dims(),
        ring: (if program.f2 { "F2" } else { "Z" }).into(),
        rank: program.rank(),
        additions: program.additions(),
        a,
        b,
        c,
    };
    serde_json::to_string(&doc).expect("a program serializes") + "\n"
}

/// Whether `text` is meant as a program file (JSON whose `format` is [`PROGRAM_FORMAT`]),
/// rather than a scheme.
pub fn is_program_file(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Tag {
        format: Option<String>,
    }
    serde_json::from_str::<Tag>(text).is_ok_and(|t| t.format.as_deref() == Some(PROGRAM_FORMAT))
}

/// Reads a program file. Its parts must fit its shape and name only variables they define,
/// and its `additions` must be what its programs count; whether it multiplies correctly is
/// [`SchemeProgram::verify`]'s to say.
pub fn read_program(text: &str) -> Result<SchemeProgram, ProgramFileError> {
    let fail = |why: String| ProgramFileError(why);
    let doc: Doc = serde_json::from_str(text).map_err(|e| fail(format!("not a program file: {e}")))?;
    if doc.format != PROGRAM_FORMAT {
        return Err(fail(format!("format is '{}', not '{PROGRAM_FORMAT}'", doc.format)));
    }
    let [n, m, p] = doc.shape;
    let shape = Shape::new(n, m, p).map_err(|e| fail(e.to_string()))?;
    let f2 = match doc.ring.as_str() {
        "Z" => false,
        "F2" => true,
        other => return Err(fail(format!("ring '{other}' (Z or F2 expected)"))),
    };
    let program = SchemeProgram {
        shape,
        f2,
        maps: [doc.a.into(), doc.b.into(), doc.c.into()],
    };
    program.scheme().map_err(|e| fail(e.to_string()))?;
    if program.rank() != doc.rank || program.additions() != doc.additions {
        return Err(fail(format!(
            "it says rank {} and {} additions; its programs have rank {} and {} additions",
            doc.rank,
            doc.additions,
            program.rank(),
            program.additions()
        )));
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::super::{minimize, Effort};
    use super::*;

    fn laderman_program() -> SchemeProgram {
        let text = include_str!("../../../../tests/data/3x3x3-r23-laderman.m");
        let s = crate::formats::read(text.as_bytes()).expect("Laderman reads").scheme;
        minimize(&s, false, Effort::QUICK)
    }

    /// A program file reads back as the program written, and is recognised as one.
    #[test]
    fn a_program_file_round_trips() {
        let program = laderman_program();
        let text = write_program(&program);
        assert!(is_program_file(&text));
        assert!(!is_program_file(include_str!(
            "../../../../tests/data/2x2x2-r7-perminov-additions15.json"
        )));
        assert_eq!(read_program(&text), Ok(program));
    }

    /// A file whose count disagrees with its programs, or that names a variable its program
    /// has not defined, or that is not JSON, is refused with a reason.
    #[test]
    fn a_bad_program_file_is_refused_with_a_reason() {
        let program = laderman_program();
        let text = write_program(&program);
        let edited = text.replace(
            &format!("\"additions\":{}", program.additions()),
            &format!("\"additions\":{}", program.additions() - 1),
        );
        assert!(read_program(&edited).unwrap_err().to_string().contains("additions"));
        let mut broken = program.clone();
        broken.maps[2].outputs[0].push((9999, 1));
        let err = read_program(&write_program(&broken)).unwrap_err().to_string();
        assert!(err.contains("the map of C names a variable"), "{err}");
        assert!(read_program("{\"format\":")
            .unwrap_err()
            .to_string()
            .contains("not a program file"));
    }
}
