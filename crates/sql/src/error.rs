//! Errors of the SQL front end. Every error names the construct, the place
//! (line and column of the job file, 1-based) and what is supported instead,
//! because the user's only way to fix it is to edit the file.

use std::fmt;

/// A place in the job file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub column: u64,
}

impl Loc {
    /// A place from sqlparser's location.
    pub fn from_sp(l: sqlparser::tokenizer::Location) -> Self {
        Loc {
            line: l.line,
            column: l.column,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// An error in a job file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{loc}: {message}")]
pub struct SqlError {
    /// Where.
    pub loc: Loc,
    /// What is wrong and what to do.
    pub message: String,
}

impl SqlError {
    /// An error at `loc`.
    pub fn new(loc: Loc, message: impl Into<String>) -> Self {
        SqlError {
            loc,
            message: message.into(),
        }
    }

    /// Wraps a sqlparser error, whose text already carries "Line: l, Column: c".
    pub fn from_parser(e: sqlparser::parser::ParserError) -> Self {
        let text = e.to_string();
        let loc = parse_location(&text).unwrap_or_default();
        let message = match text.find(" at Line: ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        let message = message
            .trim_start_matches("sql parser error: ")
            .trim_start_matches("sql tokenizer error: ")
            .to_string();
        SqlError { loc, message }
    }
}

fn parse_location(text: &str) -> Option<Loc> {
    let rest = &text[text.find("Line: ")? + 6..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some(Loc {
        line: line.trim().parse().ok()?,
        column: column.parse().ok()?,
    })
}

/// Result type of the SQL front end.
pub type Result<T> = std::result::Result<T, SqlError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_locations_are_extracted() {
        let l = parse_location("sql parser error: Expected: ), found: x at Line: 3, Column: 17");
        assert_eq!(
            l,
            Some(Loc {
                line: 3,
                column: 17
            })
        );
    }
}
