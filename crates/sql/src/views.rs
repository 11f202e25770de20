//! The views of a job as parsed: a `CREATE VIEW`'s name, column names and
//! query, and the views so far by name. The parsers (`query`, `join`) and
//! the inliner (`inline`) share them; it imports nothing of this crate but
//! the statement tree and its errors.

use std::collections::HashMap;

use crate::ast::Select;
use crate::error::Loc;

/// A `CREATE VIEW`.
#[derive(Debug, Clone)]
pub struct View {
    /// As written.
    pub name: String,
    /// Where the name is.
    pub loc: Loc,
    /// `CREATE VIEW v (a, b)`: the names of its columns.
    pub columns: Option<Vec<String>>,
    /// Its query.
    pub select: Select,
}

/// The views of a job so far, by lower-case name.
pub type Views = HashMap<String, View>;
