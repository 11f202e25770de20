//! Parsing window table functions in a query: the call
//! `TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL ...))` with positional
//! or named arguments, and a subquery over one's rows as a window join's
//! side. The query parser (`query`) and the semi and anti join parser
//! (`semi`) share them.

use sqlparser::ast::Expr as AstExpr;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::ast::{From, Named, Select, TvfKind, WindowSide, WindowTvf};
use crate::error::{Loc, Result, SqlError};
use crate::tokens::{alias, here, parse_word, pe, peek_word};

/// A window join's side: the subquery `sel` (a window table function's
/// rows) named `alias`.
pub(crate) fn window_side(
    sel: Select,
    alias: Option<String>,
    loc: Loc,
) -> Result<(Named, WindowSide)> {
    let From::Window(tvf) = sel.from else {
        return Err(SqlError::new(
            loc,
            "a window join's sides are each a window table function's rows: (SELECT * FROM \
             TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ...))) AS l; a join of other \
             subqueries is a regular join, which lowwater does not run",
        ));
    };
    if let Some((_, at)) = sel.group_by {
        return Err(SqlError::new(
            at,
            "a window join's side with GROUP BY (a window aggregation joined by window) is not \
             supported yet: join the window table functions' rows, and aggregate the joined \
             rows' table in another job",
        ));
    }
    let Some(alias) = alias else {
        return Err(SqlError::new(
            loc,
            "name each side of a window join: (SELECT * FROM TABLE(TUMBLE(...))) AS l",
        ));
    };
    let named = Named {
        name: tvf.source.clone(),
        loc: tvf.source_loc,
        alias: Some(alias),
    };
    let side = WindowSide {
        tvf,
        items: sel.items,
        filter: sel.filter,
        loc,
    };
    Ok((named, side))
}

/// The parameter names of a window function, in positional order.
fn parameters(kind: TvfKind) -> &'static [&'static str] {
    match kind {
        TvfKind::Tumble => &["DATA", "TIMECOL", "SIZE", "OFFSET"],
        TvfKind::Hop => &["DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"],
        TvfKind::Cumulate => &["DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"],
        TvfKind::Session => &["DATA", "TIMECOL", "GAP"],
    }
}

/// One argument of a window function: `TABLE src [PARTITION BY ...]`,
/// `DESCRIPTOR(col)` or an expression.
enum TvfArg {
    Table {
        source: String,
        loc: Loc,
        partition_by: Vec<String>,
    },
    Descriptor {
        column: String,
        loc: Loc,
    },
    Expr(Box<AstExpr>),
}

fn tvf_arg(p: &mut Parser) -> Result<TvfArg> {
    let loc = here(p);
    if p.parse_keyword(Keyword::TABLE) {
        let source = pe(p.parse_identifier())?.value;
        let mut partition_by = Vec::new();
        if p.parse_keywords(&[Keyword::PARTITION, Keyword::BY]) {
            // `PARTITION BY k` or `PARTITION BY (k1, k2)`: a bare list would
            // swallow the DESCRIPTOR argument that follows.
            if p.consume_token(&Token::LParen) {
                let cols = pe(p.parse_comma_separated(|p| p.parse_identifier()))?;
                pe(p.expect_token(&Token::RParen))?;
                partition_by = cols.into_iter().map(|c| c.value).collect();
            } else {
                partition_by.push(pe(p.parse_identifier())?.value);
            }
        }
        return Ok(TvfArg::Table {
            source,
            loc,
            partition_by,
        });
    }
    if peek_word(p, "DESCRIPTOR") {
        parse_word(p, "DESCRIPTOR");
        pe(p.expect_token(&Token::LParen))?;
        let loc = here(p);
        let column = pe(p.parse_identifier())?.value;
        pe(p.expect_token(&Token::RParen))?;
        return Ok(TvfArg::Descriptor { column, loc });
    }
    Ok(TvfArg::Expr(Box::new(pe(p.parse_expr())?)))
}

/// `TABLE(TVF(TABLE source ..., DESCRIPTOR(col), args...))`, the arguments
/// positional or all named (`DATA => TABLE t, TIMECOL => DESCRIPTOR(ts),
/// SIZE => INTERVAL ...`, in any order, as Flink's).
pub(crate) fn window_tvf(p: &mut Parser) -> Result<WindowTvf> {
    let tvf = window_call(p)?;
    alias(p)?;
    Ok(tvf)
}

/// `TABLE(TUMBLE(...))` without an alias after it.
pub(crate) fn window_call(p: &mut Parser) -> Result<WindowTvf> {
    pe(p.expect_keyword(Keyword::TABLE))?;
    pe(p.expect_token(&Token::LParen))?;
    let loc = here(p);
    let fname = pe(p.parse_identifier())?.value.to_ascii_uppercase();
    let kind = match fname.as_str() {
        "TUMBLE" => TvfKind::Tumble,
        "HOP" => TvfKind::Hop,
        "CUMULATE" => TvfKind::Cumulate,
        "SESSION" => TvfKind::Session,
        _ => {
            return Err(SqlError::new(
                loc,
                format!("{fname} is not a window function; use TUMBLE, HOP, CUMULATE or SESSION"),
            ))
        }
    };
    pe(p.expect_token(&Token::LParen))?;
    let params = parameters(kind);
    let mut slots: Vec<Option<(TvfArg, Loc)>> = params.iter().map(|_| None).collect();
    let mut positional = 0;
    let mut named = false;
    loop {
        let at = here(p);
        let name = match (&p.peek_token().token, &p.peek_nth_token(1).token) {
            (Token::Word(w), Token::RArrow) => Some(w.value.to_ascii_uppercase()),
            _ => None,
        };
        let slot = match name {
            Some(n) => {
                p.next_token();
                p.next_token();
                named = true;
                let slot = params.iter().position(|q| *q == n).ok_or_else(|| {
                    SqlError::new(
                        at,
                        format!(
                            "{fname} has no parameter {n}; its parameters are {}",
                            params.join(", ")
                        ),
                    )
                })?;
                // Flink 2.3 fails on named window arguments out of their
                // declared order ("Trying to access field ... in a type
                // with no fields"), so they are refused here too.
                if slot < positional {
                    return Err(SqlError::new(
                        at,
                        format!(
                            "{fname}'s named arguments must follow its parameter order ({}): \
                             Flink fails on {n} after {}",
                            params.join(", "),
                            params[positional - 1]
                        ),
                    ));
                }
                positional = slot + 1;
                slot
            }
            None if named => {
                return Err(SqlError::new(
                    at,
                    format!("{fname}: a positional argument cannot follow named ones"),
                ))
            }
            None => {
                positional += 1;
                positional - 1
            }
        };
        if slot >= params.len() {
            return Err(SqlError::new(
                at,
                format!(
                    "{fname} takes at most {} arguments ({})",
                    params.len(),
                    params.join(", ")
                ),
            ));
        }
        if slots[slot].is_some() {
            return Err(SqlError::new(
                at,
                format!("{fname}: {} is given twice", params[slot]),
            ));
        }
        slots[slot] = Some((tvf_arg(p)?, at));
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    pe(p.expect_token(&Token::RParen))?;
    pe(p.expect_token(&Token::RParen))?;
    let mut slots = slots.into_iter();
    let (source, source_loc, partition_by) = match slots.next().flatten() {
        Some((
            TvfArg::Table {
                source,
                loc,
                partition_by,
            },
            _,
        )) => (source, loc, partition_by),
        other => {
            return Err(SqlError::new(
                other.map_or(loc, |o| o.1),
                format!("{fname}'s first argument (DATA) must be TABLE <source>"),
            ))
        }
    };
    if kind != TvfKind::Session && !partition_by.is_empty() {
        return Err(SqlError::new(
            source_loc,
            format!("PARTITION BY is only for SESSION windows, not {fname}"),
        ));
    }
    let (time_column, time_loc) = match slots.next().flatten() {
        Some((TvfArg::Descriptor { column, loc }, _)) => (column, loc),
        other => {
            return Err(SqlError::new(
                other.map_or(loc, |o| o.1),
                format!("{fname}'s second argument (TIMECOL) must be DESCRIPTOR(<time column>)"),
            ))
        }
    };
    let mut args = Vec::new();
    for (i, s) in slots.enumerate() {
        match s {
            Some((TvfArg::Expr(e), _)) => {
                if args.len() < i {
                    return Err(SqlError::new(
                        loc,
                        format!(
                            "{fname} needs {} before {}",
                            params[2 + args.len()],
                            params[2 + i]
                        ),
                    ));
                }
                args.push(*e)
            }
            Some((_, at)) => {
                return Err(SqlError::new(
                    at,
                    format!("{fname}'s {} must be an interval", params[2 + i]),
                ))
            }
            None => {}
        }
    }
    Ok(WindowTvf {
        kind,
        loc,
        source,
        source_loc,
        partition_by,
        time_column,
        time_loc,
        args,
    })
}
