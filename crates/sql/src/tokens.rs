//! Small helpers over sqlparser's token stream that the statement parsers
//! (`parse` for SET and CREATE TABLE, `query` for SELECT, CREATE VIEW and
//! INSERT, `tvf` and `semi` for the parts of a query they read) share. Like
//! `ast`, it imports nothing of this crate but its errors.

use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::error::{Loc, Result, SqlError};

/// Where the next token starts.
pub(crate) fn here(p: &Parser) -> Loc {
    Loc::from_sp(p.peek_token().span.start)
}

/// A sqlparser result as this crate's, its error with line and column.
pub(crate) fn pe<T>(r: std::result::Result<T, ParserError>) -> Result<T> {
    r.map_err(SqlError::from_parser)
}

/// Whether the next token is the (unquoted) word `w`.
pub(crate) fn peek_word(p: &Parser, w: &str) -> bool {
    match &p.peek_token().token {
        Token::Word(word) => word.quote_style.is_none() && word.value.eq_ignore_ascii_case(w),
        _ => false,
    }
}

/// Consumes the next token if it is the (unquoted) word `w`, and says
/// whether it did.
pub(crate) fn parse_word(p: &mut Parser, w: &str) -> bool {
    if peek_word(p, w) {
        p.next_token();
        true
    } else {
        false
    }
}

/// `[AS] alias` after a FROM item, if there is one.
pub(crate) fn alias(p: &mut Parser) -> Result<Option<String>> {
    if p.parse_keyword(Keyword::AS) {
        return Ok(Some(pe(p.parse_identifier())?.value));
    }
    if let Token::Word(w) = &p.peek_token().token {
        if w.keyword == Keyword::NoKeyword {
            let a = w.value.clone();
            p.next_token();
            return Ok(Some(a));
        }
    }
    Ok(None)
}
